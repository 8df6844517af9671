#!/usr/bin/env bash
# Command-line behaviour a user sees: the demo, a bad SYMH_* value, symh_info, global exit, and
# symh_init after MPI_Finalize.
# usage: test_cli.sh CASE BUILD_DIR SOURCE_DIR MPIEXEC [MPIEXEC_FLAGS...]
set -euo pipefail

case_name=$1 build=$2 src=$3
shift 3
mpiexec=("$@")
out=$(mktemp)
trap 'rm -f "$out"' EXIT

fail() {
    echo "FAIL ($case_name): $*" >&2
    echo "---- output ----" >&2
    cat "$out" >&2
    exit 1
}

case $case_name in
demo)
    # Every PE reports itself once, with its node-local rank and routes.
    "${mpiexec[@]}" -n 4 "$build/examples/symh_hello" >"$out" 2>&1 || fail "demo exited $?"
    for pe in 0 1 2 3; do
        grep -q "^PE $pe of 4: node-local rank $pe of 4, transports:.* $pe:self" "$out" ||
            fail "no line for PE $pe"
    done
    [ "$(grep -c '^PE [0-9] of 4: ' "$out")" -eq 4 ] || fail "expected 4 PE lines"
    # The ring exchange over the heap and the atomic count, verified by the demo itself.
    for pe in 0 1 2 3; do
        grep -q "^PE $pe: ring: received $((((pe + 3) % 4) * 1000 + 7)) from PE $(((pe + 3) % 4)) .*: ok$" "$out" ||
            fail "PE $pe did not verify its ring token"
    done
    grep -q "^PE 0: atomics: 4 PEs added 1..4 to a counter: 10 (expected 10): ok$" "$out" ||
        fail "the atomic count is not verified"
    # The demo ends with PE 0's device allocation report (docs/dev-alloc.md): one line per live
    # allocation, then the total; again after the free.
    grep -Eq '^symh live allocation: address=0x[0-9a-f]{16} bytes=800 device=0 label="temperature"$' "$out" ||
        fail "no report line for the labelled device allocation"
    grep -q '^symh live allocations: 1 (800 bytes)$' "$out" || fail "no report total line"
    grep -q '^symh live allocations: 0 (0 bytes)$' "$out" || fail "no empty report after the free"
    ;;
example_symm)
    # The worked example of docs/registration.md, at 2 and 3 PEs: each PE verifies the greeting
    # the previous PE put through the alias, read through its original buffer.
    for np in 2 3; do
        timeout 120 "${mpiexec[@]}" -n $np "$build/examples/symh_symmetric_registration" >"$out" 2>&1 ||
            fail "np $np exited $?"
        for ((pe = 0; pe < np; ++pe)); do
            grep -q "^PE $pe: buffer .*, alias .*, received \"hello from PE $(((pe + np - 1) % np))\" through the original address: ok$" "$out" ||
                fail "np $np: PE $pe did not verify its greeting"
        done
    done
    ;;
bad_config)
    # A wrong SYMH_HEAP_SIZE: non-zero exit, one message naming variable and value, no hang.
    rc=0
    SYMH_HEAP_SIZE=12q timeout 60 "${mpiexec[@]}" -n 2 "$build/examples/symh_hello" >"$out" 2>&1 ||
        rc=$?
    [ "$rc" -ne 0 ] || fail "exit status 0"
    [ "$rc" -ne 124 ] || fail "timed out"
    [ "$(grep -c "SYMH_HEAP_SIZE='12q'" "$out")" -eq 1 ] || fail "not exactly one message"
    grep -q '^PE [0-9]' "$out" && fail "a PE ran the demo anyway"
    grep -qi 'segmentation\|core dumped\|signal' "$out" && fail "crash"
    ;;
