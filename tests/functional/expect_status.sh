#!/bin/sh
# expect_status.sh COMMAND...: runs a functional-test command that must fail (an injected
# fault): passes when it exits non-zero AND printed FAILED, fails otherwise (a fault that goes
# unnoticed, or a crash that prints nothing).
out=$("$@" 2>&1 </dev/null)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 0 ]; then
    echo "expect_status.sh: the command exited 0; the injected fault went unnoticed" >&2
    exit 1
fi
if ! printf '%s\n' "$out" | grep -q FAILED; then
    echo "expect_status.sh: exit $rc but no FAILED line" >&2
    exit 1
fi
echo "expect_status.sh: exit $rc with FAILED, as expected"
