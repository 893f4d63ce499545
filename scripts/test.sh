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

# CudaCommon's Python package as users get it, `pip install .`: a wheel built
# by scikit-build-core, which is CudaCommon's WrapITK module built as an
# external module of the wrapped ITK 5.4.7 build tree (scripts/build-itk.sh
# --profile wrapped, cached; ITK's second context, which
# scripts/test-wrapitk.sh builds without pip), installed into itk-core's itk
# package. One build serves both here: this one has the emulated test backend
# (CudaCommon_PYTHON_TEST_BACKEND, never in a wheel for users) and one
# architecture, as every build of the tests. Then the Python tests against
# the installed package, from elsewhere than the checkout (`import
# itk_cudacommon` is the installed one).
if [[ $# -eq 0 ]]; then
  python=${PYTHON:-python3}
  # WrapITK writes a module's Python files into the ITK tree it builds
  # against: one module build at a time per tree (scripts/test-wrapitk.sh and
  # scripts/test-rtk-wrapping.sh take the same lock), else one build's files
  # replace the other's.
  itk_wrapped=$("$root/scripts/build-itk.sh" --profile wrapped | tail -n 1)
  flock "$itk_wrapped/.wrapitk-module.lock" \
    "$python" -m pip install --quiet --config-settings=cmake.define.CMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" \
    --config-settings=cmake.define.CudaCommon_PYTHON_TEST_BACKEND=ON "$root"
  for suite in wrapitk-test test; do
    (cd /tmp && "$python" -m pytest -q -rs -p no:cacheprovider "$root/wrapping/$suite")
  done
  # RTK 2.7.0's own wrapping of its CUDA images, their bases and one CUDA
  # filter, built on the outputs that build left in the tree, as RTK's CUDA
  # wheels are, and imported beside the installed package.
  "$root/scripts/test-rtk-wrapping.sh" --installed
fi
