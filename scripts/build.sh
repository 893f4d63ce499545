#!/usr/bin/env bash
# Configure and build CudaCommon into build/ (Release, Ninja).
#   scripts/build.sh [ninja targets...]      (default: everything)
# Environment: CUDA_ARCHS (CMAKE_CUDA_ARCHITECTURES, default 90),
#              BUILD_DIR (default <repo>/build), JOBS (default: nproc).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}

if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

cmake -S "$root" -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" \
  -DCudaCommon_WRAP_PYTHON=OFF
ninja -C "$build_dir" -j"${JOBS:-$(nproc)}" "$@"
