#!/usr/bin/env bash
# The CUDA backend on a real GPU (docs/devices.md "Backends"): configures and builds this tree,
# then runs every device test with SYMH_DEVICE_BACKEND=cuda on the first CUDA device: the device
# label (device queries, memory resources, backend choice, device allocator, transposed copies),
# the VMM and symmetric-registration tests, and the device allocator examples. Exits non-zero
# on any failure. Where nvidia-smi is absent it does nothing and exits 0. Not run in CI.
# usage: tests/gpu/run_cuda_checks.sh [BUILD_DIR]   (default: build-cuda, next to this tree)
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-cuda}

if ! command -v nvidia-smi >/dev/null 2>&1; then
    echo "run_cuda_checks: no nvidia-smi: no CUDA GPU here, skipped"
    exit 0
fi
nvidia-smi -L || { echo "run_cuda_checks: nvidia-smi lists no GPU" >&2; exit 1; }

if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
export SYMH_DEVICE_BACKEND=cuda

cmake -S "$src" -B "$build" -G Ninja -DSYMH_WERROR=ON
cmake --build "$build" -j "$(nproc)"

# The backend must start: one PE, explicit cuda, kind reported by the library itself.
SYMH_LOG_LEVEL=debug "$build/examples/symh_hello" 2>&1 | tee "$build/run_cuda_hello.log"
grep -q "devices: [0-9]* cuda device" "$build/run_cuda_hello.log" || {
    echo "run_cuda_checks: the CUDA backend did not start (see above)" >&2
    exit 1
}

cd "$build"
status=0
ctest --output-on-failure --timeout 600 -L device || status=1
ctest --output-on-failure --timeout 600 -R '^(vmm|symm|symm_node2)\.' || status=1
ctest --output-on-failure --timeout 600 -R '^(examples\.structured\.|bench\.dev_alloc_smoke)' ||
    status=1
if [ "$status" -ne 0 ]; then
    echo "run_cuda_checks: FAILED (SYMH_DEVICE_BACKEND=cuda)" >&2
else
    echo "run_cuda_checks: every device test passed with SYMH_DEVICE_BACKEND=cuda"
fi
exit "$status"
