#!/usr/bin/env bash
# Builds the suite for sm_90 into build-gpu/ and makes it self-contained for a
# GPU host without ITK: the ITK runtime libraries go to build-gpu/runtime and
# object files are dropped so the tree fits the device tool's carry limit.
# Run scripts/gpu-suite.sh there afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
ninja -C "$build"
bundle=../shared/tools/bundle-runtime-libs
"$bundle" "$build/runtime" "$build/test/CudaCommonGTests" "$build/examples/CudaCommonDemo" "$build"/src/libCudaCommon.so
find "$build" -name '*.o' -delete
du -sh "$build"
