#!/usr/bin/env bash
# Builds the suite for sm_90 into build-gpu/ and makes it self-contained for a
# GPU host without ITK: the ITK runtime libraries go to build-gpu/runtime and
# object files move to build-gpu-objects/ (restored by the next run, which is
# then incremental), so the tree fits the device tool's carry limit.
# The Python module (CudaCommon's WrapITK module, built by
# scripts/test-wrapitk.sh --build-only) is packed with the parts of PyPI's
# itk-core 5.4.7 that the Python tests load into build-gpu/wrapitk.tar.xz.
# Run scripts/gpu-suite.sh there afterwards.
#   scripts/stage-gpu-build.sh [build-dir] [--python-only]
# --python-only repacks the Python module only.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-gpu; python_only=
for argument in "$@"; do
  case "$argument" in
    --python-only) python_only=1 ;;
    *) build=$argument ;;
  esac
done
objects=${build}-objects  # the object files, kept out of the carried tree for the next incremental build
if [[ -z $python_only ]]; then
if [[ -d $objects ]]; then
  tar -C "$objects" -cf - . | tar -C "$build" -xf -  # mtimes kept: ninja sees them up to date
  rm -rf "$objects"
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCudaCommon_WRAP_PYTHON=OFF >/dev/null
rm -rf "$build/wrapping"  # the Python package is built below, against ITK 5.4.7
ninja -C "$build"
bundle=../shared/tools/bundle-runtime-libs
rm -rf "$build/runtime"  # never keep a stale copy of our own library there
"$bundle" "$build/runtime" "$build/test/CudaCommonGTests" "$build/examples/CudaCommonDemo" \
  "$build/bench/CudaCommonBenchmark" "$build"/src/libCudaCommon.so
rm -f "$build"/runtime/libCudaCommon.so*  # the build's own copy is used (LD_LIBRARY_PATH)
mkdir -p "$objects"
(cd "$build" && find . -name '*.o' -print0 | tar --null -cf - -T - --remove-files) | tar -C "$objects" -xf -
fi

# The Python module: CudaCommon's WrapITK module with its itk_cudacommon shim
# (scripts/test-wrapitk.sh --build-only made build-wrapitk/site, its itk
# package beside itk-core; abi3, so the GPU host's Python 3.12 loads it).
pybuild=$PWD/${build}-python
# itk-core without the modules the tests do not load (the whole wheel is
# 48 MB compressed, over the carry limit): ITKCommon, ITKPyBase,
# ITKBridgeNumPy, ITKImageFilterBase and ITKPyUtils (itk.PyCommand, for
# observers) keep their libraries; tests that need another module skip where
# it is absent.
# prune_itk DIR [MODULE...]: DIR/itk keeps the compiled modules named and
# those of ITKCommon, ITKPyBase, ITKBridgeNumPy and ITKPyUtils.
prune_itk() {
  local dir=$1 keep=(ITKCommon ITKPyBase ITKBridgeNumPy ITKPyUtils) name
  shift
  keep+=("$@")
  local filter=()
  for name in "${keep[@]}"; do filter+=(! -name "_${name}Python.abi3.so"); done
  find "$dir/itk" -name '_*Python.abi3.so' "${filter[@]}" -delete
  find "$dir" -name __pycache__ -prune -exec rm -rf {} +
}
# CudaCommon's WrapITK module (scripts/test-wrapitk.sh --build-only made
# build-wrapitk/site, its itk package beside itk-core), pruned as above; with
# RTK's module of scripts/test-rtk-wrapping.sh when that ran (its site is
# CudaCommon's plus RTK's files).
wrapsite=build-wrapitk/site
if [[ -d build-rtkwrap/site/itk && build-rtkwrap/site/itk -nt build-wrapitk/site/itk/CudaCommonPython.py ]]; then
  wrapsite=build-rtkwrap/site
fi
if [[ -d $wrapsite/itk ]]; then
  wrapitk=$pybuild/wrapitk
  rm -rf "$wrapitk" && mkdir -p "$wrapitk"
  cp -rL "$wrapsite/." "$wrapitk/"
  prune_itk "$wrapitk" CudaCommon CudaCommonFilters RTK ITKImageFilterBase
  tar -C "$wrapitk" -cf - . | xz -T0 -6 > "$build/wrapitk.tar.xz"
fi
# The original's Python tests, which wrapping/test/test_original_suite.py runs.
cp ../shared/deps/itkcudacommon-2.1.0.tar.xz "$build/"
rm -f "$build/python.tar.xz"  # the hand-written package's, gone
du -sh "$build" "$build/wrapitk.tar.xz"
