#!/usr/bin/env bash
# expect_output.sh ERE COMMAND [ARG...]: runs COMMAND and passes only when it exits 0 AND its
# output (stdout and stderr together, newlines read as spaces, so that ERE may span lines)
# matches the extended regular expression ERE. CTest's PASS_REGULAR_EXPRESSION alone ignores the
# exit status, so a program that printed its line and then failed, or a job whose other PEs
# failed, would pass; this wrapper is what tests use instead. Exit 77 (a test's "skipped") is
# passed on as it is. The output is printed whole either way.
set -uo pipefail

if (($# < 2)); then
    echo "usage: expect_output.sh ERE COMMAND [ARG...]" >&2
    exit 2
fi
pattern=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if ((rc == 77)); then
    exit 77
fi
if ((rc != 0)); then
    echo "expect_output: $1 exited with status $rc (0 expected)"
    exit 1
fi
if ! tr '\n' ' ' <<<"$out" | grep -Eq -- "$pattern"; then
    echo "expect_output: the output of $1 does not match: $pattern"
    exit 1
fi
