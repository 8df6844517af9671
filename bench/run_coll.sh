#!/usr/bin/env bash
# Runs bench_coll (symheap's team collectives vs Open MPI's on MPI_COMM_WORLD, same run) in each
# mode of MODES at each PE count of NPS, one mpirun each:
#   ipc: one node, symheap's default route (IPC) vs Open MPI's default (shared memory)
#   ucx: every peer through SYMH_TRANSPORT=ucx, UCX_TLS=$UCX_TLS (default tcp,self), vs Open MPI
#        forced onto the same UCX wire: --mca pml ucx --mca osc ucx (as bench/run_rma_nic.sh)
#   ofi: every peer through SYMH_TRANSPORT=ofi with libfabric's tcp provider, vs the same Open MPI
#        over UCX (Open MPI has no libfabric one-sided path; as bench/run_rma_nic.sh)
#   nodes: pretend nodes of NODE_SIZE PEs (default 1; bench_coll --node-size, a SYMH_HOSTID per
#        PE as bench/run_barrier.sh does), symheap's default routes between them (the NIC
#        transport), vs the same Open MPI over UCX
# Each run prints its table and writes OUT/coll_<mode>_np<N>.csv; then one Markdown table of
# the sizes in SIZES over every run (for docs/collectives.md), the goals per run, and, when
# gnuplot is installed, a PNG of times and ratios vs size (PNG, default docs/collectives.png).
# A wrong result or a failed call ends the script non-zero (bench_coll says which).
# usage: [NPS="2 4"] [MODES="ipc ucx nodes"] (or ofi) [NODE_SIZE=1] [OUT=BUILD_DIR/bench]
#        [PNG=docs/collectives.png] [SIZES="8 64 ..."] [NIC_ITERS=200]
#        bench/run_coll.sh [BUILD_DIR] [bench options...]
set -euo pipefail

. "$(dirname "$0")/bench_env.sh"
symh_bench_setup bench_coll "${1:-build}"
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$build/bench}
png=${PNG:-$root/docs/collectives.png}
sizes=${SIZES:-8 64 512 4096 65536 1048576 4194304}
tls=${UCX_TLS:-tcp,self}
# Calls per batch at most over the NIC (a small collective over loopback TCP takes 10-200 us, not
# 0.1-5); an --iters among the bench options overrides it.
nic_iters=${NIC_ITERS:-200}
cores=$(nproc)
# pml_ucx_tls/devices any: Open MPI 4.1 otherwise refuses UCX without an InfiniBand device.
mpi_ucx=(--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any --mca osc ucx
    -x UCX_TLS="$tls")
node_size=${NODE_SIZE:-1}
mkdir -p "$out"
runs=()
for mode in ${MODES:-ipc ucx nodes}; do
    for np in ${NPS:-2 4}; do
        case $mode in
        ipc) extra=() opts=() ;;
        ucx) extra=("${mpi_ucx[@]}" -x SYMH_TRANSPORT=ucx) opts=(--iters "$nic_iters") ;;
        ofi) extra=("${mpi_ucx[@]}" -x SYMH_TRANSPORT=ofi -x SYMH_OFI_PROVIDER=tcp)
            opts=(--iters "$nic_iters") ;;
        nodes) extra=("${mpi_ucx[@]}") opts=(--iters "$nic_iters" --node-size "$node_size") ;;
        *) echo "run_coll.sh: unknown mode '$mode' (ipc, ucx, ofi or nodes)" >&2; exit 2 ;;
        esac
        # MPI waits as symheap does (src/core/core_wait.h): spinning while every PE has a core,
        # yielding when oversubscribed (4 PEs on 2 cores), whatever the caller's environment
        # says; a yielding MPI at 2 PEs on 2 cores took 10x longer per MPI_Barrier.
        yield=$((np > cores ? 1 : 0))
        csv=$out/coll_${mode}_np$np.csv
        echo
        echo "## $mode, $np PEs$([ "$mode" != ipc ] && echo ", MPI over UCX_TLS=$tls")," \
            "mpi_yield_when_idle $yield"
        echo
        mpirun --oversubscribe -np "$np" --mca mpi_yield_when_idle "$yield" \
            ${extra[@]+"${extra[@]}"} "$bin" --csv "$csv" ${opts[@]+"${opts[@]}"} "$@"
        runs+=("$mode:$np:$csv")
    done
done

