#!/usr/bin/env bash
# CudaCommon's Python wrapping by ITK's own machinery (WrapITK, wrapping/*.wrap):
#   1. ITK 5.4.7 as the Python wheels' build tree (scripts/build-itk.sh
#      --profile wrapped: static, the wheels' wrapping and ABI settings, only
#      ITKCommon's SWIG interface built; cached);
#   2. CudaCommon as an external module of that tree (ITKModuleExternal):
#      castxml, igenerator, SWIG and the modules itk/_CudaCommonPython.abi3.so
#      and itk/_CudaCommonFiltersPython.abi3.so (the CUDA filters);
#   3. the module's files installed into an itk package beside PyPI's itk-core
#      5.4.7 (build-wrapitk/site: itk-core's files linked, ours copied; the
#      module uses itk-core's TBB as auditwheel would), and pytest on
#      wrapping/wrapitk-test with nothing of ours imported.
#   scripts/test-wrapitk.sh [--build-only] [pytest arguments...]
# Environment: PYTHON (default python3, 3.11 or newer: the module is abi3 for
# 3.11+), CUDA_ARCHS (default 90), BUILD_WRAPITK (default build-wrapitk).
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=
if [[ ${1:-} == --build-only ]]; then build_only=1; shift; fi
python=${PYTHON:-python3}
build=${BUILD_WRAPITK:-build-wrapitk}
start=$(date +%s)

itk_dir=$(scripts/build-itk.sh --profile wrapped | tail -n 1)
# WrapITK writes an external module's interface files and Python files into
# the ITK tree (Wrapping/Typedefs, Wrapping/Generators/Python/itk): one build
# at a time per tree.
exec 8>"$itk_dir/.wrapitk-module.lock"
flock 8
# The module's outputs in its own build tree, not in the cached ITK tree's lib/.
source scripts/wrapitk-external.sh
wrapitk_external_build . "$build" -DCudaCommon_USE_ITK_MODULE_MACROS=ON \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" -DCudaCommon_CUDA_RUNTIME_STATIC=ON \
  -DCudaCommon_PYTHON_TEST_BACKEND=ON
echo "test-wrapitk: built in $(($(date +%s) - start)) s"

# The itk package: itk-core's files (linked) and the module's (installed).
site_core=$("$python" -c 'import itk, os; print(os.path.dirname(os.path.dirname(itk.__file__)))')
site=$PWD/$build/site
rm -rf "$site" "$build/install"
cmake --install "$build" --prefix "$PWD/$build/install" >/dev/null
mkdir -p "$site"
# Folders made, files linked: ITK finds its modules relative to its files.
cp -rs "$site_core/itk" "$site_core/itkConfig.py" "$site_core/itk_core.libs" "$site/"
cp -r --remove-destination "$build/install/site/itk/." "$site/itk/"
cp -r wrapping/python/itk_cudacommon "$site/"
for module in "$site"/itk/_CudaCommon{,Filters}Python*.so; do wrapitk_link_itk_core_tbb "$module"; done
[[ -n $build_only ]] && exit 0
PYTHONPATH=$site "$python" -m pytest -q -rs -p no:cacheprovider wrapping/wrapitk-test "$@"
PYTHONPATH=$site "$python" -m pytest -q -rs -p no:cacheprovider wrapping/test "$@"
