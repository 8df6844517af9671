#!/bin/bash
# cluster_agent.sh: Open MPI's rsh agent inside a cluster built by cluster.sh. Called by mpirun
# on the head node as `cluster_agent.sh [OPTIONS] HOST COMMAND...` (like ssh); runs COMMAND with
# sh inside HOST's namespaces (network, hostname, IPC, PID, mounts), in the same folder, with the
# environment of mpirun, and with a session directory of its own node.
set -u

state=${CLUSTER_SH_STATE:?cluster_agent.sh runs under cluster.sh}
while [[ $# -gt 0 && $1 == -* ]]; do
    shift # ssh options Open MPI may pass; there is nothing to configure
done
host=${1:?usage: cluster_agent.sh HOST COMMAND...}
shift
case $host in
node[0-9]*) node=$host ;;
10.77.0.*) node=node$((${host##*.} - 1)) ;;
*)
    echo "cluster_agent.sh: no node '$host' in this cluster" >&2
    exit 255
    ;;
esac
init=$(cat "$state/$node/pid" 2>/dev/null) || {
    echo "cluster_agent.sh: node '$host' is not up" >&2
    exit 255
}
export OMPI_MCA_orte_tmpdir_base="$state/$node/tmp"
exec nsenter -t "$init" --net --uts --ipc --pid --mount --wd="$PWD" -- sh -c "$*"
