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
# One of RTK's CUDA filters is built with it, from RTK's unchanged sources:
# rtk::CudaConstantVolumeSource (its .cxx and CUDA kernel, a
# CudaImageToImageFilter over rtk::ConstantImageSource) with RTK's
# rtkConstantImageSource.wrap and rtkCudaConstantVolumeSource.wrap, in the
# module's library RTK; wrapitk-test/test_rtk_wrapping.py runs it from Python
# against RTK's CPU filter (on a GPU host: scripts/stage-gpu-build.sh takes
# this site along). RTK's other filter classes need the wrapping of 30 ITK
# modules (about 640 castxml runs), more than two cores build in CI.
#   scripts/test-rtk-wrapping.sh [--module-built | --installed] [pytest arguments...]
# --module-built: scripts/test-wrapitk.sh has just built this checkout's
# module into the tree; else it runs first. --installed: `pip install .` has
# (scripts/test.sh): the tree holds its outputs, and RTK's module joins the
# itk package of the Python environment (linked, not changed).
# Environment: PYTHON, BUILD_WRAPITK (default build-wrapitk, as
# test-wrapitk.sh), BUILD_RTKWRAP (default build-rtkwrap), RTK_TARBALL.
set -euo pipefail
cd "$(dirname "$0")/.."
module_built=; installed=
case ${1:-} in
  --module-built) module_built=1; shift ;;
  --installed) module_built=1; installed=1; shift ;;
esac
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
  itkImageSourceRTK itkImageToImageFilterRTK itkInPlaceImageFilterRTK
  rtkConstantImageSource rtkCudaConstantVolumeSource)
# The CUDA filter's sources and the RTK headers they include.
sources=(rtkConfiguration.h.in src/rtkCudaConstantVolumeSource.cxx src/rtkCudaConstantVolumeSource.cu
  include/rtkCudaConstantVolumeSource.h include/rtkCudaConstantVolumeSource.hcu include/rtkCudaUtilities.hcu
  include/rtkConstantImageSource.h include/rtkConstantImageSource.hxx include/rtkMacro.h
  include/rtkGgoArgsInfoManager.h include/rtkIterationCommands.h)
rm -rf "$build/src"
mkdir -p "$build/src"
# (The tarball holds RTK's tree without a top-level folder.)
tar -xJf "$tarball" -C "$build/src" $(printf "wrapping/%s.wrap " "${submodules[@]}") "${sources[@]}"
# The module around them: RTK's name, version and CUDA switch, its library
# with the one filter, its configuration header made as RTK's CMakeLists.txt
# makes it (after the module's configuration, which brings CudaCommon's
# CudaCommon_VERSION_MAJOR).
cat >"$build/src/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16.3)
project(RTK LANGUAGES C CXX CUDA)
set(RTK_USE_CUDA ON)
set(RTK_VERSION_MAJOR 2)
set(RTK_VERSION_MINOR 7)
set(RTK_VERSION_PATCH 0)
set(RTK_VERSION_STRING 2.7)
set(RTK_CUDA_PROJECTIONS_SLAB_SIZE 16)
set(RTK_LIBRARIES RTK)
find_package(ITK REQUIRED)
list(APPEND CMAKE_MODULE_PATH ${ITK_CMAKE_DIR})
# rtkMacro.h includes itkImageFileWriter.h: ITKIOImageBase's headers (for the
# compiler and castxml) and library, not its wrapping, which this tree does
# not build (as a module dependency, RTK's wrapping would import it).
itk_module_load(ITKIOImageBase)
include_directories(${ITKIOImageBase_INCLUDE_DIRS})
include(ITKModuleExternal)
configure_file(${RTK_SOURCE_DIR}/rtkConfiguration.h.in ${RTK_BINARY_DIR}/include/rtkConfiguration.h)
EOF
cat >"$build/src/src/CMakeLists.txt" <<'EOF'
itk_module_add_library(RTK rtkCudaConstantVolumeSource.cxx rtkCudaConstantVolumeSource.cu)
set_property(TARGET RTK PROPERTY CUDA_STANDARD ${CMAKE_CXX_STANDARD})
target_link_libraries(RTK PUBLIC ${ITKIOImageBase_LIBRARIES})
EOF
cat >"$build/src/itk-module.cmake" <<'EOF'
itk_module(RTK ENABLE_SHARED DEPENDS ITKCommon CudaCommon EXCLUDE_FROM_DEFAULT
  DESCRIPTION "RTK's ITKCommon and CUDA wrapping, and one of its CUDA filters")
EOF
{
  echo "itk_wrap_module(RTK)"
  echo "set(WRAPPER_SUBMODULE_ORDER ${submodules[*]})"
  echo "itk_auto_load_submodules()"
  echo "itk_end_wrap_module()"
} >"$build/src/wrapping/CMakeLists.txt"

source scripts/wrapitk-external.sh
wrapitk_external_build "$build/src" "$build/tree" -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}"
echo "test-rtk-wrapping: built in $(($(date +%s) - start)) s"

# RTK's files beside CudaCommon's in the itk package test-wrapitk.sh made
# (or pip installed).
site=$PWD/$build/site
rm -rf "$site" "$build/install"
cmake --install "$build/tree" --prefix "$PWD/$build/install" >/dev/null
if [[ -n $installed ]]; then
  site_env=$("$python" -c 'import itk, os; print(os.path.dirname(os.path.dirname(itk.__file__)))')
  mkdir -p "$site"
  cp -rs "$site_env/itk" "$site_env/itkConfig.py" "$site_env/itk_core.libs" "$site_env/itk_cudacommon" "$site/"
else
  cp -r "$wrapitk/site" "$site"
fi
cp -r --remove-destination "$build/install/site/itk/." "$site/itk/"
wrapitk_link_itk_core_tbb "$(ls "$site"/itk/_RTKPython*.so)"
PYTHONPATH=$site RTK_WRAP_INTERFACE_DIR=$itk_dir/Wrapping/Typedefs \
  "$python" -m pytest -q -rs -p no:cacheprovider wrapping/wrapitk-test/test_rtk_wrapping.py "$@"
