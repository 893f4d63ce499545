#!/usr/bin/env bash
# CudaCommon against ITK 5.4.7 built from its release source, the tree the
# Python wheel is built against (issue 12): ITK static and
# position-independent with the PyPI wheels' ABI settings
# (scripts/build-itk.sh --profile wrapped, cached), CudaCommon's library static against it,
# installed into a private prefix, and examples/consumer configured, built and
# run against that installation. The consumer checks its pixels (on the CPU
# without a GPU, on the GPU with one); a failure at any step fails the script.
#   scripts/test-itk-5.4.sh [--source ITK_TARBALL|DIR]   (default: build-itk.sh's)
# Environment: BUILD_DIR (default <repo>/build-itk54), CUDA_ARCHS (default 90),
# JOBS (default nproc).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${BUILD_DIR:-$root/build-itk54}
jobs=${JOBS:-$(nproc)}
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

# The tree the Python wheel is built against (it has ITKImageIntensity's static
# library too): one ITK 5.4.7 tree for both.
itk_dir=$("$root/scripts/build-itk.sh" --profile wrapped "$@" | tail -n 1)
version=$(sed -n 's/^set(ITK_VERSION_\(MAJOR\|MINOR\|PATCH\) "\([0-9]*\)")$/\2/p' "$itk_dir/ITKConfig.cmake" | paste -sd. -)
if [[ $version != 5.4.* ]]; then
  echo "test-itk-5.4: $itk_dir is ITK '${version}', not 5.4.x" >&2
  exit 1
fi
echo "test-itk-5.4: ITK $version at $itk_dir"

cmake -S "$root" -B "$work/build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" \
  -DITK_DIR="$itk_dir" \
  -DCudaCommon_BUILD_SHARED=OFF \
  -DBUILD_TESTING=OFF -DCudaCommon_BUILD_EXAMPLES=OFF -DCudaCommon_BUILD_BENCHMARKS=OFF \
  -DCudaCommon_WRAP_PYTHON=OFF -DCudaCommon_INSTALL_ITK_MODULE_FILE=OFF >/dev/null
ninja -C "$work/build" -j"$jobs"
rm -rf "$work/install"
cmake --install "$work/build" --prefix "$work/install" >/dev/null

rm -rf "$work/consumer"
cmake -S "$root/examples/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" \
  -DCMAKE_PREFIX_PATH="$work/install" \
  -DITK_DIR="$itk_dir" >/dev/null
ninja -C "$work/consumer" -j"$jobs"
"$work/consumer/CudaCommonConsumer"
echo "test-itk-5.4: CudaCommon against ITK $version: the consumer passed"
