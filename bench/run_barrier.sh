#!/usr/bin/env bash
# Runs bench_barrier at 2 and 4 PEs (or the PE counts in NPS), each on one node (the
# shared-memory barrier) and on pretend nodes of NODE_SIZE PEs (default 1: every PE its own
# SYMH_HOSTID, so the barrier takes the bootstrap path), and prints one Markdown table:
# symh_barrier_all and the symh_malloc+symh_free pair, against MPI_Barrier and in
# symh_barrier_all times.
# usage: [NPS="2 4"] [NODE_SIZE=1] [PATHS="shm boot"] bench/run_barrier.sh [BUILD_DIR] [bench options...]
set -euo pipefail

. "$(dirname "$0")/bench_env.sh"
symh_bench_setup bench_barrier "${1:-build}"
shift || true
echo
echo "| PEs | path | symh_barrier_all (us, median) | MPI_Barrier (us, median) | ratio |" \
    "malloc+free pair (us, median) | pair / symh_barrier_all | pair / MPI_Barrier |"
echo "|---|---|---|---|---|---|---|---|"
for np in ${NPS:-2 4}; do
    for path in ${PATHS:-shm boot}; do
        case $path in
        shm) mpirun --oversubscribe -np "$np" "$bin" "$@" ;;
        boot) mpirun --oversubscribe -np "$np" "$bin" --node-size "${NODE_SIZE:-1}" "$@" ;;
        *) echo "run_barrier.sh: unknown path '$path' (shm or boot)" >&2 && exit 2 ;;
        esac
    done
done
