#!/usr/bin/env bash
# The RTK compatibility build: RTK's CUDA filters and RTK's own CUDA tests,
# from RTK's unchanged release source, against CudaCommon as users install it.
#   test/rtk/build.sh [--rtk SOURCE] [ctest arguments...]
# SOURCE: an RTK 2.7.0 source tree or release tarball (default: the copy in
# ../shared/deps/rtk-2.7.0.tar.xz beside the checkout). Steps: build
# CudaCommon (scripts/build.sh) and install it into build/rtk/install, unpack
# RTK into build/rtk/source, configure test/rtk into build/rtk/build, build,
# run its CTest tests (each reports "skipped" without a GPU).
# Environment: BUILD_DIR (CudaCommon's build, default build), CUDA_ARCHS
# (default 90), JOBS (default nproc), RTK_BUILD_TYPE (default Release).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rtk=${RTK_SOURCE:-$root/../shared/deps/rtk-2.7.0.tar.xz}
if [[ ${1:-} == --rtk ]]; then
  rtk=$2
  shift 2
fi
build_dir=${BUILD_DIR:-$root/build}
work=$build_dir/rtk
jobs=${JOBS:-$(nproc)}

if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

# CudaCommon, installed as a user would install it.
BUILD_DIR=$build_dir "$root/scripts/build.sh" >/dev/null
rm -rf "$work/install"
cmake --install "$build_dir" --prefix "$work/install" >/dev/null

# RTK's release source, unchanged.
if [[ -f $rtk ]]; then
  stamp=$(sha256sum "$rtk" | cut -c1-16)
  if [[ ! -f $work/source/.unpacked-$stamp ]]; then
    rm -rf "$work/source"
    mkdir -p "$work/source"
    tar -xJf "$rtk" -C "$work/source"
    touch "$work/source/.unpacked-$stamp"
  fi
  source_dir=$work/source
elif [[ -f $rtk/rtkConfiguration.h.in ]]; then
  source_dir=$(cd "$rtk" && pwd)
else
  echo "test/rtk/build.sh: $rtk is neither an RTK source tree nor a release tarball" >&2
  exit 2
fi

cmake -S "$root/test/rtk" -B "$work/build" -G Ninja \
  -DCMAKE_BUILD_TYPE="${RTK_BUILD_TYPE:-Release}" \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" \
  -DCMAKE_PREFIX_PATH="$work/install" \
  -DRTK_SOURCE_DIR="$source_dir" >/dev/null
ninja -C "$work/build" -j"$jobs"
ctest --test-dir "$work/build" --output-on-failure --no-tests=error "$@"