info)
    # symh_info's report against what the build system knows (tests/cli/CMakeLists.txt passes
    # SYMHTEST_*), the configuration table's source and the environment given here; no SYMH_*
    # variable of the caller's leaks in.
    for name in $(compgen -e); do
        [[ $name == SYMH_* ]] && unset "$name"
    done
    for name in SYMHTEST_VERSION SYMHTEST_BUILD_TYPE SYMHTEST_SANITIZE SYMHTEST_TRANSPORTS \
        SYMHTEST_DEVICE_BACKENDS; do
        [ -n "${!name:-}" ] || fail "$name not set (run by CTest)"
    done
    "$build/tools/symh_info" >"$out" 2>&1 || fail "symh_info exited $?"
    [ "$(sed -n 1p "$out")" = "symheap $SYMHTEST_VERSION" ] || fail "version is not $SYMHTEST_VERSION"
    grep -q "^build: $SYMHTEST_BUILD_TYPE, .*, sanitizers: $SYMHTEST_SANITIZE\$" "$out" ||
        fail "build line is not type $SYMHTEST_BUILD_TYPE, sanitizers $SYMHTEST_SANITIZE"
    [ "$(sed -n 's/^device backends: //p' "$out" | xargs)" = "$SYMHTEST_DEVICE_BACKENDS" ] ||
        fail "device backends are not: $SYMHTEST_DEVICE_BACKENDS"
    [ "$(sed -n 's/^transports: //p' "$out" | xargs)" = "$SYMHTEST_TRANSPORTS" ] ||
        fail "transports are not: $SYMHTEST_TRANSPORTS"
    # Every variable of the table with its default, read from the source rather than from
    # symh_info itself; unset, each is reported at its default and not as set.
    # (SYMH_CONFIG_TABLE's names get the SYMH_ prefix; the OpenSHMEM table's SHMEM_* are whole.)
    table=$(sed -n -e 's/^ *X(\(SHMEM_[A-Z_]*\), *[A-Z]*, *"\([^"]*\)".*/\1 \2/p' \
        -e 's/^ *X(\([A-Z_]*\), *[A-Z]*, *"\([^"]*\)".*/SYMH_\1 \2/p' \
        "$src/src/core/core_config_table.h")
    [ "$(grep -c . <<<"$table")" -ge 10 ] || fail "no variables found in core_config_table.h"
    # report NAME: the line under NAME's own line (default, current and where it came from)
    report() { awk -v name="$1" '$1 == name { getline; sub(/^ +/, ""); print; exit }' "$out"; }
    while read -r name default; do
        [ "$(report "$name")" = "default \"$default\", current \"$default\"" ] ||
            fail "$name: not reported at its default \"$default\", unset"
    done <<<"$table"
    # Set, each is reported with the value given and as set; the others stay at their default.
    SYMH_HEAP_SIZE=64m SYMH_TRANSPORT=ipc SYMH_HOSTID= SYMH_HANG_TIMEOUT=7 \
        "$build/tools/symh_info" >"$out" 2>&1 || fail "symh_info with valid values exited $?"
    [ "$(report SYMH_HEAP_SIZE)" = 'default "1g", current "64m" (set)' ] ||
        fail "SYMH_HEAP_SIZE=64m not reported as set to 64m"
    [ "$(report SYMH_TRANSPORT)" = 'default "auto", current "ipc" (set)' ] ||
        fail "SYMH_TRANSPORT=ipc not reported as set to ipc"
    [ "$(report SYMH_HOSTID)" = 'default "", current "" (set)' ] ||
        fail "SYMH_HOSTID= (empty) not reported as set"
    [ "$(report SYMH_HANG_TIMEOUT)" = 'default "300", current "7" (set)' ] ||
        fail "SYMH_HANG_TIMEOUT=7 not reported as set to 7"
    [ "$(report SYMH_LOG_LEVEL)" = 'default "warn", current "warn"' ] ||
        fail "SYMH_LOG_LEVEL, unset, not at its default"
    grep -q "warning: unknown variable" "$out" && fail "a known variable reported as unknown"
    SYMH_HEAP_SIZ=64m "$build/tools/symh_info" >"$out" 2>&1 || fail "unknown variable: exit $?"
    grep -qx "warning: unknown variable SYMH_HEAP_SIZ is ignored" "$out" ||
        fail "the unknown SYMH_HEAP_SIZ is not named"
    [ "$(report SYMH_HEAP_SIZE)" = 'default "1g", current "1g"' ] ||
        fail "SYMH_HEAP_SIZ changed SYMH_HEAP_SIZE"
    "$build/tools/symh_info" --help >"$out" 2>&1 || fail "--help exited $?"
    grep -q "^usage: symh_info" "$out" || fail "--help prints no usage"
    rc=0
    "$build/tools/symh_info" --bogus >"$out" 2>&1 || rc=$?
    [ "$rc" -eq 2 ] || fail "--bogus exited $rc, expected 2"
    rc=0
    SYMH_HEAP_SIZE=12q "$build/tools/symh_info" >"$out" 2>&1 || rc=$?
    [ "$rc" -eq 1 ] || fail "invalid value: exit $rc, expected 1"
    [ "$(report SYMH_HEAP_SIZE)" = 'default "1g", current "12q" (set)  <-- INVALID' ] ||
        fail "invalid value not marked"
    grep -q "SYMH_HEAP_SIZE='12q'" "$out" || fail "invalid value not explained"
    ;;
