#!/bin/sh
# tests/mpi: runs `mpiexec ARGS...` (given as "$@") in a network namespace of its own, with
# loopback up. Abstract UNIX socket names are per network namespace, so the outsider that
# test_mpi_ipc_guard.cc starts sees and probes this job's sockets only, never those of tests or
# jobs running beside it. Skipped (77) where no namespace can be made (not root).
if ! unshare -n true 2>/dev/null; then
    echo "ipc_guard: cannot make a network namespace (unshare -n): skipped"
    exit 77
fi
exec unshare -n sh -c 'ip link set lo up && exec "$@"' ipc_guard_netns "$@"
