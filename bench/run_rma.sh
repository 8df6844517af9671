#!/usr/bin/env bash
# Runs bench_rma at 2 PEs (PE 0 -> PE 1): prints the Markdown table (symheap vs MPI RMA vs
# memcpy), writes the CSV and, when gnuplot is installed, a PNG of latency and bandwidth vs size.
# usage: bench/run_rma.sh [BUILD_DIR] [bench options...]   (default CSV: BUILD_DIR/bench/rma.csv)
# With --check-cost ROUNDS it prints instead the cost of bounding a range by its allocation: small
# transfers with the check and with SYMH_ALLOC_CHECK=0, alternating (docs/rma.md).
# With --op put_signal it prints symh_putmem_signal's latency and message rate against MPI_Put +
# flush + a flag put + flush, and writes BUILD_DIR/bench/rma_signal.csv (docs/signals.md; no plot).
set -euo pipefail

. "$(dirname "$0")/bench_env.sh"
symh_bench_setup bench_rma "${1:-build}"
shift || true
csv=$build/bench/rma.csv
[[ " $* " == *" --op put_signal "* ]] && csv=$build/bench/rma_signal.csv
args=("$@")
for ((i = 0; i + 1 < ${#args[@]}; i++)); do
    [ "${args[i]}" = --csv ] && csv=${args[i + 1]}
done
echo
for arg in "$@"; do
    if [ "$arg" = --check-cost ]; then
        mpirun --oversubscribe -np 2 "$bin" "$@"
        exit
    fi
done
mpirun --oversubscribe -np 2 "$bin" --csv "$csv" "$@"
echo
echo "csv: $csv"
if [[ " $* " == *" --op put_signal "* ]]; then
    exit
fi
if command -v gnuplot >/dev/null 2>&1; then
    png=${csv%.csv}.png
    gnuplot <<GP
set datafile separator ","
set terminal pngcairo size 1200,480 noenhanced
set output "$png"
set multiplot layout 1,2 title "symheap IPC vs MPI RMA, 2 PEs on one node"
set logscale xy
set xlabel "message size (bytes)"
set key left top
set ylabel "latency (us, median)"
plot "$csv" using 1:2 skip 1 with linespoints title "symh_putmem+quiet", \
     "$csv" using 1:3 skip 1 with linespoints title "MPI_Put+flush", \
     "$csv" using 1:4 skip 1 with linespoints title "symh_getmem", \
     "$csv" using 1:5 skip 1 with linespoints title "MPI_Get+flush", \
     "$csv" using 1:6 skip 1 with linespoints title "memcpy"
set ylabel "put bandwidth (GB/s, median)"
plot "$csv" using 1:7 skip 1 with linespoints title "symheap", \
     "$csv" using 1:8 skip 1 with linespoints title "MPI RMA", \
     "$csv" using 1:9 skip 1 with linespoints title "memcpy"
unset multiplot
GP
    echo "plot: $png"
else
    echo "plot: skipped (gnuplot is not installed)"
fi
