#!/usr/bin/env bash
# Install the dependencies if needed, build CudaCommon and run every test.
#   scripts/test.sh [ctest arguments...]     e.g. scripts/test.sh -R Demo
# Tests that need a GPU report "skipped" on a machine without one.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
ctest --test-dir "$build_dir" --output-on-failure -j2 "$@"

# RTK's CUDA filters and tests built against the installed CudaCommon
# (test/rtk/build.sh; they report "skipped" without a GPU).
if [[ $# -eq 0 ]]; then
  BUILD_DIR=$build_dir "$root/test/rtk/build.sh"
fi

# CudaCommon's library against ITK 5.4.7 from its release source, built as
# ITK's PyPI wheels are (scripts/build-itk.sh, cached), and a downstream
# project against that installation.
if [[ $# -eq 0 ]]; then
  "$root/scripts/test-itk-5.4.sh"
fi

# CudaCommon as a classic ITK module of ITK 5.4.7: built with ITKModuleExternal
# against an ITK build tree (cached) with its CTest suite, and in ITK's
# Modules/Remote; the consumer finds it through find_package(ITK COMPONENTS
# CudaCommon) on both routes.
if [[ $# -eq 0 ]]; then
  "$root/scripts/test-itk-module.sh"
fi

# CudaCommon wrapped by ITK's own machinery (WrapITK) as an external module of
# a wrapped ITK 5.4.7 build tree (cached), installed beside PyPI's itk-core
# 5.4.7, and its Python tests.
if [[ $# -eq 0 ]]; then
  "$root/scripts/test-wrapitk.sh"
  # RTK 2.7.0's own wrapping of its CUDA images and their bases, built on
  # that module's outputs as RTK's CUDA wheels are, and imported beside it.
  "$root/scripts/test-rtk-wrapping.sh" --module-built
fi

# The Python package as users get it: pip install . (a wheel built by
# scikit-build-core: CudaCommon's WrapITK module against the wrapped ITK tree
# above, installed into itk-core's itk package), then the Python tests against
# the installed package (the emulated-device test needs test-wrapitk.sh's
# build and skips here, visibly).
if [[ $# -eq 0 ]]; then
  python=${PYTHON:-python3}
  # One architecture here, as for every build of the tests (a wheel for users
  # builds them all: CMakeLists.txt's default).
  "$python" -m pip install --quiet --config-settings=cmake.define.CMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" "$root"
  # From elsewhere than the checkout: `import itk_cudacommon` is the installed one.
  for suite in wrapitk-test test; do
    (cd /tmp && "$python" -m pytest -q -rs -p no:cacheprovider "$root/wrapping/$suite")
  done
fi
