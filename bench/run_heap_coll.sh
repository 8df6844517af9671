#!/usr/bin/env bash
# Runs bench_heap_coll at 2 and 4 PEs and prints one Markdown table (symheap vs MPI_Barrier).
# usage: bench/run_heap_coll.sh [BUILD_DIR] [bench options...]
set -euo pipefail

build=${1:-build}
shift || true
bin=$build/bench/bench_heap_coll
[ -x "$bin" ] || { echo "no $bin: build first (./dev.sh demo)" >&2; exit 1; }
if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
echo "machine: $(nproc) cores, $(uname -sr), $(mpirun --version 2>/dev/null | head -1)"
echo
echo "| PEs | symh_malloc+symh_free pair (us, median) | MPI_Barrier (us, median) | ratio |"
echo "|---|---|---|---|"
for np in 2 4; do
    mpirun --oversubscribe -np "$np" "$bin" "$@"
done
