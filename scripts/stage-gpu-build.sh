#!/usr/bin/env bash
# Builds the suite for sm_90 into build-gpu/ and makes it self-contained for a
# GPU host without ITK: the ITK runtime libraries go to build-gpu/runtime and
# object files move to build-gpu-objects/ (restored by the next run, which is
# then incremental), so the tree fits the device tool's carry limit.
# The Python package is built as the wheel builds it (against ITK 5.4.7 from
# its source, scripts/build-itk.sh) for that host's Python (GPU_PYTHON,
# default pyenv's 3.12, the ABI of the H200 machines' python3), in
# build-gpu-python/, and packed with the parts of PyPI's itk-core 5.4.7 that
# the Python tests load into build-gpu/python.tar.xz.
# Run scripts/gpu-suite.sh there afterwards.
#   scripts/stage-gpu-build.sh [build-dir] [--python-only]
# --python-only rebuilds and repacks the Python package only.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-gpu; python_only=
for argument in "$@"; do
  case "$argument" in
    --python-only) python_only=1 ;;
    *) build=$argument ;;
  esac
done
python=${GPU_PYTHON:-$(ls -d /root/.pyenv/versions/3.12.*/bin/python3 | tail -n 1)}
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

# The Python package, and the wheels it runs with, for the GPU host's Python.
pybuild=$PWD/${build}-python
venv=$pybuild/venv
[[ -x $venv/bin/python ]] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet "swig>=4.2,<4.4" "itk-core==5.4.7"
itk_dir=$(scripts/build-itk.sh --module ITKImageIntensity | tail -n 1)
cmake -S . -B "$pybuild/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DITK_DIR="$itk_dir" -DBUILD_TESTING=OFF -DCudaCommon_BUILD_EXAMPLES=OFF -DCudaCommon_BUILD_BENCHMARKS=OFF \
  -DCudaCommon_WRAP_PYTHON=ON -DCudaCommon_BUILD_SHARED=OFF -DCudaCommon_CUDA_RUNTIME_STATIC=ON \
  -DCudaCommon_INSTALL_ITK_MODULE_FILE=OFF -DPython_EXECUTABLE="$venv/bin/python" \
  -DSWIG_EXECUTABLE="$venv/bin/swig" >/dev/null
ninja -C "$pybuild/build"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
stage=$pybuild/stage
rm -rf "$stage" && mkdir -p "$stage"
cp -r "$pybuild/build/wrapping/python/itk_cudacommon" "$stage/"
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
cp -r "$site/itk" "$site/itkConfig.py" "$site/itk_core.libs" "$site"/itk_core-*.dist-info "$stage/"
prune_itk "$stage" ITKImageFilterBase
tar -C "$stage" -cf - . | xz -T0 -6 > "$build/python.tar.xz"
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
  prune_itk "$wrapitk" CudaCommon RTK
  tar -C "$wrapitk" -cf - . | xz -T0 -6 > "$build/wrapitk.tar.xz"
fi
# The original's Python tests, which wrapping/test/test_original_suite.py runs.
cp ../shared/deps/itkcudacommon-2.1.0.tar.xz "$build/"
du -sh "$build" "$build/python.tar.xz"
