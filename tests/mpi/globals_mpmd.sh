#!/usr/bin/env bash
# Two executables whose globals differ in size in one job (MPMD): symh_init must fail on every
# PE with SYMH_ERR_MISMATCH, and the job must log exactly one line saying why.
# usage: globals_mpmd.sh MPIEXEC BINARY_A BINARY_B (environment: the test's)
set -u
mpiexec=$1 a=$2 b=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$mpiexec" --oversubscribe -n 2 "$a" : -n 1 "$b" >"$out" 2>&1
status=$?
cat "$out"
fail() {
    echo "globals_mpmd.sh: $*" >&2
    exit 1
}
[[ $status -eq 0 ]] || fail "the job exited $status: some PE's symh_init did not fail with SYMH_ERR_MISMATCH"
n=$(grep -c "globals_size: symh_init returned -11 " "$out")
[[ $n -eq 3 ]] || fail "$n of 3 PEs report SYMH_ERR_MISMATCH"
lines=$(grep -c "error" "$out")
why=$(grep -c "every PE must run the same executable" "$out")
[[ $why -eq 1 && $lines -eq 1 ]] || fail "$why lines say why, $lines error lines in all (1 expected)"
echo "globals_mpmd.sh: every PE failed symh_init with one line, as expected"
