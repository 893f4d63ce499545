#!/usr/bin/env bash
# CudaCommon as a classic ITK remote module, on both of the routes its users
# take, with ITK 5.4.7 from its release source (issue 15):
#   1. external: ITKModuleExternal against an ITK build tree
#      (scripts/build-itk.sh --profile module, cached), then its CTest suite;
#   2. in-tree: ITK's source with Modules/Remote/CudaCommon (this checkout)
#      and Module_CudaCommon=ON, built with ITK;
#   3. in-tree-wrapped: the same with ITK_WRAP_PYTHON=ON, configured and its
#      WrapITK steps planned (pip install . and scripts/test-wrapitk.sh build them).
# On each route examples/consumer is configured with CONSUMER_ITK_MODULE=ON
# (find_package(ITK COMPONENTS CudaCommon) against that build tree), built and
# run; it checks its pixels, on the CPU without a GPU.
#   scripts/test-itk-module.sh [--source ITK_TARBALL] [--route external|in-tree]...
# Environment: BUILD_DIR (default <repo>/build-itk-module), CUDA_ARCHS
# (default 90), JOBS (default nproc).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${BUILD_DIR:-$root/build-itk-module}
jobs=${JOBS:-$(nproc)}
archs=${CUDA_ARCHS:-90}
source=$root/../shared/deps/itk-5.4.7.tar.xz
routes=()
while (($#)); do
  case "$1" in
    --source) source=$2; shift 2 ;;
    --route) routes+=("$2"); shift 2 ;;
    *) echo "test-itk-module: unknown argument $1" >&2; exit 2 ;;
  esac