# One table over the runs: per operation and size, each run's medians and ratio. A ratio the goals
# apply to is marked met or missed (one node: 8 B <= 0.5, from 64 KiB <= 1; NIC: 8 B <= 1.5, from
# 1 MiB <= 1; bench/README.md).
echo
echo "## All runs (medians in us; ratio = symheap / MPI)"
echo
awk -v runs="${runs[*]}" -v sizes="$sizes" -v nodesize="$node_size" '
function mark(r, lat, bw) {
    if (lat) return r <= lmax ? sprintf("%.2f met", r) : sprintf("**%.2f missed**", r)
    if (bw) return r <= 1 ? sprintf("%.2f met", r) : sprintf("**%.2f missed**", r)
    return sprintf("%.2f", r)
}
function label(mode, np) {
    return (mode == "ipc" ? "one node" : mode == "nodes" ? "nodes of " nodesize : mode) " np " np
}
function goals(mode) {
    lmax = mode == "ipc" ? 0.5 : 1.5
    bwfrom = mode == "ipc" ? 65536 : 1048576
}
BEGIN {
    nr = split(runs, run, " ")
    ns = split(sizes, size, " ")
    split("bcast fcollect alltoall reduce", op, " ")
    split("broadcast fcollect alltoall sum_reduce", opname, " ")
    split("MPI_Bcast MPI_Allgather MPI_Alltoall MPI_Allreduce", mpiname, " ")
    for (i = 1; i <= nr; ++i) {
        split(run[i], f, ":")
        mode[i] = f[1]; np[i] = f[2]; file = f[3]
        while ((getline line < file) > 0) {
            if (line ~ /^# sync_us/) {
                split(line, g, /[ =]/)
                ssync[i] = g[4]; msync[i] = g[6]
                continue
            }
            if (line !~ /^[0-9]/) continue
            n = split(line, c, ",")
            for (k = 1; k <= 4; ++k) {
                symh[i, c[1], k] = c[2 * k]; mpi[i, c[1], k] = c[2 * k + 1]
            }
            have[i, c[1]] = 1
            if (!(c[1] in seen)) { seen[c[1]] = 1; all[++na] = c[1] }
        }
        close(file)
    }
    head = "| operation | bytes"; sep = "|---|---"
    for (i = 1; i <= nr; ++i) {
        t = label(mode[i], np[i])
        head = head " | " t ": symh | MPI | ratio"; sep = sep "|---|---|---"
    }
    print head " |"; print sep "|"
    line = "| sync (symh_team_sync / MPI_Barrier) | -"
    for (i = 1; i <= nr; ++i) {
        goals(mode[i])
        line = line sprintf(" | %.3f | %.3f | %s", ssync[i], msync[i], mark(ssync[i] / msync[i], 1, 0))
    }
    print line " |"
    for (k = 1; k <= 4; ++k) {
        for (j = 1; j <= ns; ++j) {
            s = size[j]; any = 0
            line = "| " opname[k] " (" mpiname[k] ") | " s
            for (i = 1; i <= nr; ++i) {
                if (!have[i, s]) { line = line " | - | - | -"; continue }
                any = 1; goals(mode[i])
                r = symh[i, s, k] / mpi[i, s, k]
                line = line sprintf(" | %.3f | %.3f | %s", symh[i, s, k], mpi[i, s, k],
                                    mark(r, s == 8, s + 0 >= bwfrom))
            }
            if (any) print line " |"
        }
    }
    # Goals per run: the 8-byte ratio and the worst ratio from the bandwidth threshold on (every
    # measured size, not only those above).
    print ""
    print "| run | goal | sync | broadcast | fcollect | alltoall | sum_reduce |"
    print "|---|---|---|---|---|---|---|"
    for (i = 1; i <= nr; ++i) {
        goals(mode[i])
        t = label(mode[i], np[i])
        line = "| " t " | 8 B: symh/MPI <= " lmax " | " mark(ssync[i] / msync[i], 1, 0)
        for (k = 1; k <= 4; ++k)
            line = line " | " (have[i, 8] ? mark(symh[i, 8, k] / mpi[i, 8, k], 1, 0) : "-")
        print line " |"
        line = "| " t " | from " bwfrom " B: worst symh/MPI <= 1 | -"
        for (k = 1; k <= 4; ++k) {
            w = -1; at = 0
            for (j = 1; j <= na; ++j) {
                s = all[j]
                if (!have[i, s] || s + 0 < bwfrom) continue
                r = symh[i, s, k] / mpi[i, s, k]
                if (r > w) { w = r; at = s }
            }
            line = line " | " (w < 0 ? "-" : mark(w, 0, 1) " at " at)
        }
        print line " |"
    }
}'

