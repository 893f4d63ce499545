#!/usr/bin/env bash
# Builds the suite for sm_90 into build-gpu/ and makes it self-contained for a
# GPU host without ITK: the Python module is built for that host's Python
# (GPU_PYTHON, default pyenv's 3.12, the ABI of the H200 machines' python3),
# the ITK runtime libraries go to build-gpu/runtime, and object files are
# dropped so the tree fits the device tool's carry limit.
# Run scripts/gpu-suite.sh there afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
python=${GPU_PYTHON:-$(ls -d /root/.pyenv/versions/3.12.*/bin/python3 | tail -n 1)}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCudaCommon_WRAP_PYTHON=ON -DPython_EXECUTABLE="$python" -DCudaCommon_PYTHON_TEST_EXECUTABLE=python3 >/dev/null
ninja -C "$build"
bundle=../shared/tools/bundle-runtime-libs
rm -rf "$build/runtime"  # never keep a stale copy of our own library there
"$bundle" "$build/runtime" "$build/test/CudaCommonGTests" "$build/examples/CudaCommonDemo" \
  "$build/bench/CudaCommonBenchmark" "$build"/src/libCudaCommon.so "$build"/wrapping/python/itk_cudacommon/_core*.so
rm -f "$build"/runtime/libCudaCommon.so*  # the build's own copy is used (LD_LIBRARY_PATH)
find "$build" -name '*.o' -delete
du -sh "$build"
