#!/usr/bin/env bash
# RTK's Python CUDA wrapping on CudaCommon's WrapITK outputs, as far as two
# cores allow: RTK 2.7.0's own .wrap files (unchanged, from
# ../shared/deps/rtk-2.7.0.tar.xz) for the classes that need only ITKCommon and
# CudaCommon, among them its CUDA ones (itkCudaImageRTK with RTK's
# `CudaImage.i.in`/`.i.init` calls, itkCudaImageDataManagerRTK, the CudaImage
# blocks of itkImageSourceRTK, itkImageToImageFilterRTK and
# itkInPlaceImageFilterRTK), wrapped as the module RTK (itk_wrap_module(RTK),
# RTK_USE_CUDA=ON) of the wrapped ITK tree that holds CudaCommon
# (scripts/test-wrapitk.sh). It runs RTK's castxml, igenerator and SWIG
# stages against CudaCommon.mdx, compiles and links _RTKPython, and imports it
# beside CudaCommon and PyPI's itk-core (wrapping/wrapitk-test, whose RTK
# tests skip where RTK's module is not installed).
# RTK's filter classes (rtkCuda*.wrap) need the wrapping of 30 ITK modules
# (about 640 castxml runs): they are built on the GPU host, not here.
#   scripts/test-rtk-wrapping.sh [--module-built] [pytest arguments...]
# --module-built: scripts/test-wrapitk.sh has just built this checkout's
# module into the tree (as scripts/test.sh runs them); else it runs first.
# Environment: PYTHON, BUILD_WRAPITK (default build-wrapitk, as
# test-wrapitk.sh), BUILD_RTKWRAP (default build-rtkwrap), RTK_TARBALL.
set -euo pipefail
cd "$(dirname "$0")/.."
module_built=
if [[ ${1:-} == --module-built ]]; then module_built=1; shift; fi
python=${PYTHON:-python3}
wrapitk=${BUILD_WRAPITK:-build-wrapitk}
build=${BUILD_RTKWRAP:-build-rtkwrap}
tarball=${RTK_TARBALL:-../shared/deps/rtk-2.7.0.tar.xz}
start=$(date +%s)

itk_dir=$(scripts/build-itk.sh --profile wrapped | tail -n 1)
# CudaCommon's module file and WrapITK outputs in the shared ITK tree are
# those of the checkout configured last: this one's, made (or brought up to
# date) first. (Each module's configure rewrites the tree's castxml include
# file, so this rebuilds CudaCommon's castxml and SWIG steps after RTK's ran.)
[[ -n $module_built ]] || BUILD_WRAPITK=$wrapitk scripts/test-wrapitk.sh --build-only
exec 8>"$itk_dir/.wrapitk-module.lock"
flock 8

# RTK's submodules that need nothing beyond ITKCommon and CudaCommon, in the
# order of RTK's wrapping/CMakeLists.txt.
submodules=(itkFixedArrayRTK itkVectorRTK itkCovariantVectorRTK itkPointRTK itkContinuousIndexRTK itkMatrixRTK
  itkVariableLengthVectorRTK itkImageBaseRTK itkImageRTK itkCudaImageRTK itkCudaImageDataManagerRTK itkVectorImageRTK
  itkImageSourceRTK itkImageToImageFilterRTK itkInPlaceImageFilterRTK)
rm -rf "$build/src"
mkdir -p "$build/src/wrapping"
# (The tarball holds RTK's tree without a top-level folder.)
tar -xJf "$tarball" -C "$build/src/wrapping" --strip-components=1 $(printf "wrapping/%s.wrap " "${submodules[@]}")
# The module around them: RTK's name and CUDA switch, nothing of RTK's C++.
cat >"$build/src/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16.3)
project(RTK LANGUAGES C CXX)
set(RTK_USE_CUDA ON)
find_package(ITK REQUIRED)
list(APPEND CMAKE_MODULE_PATH ${ITK_CMAKE_DIR})
include(ITKModuleExternal)
EOF
cat >"$build/src/itk-module.cmake" <<'EOF'
itk_module(RTK DEPENDS ITKCommon CudaCommon EXCLUDE_FROM_DEFAULT DESCRIPTION "RTK's ITKCommon and CUDA wrapping")
EOF
{
  echo "itk_wrap_module(RTK)"
  echo "set(WRAPPER_SUBMODULE_ORDER ${submodules[*]})"
  echo "itk_auto_load_submodules()"
  echo "itk_end_wrap_module()"
} >"$build/src/wrapping/CMakeLists.txt"

source scripts/wrapitk-external.sh
wrapitk_external_build "$build/src" "$build/tree"
echo "test-rtk-wrapping: built in $(($(date +%s) - start)) s"

# RTK's files beside CudaCommon's in the itk package test-wrapitk.sh made.
site=$PWD/$build/site
rm -rf "$site" "$build/install"
cmake --install "$build/tree" --prefix "$PWD/$build/install" >/dev/null
cp -r "$wrapitk/site" "$site"
cp -r --remove-destination "$build/install/site/itk/." "$site/itk/"
wrapitk_link_itk_core_tbb "$(ls "$site"/itk/_RTKPython*.so)"
PYTHONPATH=$site RTK_WRAP_INTERFACE_DIR=$itk_dir/Wrapping/Typedefs \
  "$python" -m pytest -q -p no:cacheprovider wrapping/wrapitk-test/test_rtk_wrapping.py "$@"
