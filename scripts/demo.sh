#!/usr/bin/env bash
# Install the dependencies if needed, build CudaCommon and run the demo
# pipeline (CUDA filters and an ITK CPU filter, checked against ITK on the CPU).
#   scripts/demo.sh [demo arguments...]      e.g. scripts/demo.sh --size 256
# Runs without a GPU too: the CUDA filters then fall back to the CPU.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" CudaCommonDemo
"$build_dir/examples/CudaCommonDemo" "$@"
