#!/usr/bin/env bash
# Runs bench_barrier at 2 and 4 PEs (or the PE counts in NPS) and prints one Markdown table:
# symh_barrier_all and the symh_malloc+symh_free pair against MPI_Barrier.
# usage: [NPS="2 4"] bench/run_barrier.sh [BUILD_DIR] [bench options...]
set -euo pipefail

build=${1:-build}
shift || true
bin=$build/bench/bench_barrier
[ -x "$bin" ] || { echo "no $bin: build first (./dev.sh demo)" >&2; exit 1; }
if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
echo "machine: $(nproc) cores, $(uname -sr), $(mpirun --version 2>/dev/null | head -1)"
echo
echo "| PEs | symh_barrier_all (us, median) | MPI_Barrier (us, median) | ratio |" \
    "malloc+free pair (us, median) | pair / MPI_Barrier |"
echo "|---|---|---|---|---|---|"
for np in ${NPS:-2 4}; do
    mpirun --oversubscribe -np "$np" "$bin" "$@"
done
