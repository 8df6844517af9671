#!/bin/sh
# driver.sh BINARY SUITE|TEST LOGDIR: runs symh_functional_tests outside CTest, as rocSHMEM's
# driver script does. SUITE is a category of `BINARY --list` (rma, context, amo, signal, infra,
# sync, coll, team, flood, order, tile, host, registration) or `all`; TEST is one type's number
# or name. Each supported type runs at the PE counts of its rule (2 PEs: 2; 2+ PEs: 2, 3, 4 and
# 8; 4 PEs: 4; 1+ PEs: 1 and 2) with DRIVER_ARGS (default: -s 65536 -n 5 -nskip 2 -nlarge 2);
# unsupported types are reported as skipped with their reason. One log per run in LOGDIR, one
# line per run on stdout, a summary at the end; exits 1 when any run failed.
# MPIEXEC (default mpirun) and its flags (MPIEXEC_FLAGS, default --oversubscribe under Open MPI)
# may be overridden; SYMH_* variables (SYMH_TRANSPORT=ucx, ...) pass through.
set -u
if [ $# -ne 3 ]; then
    echo "usage: $0 BINARY SUITE|TEST LOGDIR" >&2
    exit 2
fi
bin=$1
what=$2
logdir=$3
mpiexec=${MPIEXEC:-mpirun}
if [ -z "${MPIEXEC_FLAGS+x}" ]; then
    MPIEXEC_FLAGS=""
    if "$mpiexec" --version 2>/dev/null | grep -q "Open MPI\|OpenRTE"; then
        MPIEXEC_FLAGS=--oversubscribe
    fi
fi
args=${DRIVER_ARGS:--s 65536 -n 5 -nskip 2 -nlarge 2}
mkdir -p "$logdir" || exit 2
list=$("$bin" --list) || exit 2
lower_what=$(printf '%s' "$what" | tr 'A-Z' 'a-z')
passed=0
skipped=0
failed=0
# --list columns: number, name, category, PE rule (two words, or "-"), status...
selected=$(printf '%s\n' "$list" | awk -v w="$lower_what" 'NR > 1 {
    if (w == "all" || w == tolower($3) || w == $1 || w == tolower($2)) print }')
if [ -z "$selected" ]; then
    echo "driver.sh: no test type or suite '$what' (see $bin --list)" >&2
    exit 2
fi
tab=$(printf '\t')
printf '%s\n' "$selected" | {
    while read -r num name cat rule rest; do
        case "$rule $rest" in
        "- skipped"*)
            echo "skipped  $num $name: ${rest#skipped: }"
            skipped=$((skipped + 1))
            continue
            ;;
        "2 PEs"*) nps="2" ;;
        "2+ PEs"*) nps="2 3 4 8" ;;
        "4 PEs"*) nps="4" ;;
        *) nps="1 2" ;;
        esac
        for np in $nps; do
            log="$logdir/${name}_n${np}.log"
            start=$(date +%s)
            # shellcheck disable=SC2086
            "$mpiexec" -n "$np" $MPIEXEC_FLAGS "$bin" -a "$num" $args >"$log" 2>&1 </dev/null
            rc=$?
            secs=$(($(date +%s) - start))
            if [ $rc -eq 0 ] && ! grep -q FAILED "$log"; then
                echo "passed   $num $name at $np PEs (${secs} s)"
                passed=$((passed + 1))
            elif [ $rc -eq 125 ]; then
                echo "skipped  $num $name at $np PEs: $(head -1 "$log")"
                skipped=$((skipped + 1))
            else
                echo "FAILED   $num $name at $np PEs (exit $rc, log $log)"
                failed=$((failed + 1))
            fi
        done
    done
    echo "driver.sh: $passed passed, $skipped skipped, $failed failed${tab}(logs in $logdir)"
    [ $failed -eq 0 ]
}
