#!/usr/bin/env bash
# dev_alloc_abort.sh PROG: runs PROG (dev_alloc_abort.c) once per misuse with
# SYMH_REGISTRY=error (and once per misuse with the policy set by symh_registry_set_policy):
# each run must end by SIGABRT after logging the reason, that misuse's own (reason_of); the
# correct run must exit 0.
# The runs are independent and mostly wait (each starts a singleton MPI job), so up to four run
# at once, each into its own file; the results are read back in the order they were started.
set -uo pipefail
prog=$1
fail=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
runs=()

# The words of each misuse's line (reg_dev_alloc.c) that no other misuse's line has.
reason_of() {
    case $1 in
    double-free | foreign | replace-freed) echo "is not a live device allocation" ;;
    interior) echo "is an interior pointer" ;;
    mismatch) echo "was allocated on device 1, not device 0" ;;
    past-end) echo "past its allocation" ;;
    before-start) echo "starts before the allocation" ;;
    unknown-copy) echo "is not in a device allocation the registry knows" ;;
    esac
}

start() { # expect(abort|ok) env-policy mode
    local n=${#runs[@]}
    while [[ $(jobs -rp | wc -l) -ge 4 ]]; do wait -n; done
    runs+=("$1 $2 $3")
    (
        SYMH_REGISTRY=$2 "$prog" "$3" >"$dir/$n.out" 2>&1
        echo $? >"$dir/$n.rc"
    ) &
}

check() { # index expect(abort|ok) env-policy mode
    local out=$dir/$1.out expect=$2 policy=$3 mode=$4 rc reason
    rc=$(cat "$dir/$1.rc")
    if [[ $expect == ok ]]; then
        if [[ $rc -ne 0 ]]; then
            echo "FAIL: $mode (SYMH_REGISTRY=$policy): exit $rc, expected 0"
            cat "$out"
            fail=1
        fi
        return
    fi
    reason=$(reason_of "${mode#set-}")
    if [[ $rc -ne 134 ]] || ! grep "SYMH_REGISTRY=error: aborting" "$out" | grep -qF "$reason"; then
        echo "FAIL: $mode (SYMH_REGISTRY=$policy): exit $rc, expected 134 (SIGABRT) and the reason \"$reason\""
        cat "$out"
        fail=1
    else
        echo "ok: $mode (SYMH_REGISTRY=$policy) aborted: $(grep -m1 'aborting' "$out" | sed 's/.* error //')"
    fi
}

start ok error ok
for mode in double-free interior foreign mismatch past-end before-start unknown-copy replace-freed; do
    start abort error "$mode"
    start abort warn "set-$mode"
done
# Under warn the same misuses return their code and the program finishes.
for mode in double-free interior foreign mismatch past-end before-start unknown-copy replace-freed; do
    start ok warn "$mode"
done
wait
for i in "${!runs[@]}"; do
    # shellcheck disable=SC2086 # the three words of the run
    check "$i" ${runs[$i]}
done
exit $fail
