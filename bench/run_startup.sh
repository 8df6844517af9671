#!/usr/bin/env bash
# Start-up at N PEs on this machine (oversubscribed past its cores, small heaps): for each count
# of NPS, REPS runs of bench_startup, each printing the slowest PE's MPI_Init + first
# MPI_Barrier and symh_init + first symh_barrier_all on that MPI. Prints one Markdown table of
# the medians with the ratio, and, with SVG=FILE, writes a log-log plot of both medians against
# the PE count (docs/init.md "Start-up at scale").
# usage: [NPS="2 4 8 16 32 64 128 256"] [REPS=3] [SVG=file.svg] bench/run_startup.sh [BUILD_DIR]
set -euo pipefail

. "$(dirname "$0")/bench_env.sh"
symh_bench_setup bench_startup "${1:-build}"
export SYMH_HEAP_SIZE=${SYMH_HEAP_SIZE:-4m}
export OMPI_MCA_mpi_yield_when_idle=1
reps=${REPS:-3}
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
echo "SYMH_HEAP_SIZE=$SYMH_HEAP_SIZE, $reps runs per count, medians"
echo
echo "| PEs | MPI_Init + MPI_Barrier (s) | symh_init + symh_barrier_all (s) | symheap / MPI |"
echo "|---|---|---|---|"
for np in ${NPS:-2 4 8 16 32 64 128 256}; do
    mpi=() symh=()
    for ((r = 0; r < reps; ++r)); do
        line=$(mpirun --oversubscribe -np "$np" "$bin" | grep '^startup ')
        mpi+=("$(sed 's/.*mpi_s=\([0-9.]*\).*/\1/' <<<"$line")")
        symh+=("$(sed 's/.*symh_s=\([0-9.]*\).*/\1/' <<<"$line")")
    done
    m=$(printf '%s\n' "${mpi[@]}" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}')
    s=$(printf '%s\n' "${symh[@]}" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}')
    printf '| %s | %.3f | %.3f | %.2f |\n' "$np" "$m" "$s" "$(awk -v a="$s" -v b="$m" 'BEGIN {print a / b}')"
    echo "$np $m $s" >>"$rows"
done
[ -n "${SVG:-}" ] || exit 0
# A log-log plot: PE count across, seconds up; MPI's start-up and symheap's, one line each.
awk -v out="$SVG" '
function lx(v) { return 60 + (log(v) - log(xmin)) / (log(xmax) - log(xmin)) * 460 }
function ly(v) { return 300 - (log(v) - log(ymin)) / (log(ymax) - log(ymin)) * 260 }
{ n[NR] = $1; m[NR] = $2; s[NR] = $3 }
END {
    xmin = n[1]; xmax = n[NR]; ymin = 1e9; ymax = 0
    for (i = 1; i <= NR; ++i) {
        if (m[i] < ymin) ymin = m[i]; if (s[i] < ymin) ymin = s[i]
        if (m[i] > ymax) ymax = m[i]; if (s[i] > ymax) ymax = s[i]
    }
    ymin /= 1.5; ymax *= 1.5
    if (xmax == xmin) xmax = xmin * 2
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"560\" height=\"360\" font-family=\"sans-serif\" font-size=\"12\">\n" > out
    printf "<rect width=\"560\" height=\"360\" fill=\"white\"/>\n" > out
    printf "<line x1=\"60\" y1=\"300\" x2=\"520\" y2=\"300\" stroke=\"black\"/><line x1=\"60\" y1=\"40\" x2=\"60\" y2=\"300\" stroke=\"black\"/>\n" > out
    for (i = 1; i <= NR; ++i)
        printf "<text x=\"%.1f\" y=\"318\" text-anchor=\"middle\">%d</text>\n", lx(n[i]), n[i] > out
    for (t = 0.001; t <= ymax; t *= 10)
        if (t >= ymin)
            printf "<text x=\"54\" y=\"%.1f\" text-anchor=\"end\">%g s</text><line x1=\"60\" y1=\"%.1f\" x2=\"520\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ly(t) + 4, t, ly(t), ly(t) > out
    printf "<text x=\"290\" y=\"345\" text-anchor=\"middle\">PEs (one node, log scale)</text>\n" > out
    pm = ""; ps = ""
    for (i = 1; i <= NR; ++i) {
        pm = pm sprintf("%.1f,%.1f ", lx(n[i]), ly(m[i]))
        ps = ps sprintf("%.1f,%.1f ", lx(n[i]), ly(s[i]))
    }
    printf "<polyline points=\"%s\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\"/>\n", pm > out
    printf "<polyline points=\"%s\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/>\n", ps > out
    printf "<text x=\"70\" y=\"24\" fill=\"#1f77b4\">MPI_Init + MPI_Barrier</text>\n" > out
    printf "<text x=\"280\" y=\"24\" fill=\"#d62728\">symh_init + symh_barrier_all</text>\n" > out
    printf "</svg>\n" > out
}' "$rows"
echo
echo "plot: $SVG"
