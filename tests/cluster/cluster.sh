#!/bin/bash
# cluster.sh: a simulated cluster of separate hosts on one Linux machine, and mpirun across it.
#
#   cluster.sh [-n NODES] [-p PES_PER_NODE] [-k] [--] PROGRAM [ARGS...]
#       builds NODES nodes (default 2), runs `mpirun -np NODES*PES_PER_NODE PROGRAM ARGS` across
#       them (PES_PER_NODE default 1) from a head node, tears everything down and exits with
#       mpirun's status.
#   cluster.sh [-n NODES] [-p PES_PER_NODE] --exec [--] COMMAND [ARGS...]
#       the same cluster, but runs COMMAND on the head node with CLUSTER_SH_MPIRUN set to the
#       mpirun command line (an array in one string: use it unquoted) for scripts that run
#       several jobs (a benchmark and its MPI counterpart).
#   cluster.sh --check
#       exits 0 when this machine allows the namespaces, else prints why and exits 77.
#
# Each node is its own network namespace (a veth on a private bridge), hostname (UTS), IPC, PID
# and mount namespace (its own /etc/hosts, its own /dev/shm, /proc of its own PIDs). The bridge
# lives in a namespace of its own ("switch") and the head node, which runs mpirun and no PEs, in
# another; no address, link or route is added to the namespace this script is started in. Open
# MPI starts its daemon on each node through its rsh launcher, whose agent (cluster_agent.sh)
# runs the daemon inside that node's namespaces. -k keeps the cluster's state folder for a
# post-mortem (the namespaces are removed regardless).
#
# Exit status: the program's (mpirun's), 77 when namespaces are not allowed here (CTest:
# SKIP_RETURN_CODE), 2 for a usage error, 3 when the cluster cannot be built.
set -u

SKIP=77
nodes=2
ppn=1
keep=0
mode=run

usage() {
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

die() {
    printf 'cluster.sh: %s\n' "$*" >&2
    exit 3
}

# Whether this machine lets us build the namespaces (root, unshare, nsenter, ip).
check() {
    local tool

    for tool in ip unshare nsenter mpirun; do
        if ! command -v "$tool" >/dev/null; then
            echo "cluster.sh: SKIPPED: $tool is not installed"
            return $SKIP
        fi
    done
    if [[ $(id -u) -ne 0 ]]; then
        echo "cluster.sh: SKIPPED: building network, PID and mount namespaces needs root"
        return $SKIP
    fi
    if ! unshare --net --uts --ipc --pid --mount --fork --mount-proc true 2>/dev/null; then
        echo "cluster.sh: SKIPPED: this machine does not allow new namespaces (unshare failed)"
        return $SKIP
    fi
    if ! ip netns add "symhc-check-$$" 2>/dev/null; then
        echo "cluster.sh: SKIPPED: ip netns add is not allowed here"
        return $SKIP
    fi
    ip netns del "symhc-check-$$"
    return 0
}

while [[ $# -gt 0 ]]; do
    case $1 in
    -n)
        nodes=${2:-}
        shift 2
        ;;
    -p)
        ppn=${2:-}
        shift 2
        ;;
    -k)
        keep=1
        shift
        ;;
    --exec)
        mode=exec
        shift
        ;;
    --check)
        check
        exit $?
        ;;
    -h | --help) usage ;;
    --)
        shift
        break
        ;;
    -*) usage ;;
    *) break ;;
    esac
