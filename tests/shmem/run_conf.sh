#!/bin/sh
# run_conf.sh MPIEXEC NP PROGRAM...: runs each OpenSHMEM conformance program at NP PEs under
# MPIEXEC, in order, and stops at the first failure with its name. SYMHTEST_NODE_SIZE=k (the
# mixed configuration) gives each PE the SYMH_HOSTID node<rank/k>, as the GoogleTest suites'
# main does, so one machine stands in for nodes of k PEs.
mpiexec=$1
np=$2
shift 2
over=""
if "$mpiexec" --version 2>/dev/null | grep -q "Open MPI\|OpenRTE"; then
    over=--oversubscribe
fi
for prog in "$@"; do
    name=$(basename "$prog")
    start=$(date +%s)
    if [ -n "$SYMHTEST_NODE_SIZE" ]; then
        # shellcheck disable=SC2016
        "$mpiexec" -n "$np" $over sh -c \
            'SYMH_HOSTID=node$((${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}} / SYMHTEST_NODE_SIZE)) exec "$0"' \
            "$prog"
    else
        "$mpiexec" -n "$np" $over "$prog"
    fi
    rc=$?
    if [ $rc -eq 77 ]; then
        # A program of OpenSHMEM 1.5 parts only, built against an implementation that says it
        # is older (conf.h): it checked nothing, so it does not pass.
        echo "run_conf.sh: $name checked nothing at $np PEs (exit 77: the implementation is" \
            "older than OpenSHMEM 1.5)" >&2
        exit 1
    fi
    if [ $rc -ne 0 ]; then
        echo "run_conf.sh: $name failed at $np PEs (exit $rc)" >&2
        exit 1
    fi
    echo "run_conf.sh: $name passed at $np PEs in $(($(date +%s) - start)) s"
done
