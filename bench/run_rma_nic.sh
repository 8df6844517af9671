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
set -euo pipefail

. "$(dirname "$0")/bench_env.sh"
symh_bench_setup bench_rma "${1:-build}"
shift || true
csv=rma
[[ " $* " == *" --local compare "* ]] && csv=rma_local
[[ " $* " == *" --op put_signal "* ]] && csv=rma_signal
tls=${UCX_TLS:-tcp,self}
prov=${OFI_PROVIDER:-tcp}
# pml_ucx_tls/devices any: Open MPI 4.1 otherwise refuses UCX without an InfiniBand device.
mpi=(--oversubscribe -np 2 --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any
    --mca osc ucx -x UCX_TLS="$tls")
echo "UCX_TLS=$tls for MPI and symheap's UCX; libfabric provider $prov"
echo
echo "## symheap over UCX vs MPI RMA (osc ucx), UCX_TLS=$tls"
mpirun "${mpi[@]}" -x SYMH_TRANSPORT=ucx "$bin" --csv "$build/bench/${csv}_ucx.csv" "$@"
echo
echo "## symheap over libfabric ($prov) vs MPI RMA (osc ucx), UCX_TLS=$tls"
mpirun "${mpi[@]}" -x SYMH_TRANSPORT=ofi -x SYMH_OFI_PROVIDER="$prov" "$bin" \
    --csv "$build/bench/${csv}_ofi.csv" "$@"
