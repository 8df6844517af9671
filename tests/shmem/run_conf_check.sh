#!/bin/sh
# run_conf_check.sh RUN_CONF MPIEXEC TEAMS_AS_14: the harness check of run_conf.sh and of the
# programs made of OpenSHMEM 1.5 parts only. With a stand-in launcher that runs the program once,
# a program that exits 0 passes, one that exits 1 fails, one that exits 77 fails too; and
# TEAMS_AS_14, teams.c built as if the implementation said 1.4 (-DCONF_PRETEND_14, every check
# compiled out), must fail under run_conf.sh at 2 PEs: before, it printed SKIP and exited 0, and
# the run passed having checked nothing.
run_conf=$1
mpiexec=$2
teams_as_14=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/symh-run-conf-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
printf '#!/bin/sh\nshift 2\nexec "$@"\n' >"$tmp/launcher" # drops "-n NP"
for status in 0 1 77; do
    printf '#!/bin/sh\nexit %s\n' "$status" >"$tmp/exit$status"
done
chmod +x "$tmp"/*
failures=0
expect() { # expect WANTED PROGRAM
    SYMHTEST_NODE_SIZE= sh "$run_conf" "$tmp/launcher" 2 "$tmp/$2" >/dev/null 2>&1
    got=$?
    if [ "$got" -ne "$1" ]; then
        echo "run_conf_check: a program that exits ${2#exit}: run_conf.sh exited $got, $1 expected"
        failures=$((failures + 1))
    fi
}
expect 0 exit0
expect 1 exit1
expect 1 exit77
SYMHTEST_NODE_SIZE= sh "$run_conf" "$mpiexec" 2 "$teams_as_14" >"$tmp/as14.log" 2>&1
got=$?
if [ "$got" -eq 0 ] || ! grep -q 'checked nothing' "$tmp/as14.log"; then
    cat "$tmp/as14.log"
    echo "run_conf_check: teams.c as if for OpenSHMEM 1.4: run_conf.sh exited $got (1 expected)"
    failures=$((failures + 1))
fi
[ "$failures" -eq 0 ] || exit 1
echo "run_conf_check: 4 cases as expected"