global_exit)
    for np in 1 3; do
        rc=0
        timeout 60 "${mpiexec[@]}" -n $np "$build/tests/cli/symh_global_exit_prog" >"$out" 2>&1 ||
            rc=$?
        [ "$rc" -ne 124 ] || fail "np $np: timed out: a PE was left waiting"
        [ "$rc" -eq 7 ] || fail "np $np: exit status $rc, expected 7"
        grep -q "symh_global_exit(7) called on PE $((np - 1))" "$out" || fail "no reason logged"
        grep -q "survived" "$out" && fail "np $np: a PE survived"
        # Status 0 is a normal end: status 0 and not a word, from symheap or from the launcher
        # (Open MPI's MPI_Abort banner), whether the other PEs wait in the library or compute.
        for where in finalize compute; do
            rc=0
            timeout 60 "${mpiexec[@]}" -n $np "$build/tests/cli/symh_global_exit_prog" 0 $where \
                >"$out" 2>&1 || rc=$?
            [ "$rc" -ne 124 ] || fail "np $np, $where: status 0 timed out"
            [ "$rc" -eq 0 ] || fail "np $np, $where: exit status $rc, expected 0"
            [ ! -s "$out" ] || fail "np $np, $where: status 0 printed: $(head -c 600 "$out")"
        done
    done
    ;;
after_mpi_finalize)
    "${mpiexec[@]}" -n 2 "$build/tests/cli/symh_after_mpi_finalize_prog" >"$out" 2>&1 ||
        fail "exit status $?"
    [ "$(grep -c 'symh_init: MPI has already been finalized' "$out")" -eq 2 ] ||
        fail "each PE should say why"
    ;;
device_backend)
    # symh_info names the built backends; auto falls back to host with one info line where no
    # GPU backend starts; an explicit cuda/hip that cannot start: one message, no crash.
    "$build/tools/symh_info" >"$out" 2>&1 || fail "symh_info exited $?"
    [ "$(sed -n 's/^device backends: //p' "$out")" = "${SYMHTEST_DEVICE_BACKENDS:-}" ] ||
        fail "device backends are not what CMake built: ${SYMHTEST_DEVICE_BACKENDS:-}"
    if [ -f /usr/include/hip/hip_runtime_api.h ]; then
        grep -q "^device backends: host cuda hip$" "$out" || fail "HIP headers exist, HIP not built"
    fi
    SYMH_LOG_LEVEL=info SYMH_DEVICE_BACKEND=auto timeout 60 "${mpiexec[@]}" -n 2 \
        "$build/examples/symh_hello" >"$out" 2>&1 || fail "auto exited $?"
    if ! grep -q "SYMH_DEVICE_BACKEND=auto: no GPU backend can start, using the host backend" "$out"; then
        command -v nvidia-smi >/dev/null || [ -e /dev/kfd ] || fail "no fallback line"
    fi
    for backend in cuda hip; do
        rc=0
        SYMH_DEVICE_BACKEND=$backend timeout 60 "${mpiexec[@]}" -n 2 "$build/examples/symh_hello" \
            >"$out" 2>&1 || rc=$?
        [ "$rc" -ne 124 ] || fail "$backend: timed out"
        grep -qi 'segmentation\|core dumped\|signal' "$out" && fail "$backend: crash"
        if [ "$rc" -ne 0 ]; then
            [ "$(grep -c "SYMH_DEVICE_BACKEND=$backend: the .* backend cannot start: " "$out")" -eq 1 ] ||
                fail "$backend: not exactly one message"
            grep -q '^PE [0-9]' "$out" && fail "$backend: a PE ran the demo anyway"
        fi
    done
    ;;
*)
    echo "unknown case $case_name" >&2
    exit 2
    ;;
esac
echo "PASS ($case_name)"