echo
for r in "${runs[@]}"; do echo "csv: ${r##*:}"; done
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "plot: skipped (gnuplot is not installed: apt-get install gnuplot-nox)"
    exit 0
fi
# Top row: times (symheap solid, MPI dashed); bottom row: symheap / MPI with 1 and the 8-byte
# goal; one column per run.
{
    echo 'set datafile separator ","'
    echo "set terminal pngcairo size $((440 * ${#runs[@]} + 80)),900 noenhanced"
    echo "set output \"$png\""
    echo "set multiplot layout 2,${#runs[@]} title \"symheap team collectives vs Open MPI" \
        "(bench/run_coll.sh, medians)\\nbytes: broadcast and sum_reduce total, fcollect per PE," \
        "alltoall per PE pair\""
    echo 'set logscale x 2'
    echo 'set xtics ("8" 8, "64" 64, "512" 512, "4Ki" 4096, "32Ki" 32768, "256Ki" 262144,' \
        '"2Mi" 2097152)'
    echo 'set xlabel "bytes"'
    echo 'set key left top font ",8"'
    for r in "${runs[@]}"; do
        IFS=: read -r mode np csv <<<"$r"
        case $mode in
        ipc) t="one node (IPC / shared memory)" ;;
        ucx) t="SYMH_TRANSPORT=ucx vs MPI pml ucx ($tls)" ;;
        nodes) t="pretend nodes of $node_size vs MPI pml ucx ($tls)" ;;
        esac
        echo "set title \"$t, $np PEs\""
        echo 'set logscale y'
        echo 'set ylabel "time per call (us, median)"'
        [ "$r" = "${runs[0]}" ] && echo 'set key left top font ",8"' || echo 'unset key'
        echo "plot \"$csv\" using 1:2 skip 1 with linespoints lc 1 pt 7 ps 0.6 title \"broadcast\", \\"
        echo "  \"$csv\" using 1:3 skip 1 with linespoints lc 1 dt 2 pt 6 ps 0.6 title \"MPI_Bcast\", \\"
        echo "  \"$csv\" using 1:4 skip 1 with linespoints lc 2 pt 7 ps 0.6 title \"fcollect\", \\"
        echo "  \"$csv\" using 1:5 skip 1 with linespoints lc 2 dt 2 pt 6 ps 0.6 title \"MPI_Allgather\", \\"
        echo "  \"$csv\" using 1:6 skip 1 with linespoints lc 3 pt 7 ps 0.6 title \"alltoall\", \\"
        echo "  \"$csv\" using 1:7 skip 1 with linespoints lc 3 dt 2 pt 6 ps 0.6 title \"MPI_Alltoall\", \\"
        echo "  \"$csv\" using 1:8 skip 1 with linespoints lc 4 pt 7 ps 0.6 title \"sum_reduce\", \\"
        echo "  \"$csv\" using 1:9 skip 1 with linespoints lc 4 dt 2 pt 6 ps 0.6 title \"MPI_Allreduce\""
    done
    for r in "${runs[@]}"; do
        IFS=: read -r mode np csv <<<"$r"
        lmax=$([ "$mode" = ipc ] && echo 0.5 || echo 1.5)
        bwfrom=$([ "$mode" = ipc ] && echo 64KiB || echo 1MiB)
        echo "set title \"symheap / MPI, $mode, $np PEs\\ngoals: 8 B <= $lmax, from $bwfrom <= 1\""
        echo 'set ylabel "ratio (below 1: symheap faster)"'
        [ "$r" = "${runs[0]}" ] && echo 'set key left top font ",8"' || echo 'unset key'
        echo "plot \"$csv\" using 1:(\$2/\$3) skip 1 with linespoints lc 1 pt 7 ps 0.6 title \"broadcast\", \\"
        echo "  \"$csv\" using 1:(\$4/\$5) skip 1 with linespoints lc 2 pt 7 ps 0.6 title \"fcollect\", \\"
        echo "  \"$csv\" using 1:(\$6/\$7) skip 1 with linespoints lc 3 pt 7 ps 0.6 title \"alltoall\", \\"
        echo "  \"$csv\" using 1:(\$8/\$9) skip 1 with linespoints lc 4 pt 7 ps 0.6 title \"sum_reduce\", \\"
        echo "  1 with lines lc rgb \"black\" dt 3 title \"1 (bandwidth goal)\", \\"
        echo "  $lmax with lines lc rgb \"red\" dt 3 title \"$lmax (8-byte goal)\""
    done
    echo 'unset multiplot'
} | gnuplot
echo "plot: $png"
