#!/usr/bin/env bash
# SYMH_HANG_ABORT=1 ends the job: PE N-1 never reaches the barrier, so PE 0 logs its hang line
# after SYMH_HANG_TIMEOUT=1 s and ends every PE with exit status 124, long before the PE's
# 60 s sleep would. usage: hang_abort.sh MPIEXEC NP BINARY (environment: the test's ENVS)
set -u
mpiexec=$1 np=$2 bin=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$SECONDS
SYMH_HANG_TIMEOUT=1 SYMH_HANG_ABORT=1 "$mpiexec" --oversubscribe -n "$np" "$bin" \
    --gtest_filter=HangAbort.EndsTheJob >"$out" 2>&1
status=$?
elapsed=$((SECONDS - start))
cat "$out"
fail() {
    echo "hang_abort.sh: $*" >&2
    exit 1
}
[[ $status -ne 0 ]] || fail "the job exited 0: SYMH_HANG_ABORT=1 did not end it"
[[ $elapsed -lt 30 ]] || fail "the job took ${elapsed} s: it waited for the late PE"
grep -q "symh_barrier_all (call 1 of the world team) has waited" "$out" ||
    fail "no hang line from the waiting PEs"
# On pretend nodes (SYMHTEST_NODE_SIZE) a PE sees only its own node's PEs: PE N-1, or none of them.
grep -Eq "have not arrived: ($((np - 1))|none of those visible here)" "$out" ||
    fail "the hang line does not name PE $((np - 1))"
grep -q "SYMH_HANG_ABORT=1: ending the job (exit status 124)" "$out" || fail "no line before the exit"
grep -q "symh_barrier_all returned although" "$out" && fail "the barrier returned"
echo "hang_abort.sh: ended after ${elapsed} s with status $status, as expected"