done
((${#routes[@]})) || routes=(external in-tree in-tree-wrapped)
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
mkdir -p "$work"

consumer() { # route, ITK build tree
  rm -rf "$work/consumer-$1"
  cmake -S "$root/examples/consumer" -B "$work/consumer-$1" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="$archs" -DCONSUMER_ITK_MODULE=ON -DITK_DIR="$2" >/dev/null
  ninja -C "$work/consumer-$1" -j"$jobs" >/dev/null
  LD_LIBRARY_PATH="$2/lib:$work/external/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/consumer-$1/CudaCommonConsumer"
  echo "test-itk-module ($1): the consumer passed"
}

# ITK's source unpacked into <tree>/source (itk_source: its top folder), with
# this checkout's tracked files where ITK's fetch of the remote module
# (Modules/Remote/CudaCommon.remote.cmake: the original ITKCudaCommon) would
# place them; ITK_FORBID_DOWNLOADS keeps ITK from fetching it.
itk_source_with_module() { # tree
  rm -rf "$1"
  mkdir -p "$1/source"
  tar -xf "$source" -C "$1/source"
  itk_source=$1/source
  if [[ ! -f $itk_source/CMakeLists.txt ]]; then
    itk_source=$(find "$1/source" -mindepth 1 -maxdepth 1 -type d)
  fi
  mkdir -p "$itk_source/Modules/Remote/CudaCommon"
  git -C "$root" ls-files -z | (cd "$root" && xargs -0 cp --parents -t "$itk_source/Modules/Remote/CudaCommon")
}

for route in "${routes[@]}"; do
  start=$(date +%s)
  case $route in
    external)
      itk_dir=$("$root/scripts/build-itk.sh" --profile module --source "$source" | tail -n 1)
      # An external module writes its module files into the ITK build tree
      # (lib/cmake/ITK-5.4/Modules); they are removed afterwards, so that the
      # cached tree stays as build-itk.sh made it. One run at a time per tree.
      modules=$itk_dir/lib/cmake/ITK-5.4/Modules
      exec 8>"$itk_dir/.external-module.lock"
      flock 8
      trap 'rm -f "$modules/CudaCommon.cmake" "$modules/Targets/CudaCommonTargets.cmake"' EXIT
      rm -rf "$work/external"
      cmake -S "$root" -B "$work/external" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_ARCHITECTURES="$archs" -DITK_DIR="$itk_dir" -DCudaCommon_USE_ITK_MODULE_MACROS=ON \
        -DBUILD_TESTING=ON -DITK_USE_KWSTYLE=OFF -DITK_USE_CLANG_FORMAT=OFF \
        -DCMAKE_LIBRARY_OUTPUT_DIRECTORY="$work/external/lib" \
        -DCMAKE_RUNTIME_OUTPUT_DIRECTORY="$work/external/bin" \
        -DCMAKE_ARCHIVE_OUTPUT_DIRECTORY="$work/external/lib" >"$work/external-configure.log"
      ninja -C "$work/external" -j"$jobs" >"$work/external-build.log"
      LD_LIBRARY_PATH="$itk_dir/lib:$work/external/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        ctest --test-dir "$work/external" -j"$jobs" --output-on-failure >"$work/external-ctest.log" ||
        { tail -n 40 "$work/external-ctest.log"; exit 1; }
      echo "test-itk-module (external): ctest: $(grep -E 'tests passed|tests failed' "$work/external-ctest.log")," \
        "$(grep -c '(Skipped)' "$work/external-ctest.log") skipped (no GPU here)"
      consumer external "$itk_dir"
      rm -f "$modules/CudaCommon.cmake" "$modules/Targets/CudaCommonTargets.cmake"
      trap - EXIT
      flock -u 8
      ;;
    in-tree)
      tree=$work/in-tree
      itk_source_with_module "$tree"
      cmake -S "$itk_source" -B "$tree/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_ARCHITECTURES="$archs" -DBUILD_SHARED_LIBS=ON -DBUILD_TESTING=OFF -DBUILD_EXAMPLES=OFF \
        -DITK_BUILD_DEFAULT_MODULES=OFF -DITKGroup_Core=OFF -DITK_WRAP_PYTHON=OFF \
        -DModule_ITKCommon=ON -DModule_CudaCommon=ON -DITK_FORBID_DOWNLOADS=ON >"$work/in-tree-configure.log"
      nice ninja -C "$tree/build" -j"$jobs" >"$work/in-tree-build.log"
      consumer in-tree "$tree/build"
      ;;
    in-tree-wrapped)
      # ITK's source with Modules/Remote/CudaCommon and ITK_WRAP_PYTHON=ON
      # (castxml and SWIG from the system, no downloads): configured and
      # generated, the module's WrapITK targets planned (CudaCommonSwig and
      # CudaCommonFiltersSwig, their castxml runs and SWIG modules); built by pip install . and
      # scripts/test-wrapitk.sh as an external module of the same kind of tree.
      tree=$work/in-tree-wrapped
      itk_source_with_module "$tree"
      cmake -S "$itk_source" -B "$tree/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_ARCHITECTURES="$archs" -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTING=OFF -DBUILD_EXAMPLES=OFF \
        -DITK_BUILD_DEFAULT_MODULES=OFF -DITKGroup_Core=OFF -DModule_ITKCommon=ON -DModule_ITKMesh=ON \
        -DModule_CudaCommon=ON -DITK_FORBID_DOWNLOADS=ON -DITK_WRAP_PYTHON=ON -DITK_WRAP_DOC=OFF \
        -DITK_USE_SYSTEM_SWIG=ON -DSWIG_EXECUTABLE="$(command -v swig)" -DITK_USE_SYSTEM_CASTXML=ON \
        -DCASTXML_EXECUTABLE="$(command -v castxml)" -DPython3_EXECUTABLE="$(command -v "${PYTHON:-python3}")" \
        >"$work/in-tree-wrapped-configure.log" 2>&1 || { tail -n 40 "$work/in-tree-wrapped-configure.log"; exit 1; }
      plan=$(ninja -C "$tree/build" -n CudaCommonSwig CudaCommonPython CudaCommonFiltersSwig CudaCommonFiltersPython)
      for step in itkCudaImage.xml itkCudaSquareImageFilter.xml itkCudaImageToImageFilter.xml \
        itkCudaImagePython.cpp _CudaCommonPython.abi3.so itkCudaSquareImageFilterPython.cpp \
        _CudaCommonFiltersPython.abi3.so; do
        grep -q "$step" <<<"$plan" || { echo "test-itk-module (in-tree-wrapped): $step is not planned" >&2; exit 1; }
      done
      for file in CudaImage.i CudaDataManager.i CudaCommon.mdx CudaCommonFilters.mdx; do
        [[ -f $tree/build/Wrapping/Typedefs/$file ]] ||
          { echo "test-itk-module (in-tree-wrapped): Wrapping/Typedefs/$file is missing" >&2; exit 1; }
      done
      echo "test-itk-module (in-tree-wrapped): configured with ITK's wrapping; CudaCommon's castxml, SWIG and" \
        "module steps planned ($(grep -c castxml <<<"$plan") castxml runs)"
      ;;
    *) echo "test-itk-module: unknown route $route (external, in-tree, in-tree-wrapped)" >&2; exit 2 ;;
  esac
  echo "test-itk-module ($route): $(($(date +%s) - start)) s"
done
