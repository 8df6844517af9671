#!/bin/bash
# run_shmem.sh BUILD_DIR [bench_shmem options]: builds bench/bench_shmem.c once against symheap
# (BUILD_DIR/tools/oshcc when the build has it, else mpicc with the project's include/ first and
# -lsymheap) and once with Debian's Open MPI OSHMEM (oshcc), runs both at 2 PEs and prints
# metric, symheap, OSHMEM, ratio (symheap / OSHMEM). Goal (issue 17): latencies at most 0.5x
# OSHMEM's, bandwidth at least OSHMEM's. Either side is left out (n/a) when it cannot be built.
set -u
build=$(cd "${1:?usage: run_shmem.sh BUILD_DIR [options]}" && pwd)
shift
src=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$src")
out=$build/bench/shmem_cmp
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

sym_ok=0
if [ -x "$build/tools/oshcc" ]; then
    "$build/tools/oshcc" -O2 "$src/bench_shmem.c" -o "$out/bench_symheap" && sym_ok=1
elif [ -f "$root/include/shmem.h" ]; then
    mpicc -O2 -I"$root/include" -I"$build/include" "$src/bench_shmem.c" -o "$out/bench_symheap" \
        -L"$build" -lsymheap -Wl,-rpath,"$build" && sym_ok=1
fi
osh_ok=0
if command -v oshcc >/dev/null && [ -z "$(command -v oshcc | grep "$build")" ]; then
    /usr/bin/oshcc -O2 "$src/bench_shmem.c" -o "$out/bench_oshmem" && osh_ok=1
fi
: >"$out/symheap.txt"
: >"$out/oshmem.txt"
if [ $sym_ok = 1 ]; then
    if [ -x "$build/tools/oshrun" ]; then
        "$build/tools/oshrun" -np 2 "$out/bench_symheap" "$@" >"$out/symheap.txt"
    else
        mpiexec -n 2 "$out/bench_symheap" "$@" >"$out/symheap.txt"
    fi
fi
if [ $osh_ok = 1 ]; then
    /usr/bin/oshrun --mca memory ^patcher -np 2 "$out/bench_oshmem" "$@" >"$out/oshmem.txt"
fi
printf "%-12s %12s %12s %8s\n" metric symheap OSHMEM ratio
for m in put8_us get8_us fadd8_us put4m_gbs barrier_us; do
    s=$(awk -v m=$m '$1 == m {print $2}' "$out/symheap.txt")
    o=$(awk -v m=$m '$1 == m {print $2}' "$out/oshmem.txt")
    r=n/a
    if [ -n "$s" ] && [ -n "$o" ]; then
        r=$(awk -v s="$s" -v o="$o" 'BEGIN {printf "%.2f", (o > 0 ? s / o : 0)}')
    fi
    printf "%-12s %12s %12s %8s\n" "$m" "${s:-n/a}" "${o:-n/a}" "$r"
done
