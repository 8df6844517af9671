#!/usr/bin/env bash
# Runs bench_rma at 2 PEs with every peer forced through a NIC transport, each next to MPI RMA
# crossing the same wire in the same run (docs/transports.md "Benchmark"):
#   ucx:      SYMH_TRANSPORT=ucx, UCX_TLS=$UCX_TLS (default tcp,self);
#             MPI: --mca pml ucx --mca osc ucx with the same UCX_TLS
#   ofi:      SYMH_TRANSPORT=ofi, SYMH_OFI_PROVIDER=$OFI_PROVIDER (default tcp);
#             MPI: the same osc ucx over UCX_TLS (Open MPI has no libfabric one-sided component)
# usage: bench/run_rma_nic.sh [BUILD_DIR] [bench options...]   (CSVs: BUILD_DIR/bench/rma_<tl>.csv)
#   --local compare among the options: the local side registered vs unregistered malloc memory
#   vs MPI, at 8 B, 4 KiB, 64 KiB and 1 MiB (CSVs: BUILD_DIR/bench/rma_local_<tl>.csv)
#   --op put_signal among the options: put-with-signal latency and message rate vs MPI_Put + flush
#   + flag put + flush (CSVs: BUILD_DIR/bench/rma_signal_<tl>.csv; docs/signals.md)
#   --local registered [--registry N] among the options: 8-byte put + quiet, get and put_nbi from a
#   registered buffer with N other registrations in the registry, vs MPI (CSVs:
#   BUILD_DIR/bench/rma_localreg_<tl>.csv; docs/transports.md "The local side's handle")
#   --op iput among the options: strided put (iput + quiet) and get (iget) of 8-byte elements,
#   --min to --max elements (x8 steps), symheap over libfabric ($OFI_PROVIDER) and over UCX in the
#   same run (bench_rma's --transports ofi,ucx: one symh_init per transport and repetition) vs
#   MPI_Put/MPI_Get of a vector datatype on the same UCX wire (CSV: BUILD_DIR/bench/rma_strided.csv;
#   docs/rma.md "Strided transfers")
#   --before REF among the options (first after BUILD_DIR): the same benchmark source also built
#   against the library of git revision REF (exported into BUILD_DIR/before-<REF>/, configured
#   like BUILD_DIR, only bench_rma built) and run before this tree's, each run printed under
#   "BEFORE (REF)" and "AFTER (this tree)": the library's change measured with one benchmark
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench_env.sh"
symh_bench_setup bench_rma "${1:-build}"
shift || true
before_ref=
if [[ ${1:-} == --before ]]; then
    before_ref=${2:?--before needs a git revision}
    shift 2
fi
csv=rma
[[ " $* " == *" --local compare "* ]] && csv=rma_local
[[ " $* " == *" --local registered "* ]] && csv=rma_localreg
[[ " $* " == *" --op put_signal "* ]] && csv=rma_signal
[[ " $* " == *" --op iput "* ]] && csv=rma_strided

# --before REF: REF's tree with this tree's benchmark source (it uses the public API only, so the
# same program measures both libraries), built like $build.
before_bin=
if [[ -n $before_ref ]]; then
    src=$(git -C "$here/.." rev-parse --show-toplevel)
    rev=$(git -C "$src" rev-parse --short "$before_ref")
    old=$(cd "$build" && pwd)/before-$rev
    type=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt")
    if [[ ! -x $old/build/bench/bench_rma || $here/bench_rma.c -nt $old/build/bench/bench_rma ]]; then
        echo "building bench_rma against $before_ref ($rev) in $old (${type:-default} build)"
        rm -rf "$old/src"
        mkdir -p "$old/src"
        git -C "$src" archive "$rev" | tar -x -C "$old/src"
        cp "$here/bench_rma.c" "$here/bench_util.h" "$old/src/bench/"
        cmake -S "$old/src" -B "$old/build" -G Ninja -DSYMH_BUILD_TESTS=OFF \
            ${type:+-DCMAKE_BUILD_TYPE=$type} >/dev/null
        ninja -C "$old/build" -j2 bench/bench_rma >/dev/null
    fi
    before_bin=$old/build/bench/bench_rma
fi
tls=${UCX_TLS:-tcp,self}
prov=${OFI_PROVIDER:-tcp}
# pml_ucx_tls/devices any: Open MPI 4.1 otherwise refuses UCX without an InfiniBand device.
mpi=(--oversubscribe -np 2 --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any
    --mca osc ucx -x UCX_TLS="$tls")
echo "UCX_TLS=$tls for MPI and symheap's UCX; libfabric provider $prov"

# run_both TL CSV MPIRUN-ARGS...: the benchmark on $before_bin (when asked) and $bin.
run_both() {
    local tl=$1 out=$2
    shift 2
    if [[ -n $before_bin ]]; then
        echo "### BEFORE ($before_ref, $rev)"
        mpirun "$@" "$before_bin" --csv "$build/bench/${csv}_${tl}_before.csv" "${bench_args[@]}"
        echo
        echo "### AFTER (this tree)"
    fi
    mpirun "$@" "$bin" --csv "$out" "${bench_args[@]}"
}
bench_args=("$@")
if [[ $csv == rma_strided ]]; then
    echo
    echo "## symheap over libfabric ($prov) and over UCX vs MPI RMA (osc ucx), UCX_TLS=$tls"
    run_both ofi_ucx "$build/bench/${csv}.csv" "${mpi[@]}" -x SYMH_OFI_PROVIDER="$prov"
    exit 0
fi
echo
echo "## symheap over UCX vs MPI RMA (osc ucx), UCX_TLS=$tls"
run_both ucx "$build/bench/${csv}_ucx.csv" "${mpi[@]}" -x SYMH_TRANSPORT=ucx
echo
echo "## symheap over libfabric ($prov) vs MPI RMA (osc ucx), UCX_TLS=$tls"
run_both ofi "$build/bench/${csv}_ofi.csv" "${mpi[@]}" -x SYMH_TRANSPORT=ofi \
    -x SYMH_OFI_PROVIDER="$prov"
