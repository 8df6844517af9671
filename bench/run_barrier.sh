#!/usr/bin/env bash
# Runs bench_barrier at 2 and 4 PEs (or the PE counts in NPS) and prints one Markdown table:
# symh_barrier_all and the symh_malloc+symh_free pair against MPI_Barrier.
# usage: [NPS="2 4"] bench/run_barrier.sh [BUILD_DIR] [bench options...]
set -euo pipefail

. "$(dirname "$0")/bench_env.sh"
symh_bench_setup bench_barrier "${1:-build}"
shift || true
echo
echo "| PEs | symh_barrier_all (us, median) | MPI_Barrier (us, median) | ratio |" \
    "malloc+free pair (us, median) | pair / MPI_Barrier |"
echo "|---|---|---|---|---|---|"
for np in ${NPS:-2 4}; do
    mpirun --oversubscribe -np "$np" "$bin" "$@"
done