done
[[ $nodes =~ ^[1-9][0-9]?$ && $nodes -le 16 ]] || {
    echo "cluster.sh: -n wants 1 to 16 nodes, not '$nodes'" >&2
    exit 2
}
[[ $ppn =~ ^[1-9][0-9]?$ ]] || {
    echo "cluster.sh: -p wants a number of PEs per node, not '$ppn'" >&2
    exit 2
}
[[ $# -gt 0 ]] || usage
check >&2 || exit $SKIP

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
id="symhc$$"
state=$(mktemp -d "${TMPDIR:-/tmp}/symh-cluster.XXXXXX") || die "cannot create a state folder"
subnet=10.77.0
pids=()
inits=()

# Removes everything this script made: the nodes' processes (killing a PID namespace's init
# kills every process in it), the namespaces (with them the bridge and the veths), the state.
teardown() {
    local pid i

    trap - EXIT INT TERM HUP
    for pid in "${inits[@]}" "${pids[@]}"; do
        kill -KILL "$pid" 2>/dev/null
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null
    done
    for ((i = 0; i < nodes; ++i)); do
        ip netns del "$id-n$i" 2>/dev/null
    done
    ip netns del "$id-head" 2>/dev/null
    ip netns del "$id-sw" 2>/dev/null
    if [[ $keep -eq 1 ]]; then
        echo "cluster.sh: state kept in $state" >&2
    else
        rm -rf "$state"
    fi
}
trap teardown EXIT
trap 'teardown; exit 130' INT
trap 'teardown; exit 143' TERM
trap 'teardown; exit 129' HUP

# The switch: a bridge in a namespace of its own.
ip netns add "$id-sw" || die "ip netns add $id-sw failed"
ip -n "$id-sw" link add br0 type bridge || die "cannot create the bridge"
ip -n "$id-sw" link set br0 up
ip -n "$id-sw" link set lo up

# A host on the bridge: namespace NAME, address .ADDR, its end of the veth named eth0.
add_host() {
    local name=$1 addr=$2 port=$3

    ip netns add "$id-$name" || die "ip netns add $id-$name failed"
    ip -n "$id-sw" link add "$port" type veth peer name eth0 netns "$id-$name" ||
        die "cannot create the veth of $name"
    ip -n "$id-sw" link set "$port" master br0 up
    ip -n "$id-$name" link set lo up
    ip -n "$id-$name" addr add "$subnet.$addr/24" dev eth0
    ip -n "$id-$name" link set eth0 up
}

{
    echo "127.0.0.1 localhost"
    echo "$subnet.254 head"
    for ((i = 0; i < nodes; ++i)); do
        echo "$subnet.$((i + 1)) node$i"
    done
} >"$state/hosts"

add_host head 254 vhead
for ((i = 0; i < nodes; ++i)); do
    add_host "n$i" $((i + 1)) "vn$i"
    mkdir -p "$state/node$i/tmp"
    # The node's init: its own hostname, IPC, PIDs, mounts (hosts file, /dev/shm, /proc).
    ip netns exec "$id-n$i" unshare --uts --ipc --pid --mount --fork --mount-proc \
        --propagation private sh -c "
        hostname node$i &&
        mount --bind '$state/hosts' /etc/hosts &&
        mount -t tmpfs -o size=4g,mode=1777 symh-shm /dev/shm &&
        touch '$state/node$i/ready' &&
        exec bash -c 'while :; do sleep 3600 & wait; done'" </dev/null >/dev/null 2>&1 &
    pids+=($!)
done

# Each node's init, as a PID of this namespace (the unshare's child), once it is ready.
for ((i = 0; i < nodes; ++i)); do
    for ((t = 0; t < 200; ++t)); do
        init=$(pgrep -P "${pids[$i]}" 2>/dev/null | head -n 1)
        [[ -n $init && -e $state/node$i/ready ]] && break
        sleep 0.05
    done
    [[ -n $init && -e $state/node$i/ready ]] || die "node$i did not come up"
    echo "$init" >"$state/node$i/pid"
    inits+=("$init")
done

# Open MPI across the nodes: the daemon stays in the node's PID namespace
# (--leave-session-attached), no tree spawn (the agent runs on the head only), the out-of-band
# and TCP byte-transfer layers on eth0, and MPI RMA over UCX (ob1's one-sided fails across
# hosts). The agent gives each node its own session directory (PIDs repeat across namespaces).
hostlist=""
for ((i = 0; i < nodes; ++i)); do
    hostlist+="${hostlist:+,}node$i:$ppn"
done
mpirun_cmd="mpirun --allow-run-as-root --oversubscribe --leave-session-attached
    --mca plm_rsh_agent $here/cluster_agent.sh --mca plm_rsh_no_tree_spawn 1
    --mca oob_tcp_if_include eth0 --mca btl_tcp_if_include eth0 --mca btl tcp,vader,self
    --mca pml ucx --mca osc ucx --mca pml_ucx_tls any --mca pml_ucx_devices any
    --mca memory ^patcher
    --host $hostlist -np $((nodes * ppn))"

export CLUSTER_SH_STATE=$state
export UCX_NET_DEVICES=${UCX_NET_DEVICES:-eth0}
export FI_TCP_IFACE=${FI_TCP_IFACE:-eth0}
export FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-eth0}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The head node: its own network and hostname, the hosts file in a mount namespace of its own;
# this script's PIDs (so the agent can find each node's init).
if [[ $mode == exec ]]; then
    export CLUSTER_SH_MPIRUN="$mpirun_cmd"
    set -- "$@"
else
    # shellcheck disable=SC2086 # the command line is words on purpose
    set -- $mpirun_cmd "$@"
fi
ip netns exec "$id-head" unshare --uts --mount --propagation private sh -c '
    hostname head && mount --bind "$0/hosts" /etc/hosts && exec "$@"' "$state" "$@"
status=$?
exit $status
