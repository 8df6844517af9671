#!/usr/bin/env bash
# The harness check of tests/expect_output.sh, the wrapper of the tests that match a line of
# output: a run that prints the line but fails, and a run that succeeds without the line, must
# both fail; only both together pass; 77 (skipped) goes through. Each case is the fault the
# wrapper exists to catch, injected.
set -uo pipefail
wrapper=${1:?usage: expect_output_check.sh PATH/expect_output.sh}
failures=0
expect() { # expect WANTED_STATUS WHAT COMMAND...
    local want=$1 what=$2
    shift 2
    "$wrapper" 'marker: ok' "$@" >/dev/null 2>&1
    local got=$?
    if ((got != want)); then
        echo "expect_output_check: $what: status $got, $want expected"
        failures=$((failures + 1))
    fi
}
expect 0 "line and exit 0" sh -c 'echo "marker: ok"'
expect 1 "line, then exit 1" sh -c 'echo "marker: ok"; exit 1'
expect 1 "line, then killed" sh -c 'echo "marker: ok"; kill -SEGV $$'
expect 1 "exit 0 without the line" sh -c 'echo "marker: no"'
expect 77 "skipped" sh -c 'exit 77'
if ((failures > 0)); then
    exit 1
fi
echo "expect_output_check: 5 cases as expected"
