#!/usr/bin/env bash
# Builds ITK from a release source into a cached build tree and prints the
# build tree's path (the ITK_DIR to configure against) as its last line.
#
#   scripts/build-itk.sh [--source TARBALL|DIR] [--profile python|module] [--module NAME]...
#
# --source   an ITK release tarball (with or without a top-level folder) or an
#            unpacked source tree; default: ../shared/deps/itk-5.4.7.tar.xz
#            beside the checkout (CI's copy; a user downloads the same release
#            from ITK's GitHub releases, InsightToolkit-5.4.7.tar.gz).
# --profile  python (the default): what the Python
#            extension compiles in, built as ITK's PyPI wheels 5.4.x are:
#            static libraries with position-independent code; the wheels'
#            ABI settings (ITK_LEGACY_REMOVE=ON, ITK_FUTURE_LEGACY_REMOVE=OFF,
#            32-bit identifiers, double spacing precision: one of them
#            differing changes class layouts, see
#            ../shared/notes/python-itk-abi-feasibility.md); no TBB, no
#            wrapping, no testing; only ITKCommon and ITKImageFilterBase
#            (ITKGroup_Core=OFF: the Core group alone would add 20 IO modules).
#            module: a shared-library ITK build tree for CudaCommon as an
#            ITK module (scripts/test-itk-module.sh): ITKCommon,
#            ITKImageIntensity, ITKThresholding, ITKImageStatistics, ITKSmoothing, ITKImageGradient,
#            ITKImageFeature, ITKIOImageBase, ITKIOMeta and
#            ITKGoogleTest on the system's GoogleTest (207 s cold here).
#            wrapped: the ITK build tree CudaCommon's Python wrapping (WrapITK)
#            builds against, configured as ITK's PyPI wheels 5.4.x are
#            (ITKPythonPackage's wheel options: the python profile's ABI
#            settings, TBB, ITK_WRAP_PYTHON with unsigned short, double and
#            complex double, dimensions 2-4, the abi3 limited API) with
#            castxml and SWIG from the system (Debian's castxml, PyPI's SWIG
#            4.3) and ITK_FORBID_DOWNLOADS. Only the static libraries and
#            ITKCommon's SWIG interface are built, never ITK's own Python
#            modules (users get those from the itk-core wheel).
# --module   enable one more ITK module (repeatable).
#
# The tree is kept under ${CUDACOMMON_ITK_CACHE:-$HOME/.cache/cudacommon-itk},
# keyed by the source's SHA-256, the options and the compiler: a second run
# with the same inputs builds nothing. A tree is used only once a stamp says
# its build completed; an interrupted one is made anew, and a lock keeps two
# runs from building the same key at once. Nothing depends on the cache being
# there. Environment: JOBS (default nproc), CMAKE_BUILD_TYPE (default Release).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source=$root/../shared/deps/itk-5.4.7.tar.xz
profile=python
modules=(ITKCommon ITKImageFilterBase)
while (($#)); do
  case "$1" in
    --source) source=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    --module) modules+=("$2"); shift 2 ;;
    *) echo "build-itk.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
case $profile in
  python) ;;
  module)
    # An ITK build tree for CudaCommon as an ITK module (issue 15): shared
    # libraries, what the module and its tests need, system GoogleTest.
    # ITKImageGrid (CudaCommon's Crop, ConstantPad and Paste parents) is not
    # named: ITKImageIntensity depends on it, and naming it would change the
    # cache key of an identical tree.
    modules+=(ITKImageIntensity ITKThresholding ITKImageStatistics ITKSmoothing ITKImageGradient ITKImageFeature ITKIOImageBase ITKIOMeta ITKGoogleTest) ;;
  wrapped)
    # ITKCommon's wrapping wraps itk::MeshRegion (ITKMesh); ITKImageIntensity,
    # ITKThresholding, ITKImageStatistics, ITKSmoothing, ITKImageGradient and ITKImageFeature are C++ dependencies
    # of CudaCommon (its filters' CPU parents; ITKImageGrid too, which
    # ITKImageIntensity brings), configured but not wrapped here
    # (CudaCommon's wrapping imports ITKCommon's alone).
    # ITKIOImageBase (in itk-core too) is for RTK's headers: rtkMacro.h
    # includes itkImageFileWriter.h, so RTK's CUDA filters wrapped on this
    # tree (scripts/test-rtk-wrapping.sh) need its headers and library.
    modules+=(ITKMesh ITKImageIntensity ITKThresholding ITKImageStatistics ITKSmoothing ITKImageGradient ITKImageFeature ITKIOImageBase) ;;
  *)
    echo "build-itk.sh: unknown profile '$profile' (known: python, module, wrapped)" >&2
    exit 2 ;;
esac

options=(
  -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}"
  -DBUILD_SHARED_LIBS=OFF
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON
  -DBUILD_TESTING=OFF
  -DBUILD_EXAMPLES=OFF
  -DITK_BUILD_DEFAULT_MODULES=OFF
  -DITKGroup_Core=OFF
  -DITK_WRAP_PYTHON=OFF
  -DITK_LEGACY_REMOVE=ON
  -DITK_FUTURE_LEGACY_REMOVE=OFF
  -DITK_LEGACY_SILENT=ON
  -DITK_USE_64BITS_IDS=OFF
  -DITK_USE_FLOAT_SPACE_PRECISION=OFF
  -DModule_ITKTBB=OFF
)
if [[ $profile == module ]]; then
  options=("${options[@]/-DBUILD_SHARED_LIBS=OFF/-DBUILD_SHARED_LIBS=ON}" -DITK_USE_SYSTEM_GOOGLETEST=ON)
fi
if [[ $profile == wrapped ]]; then
  swig=$(command -v swig || true)
  # SWIG 4.2 or 4.3 (Debian's 4.1 may come first on the PATH): else PyPI's.
  if [[ -z $swig ]] || ! "$swig" -version | grep -Eq 'SWIG Version 4\.[23]\.'; then
    swig=$("${PYTHON:-python3}" -c 'import os, swig; print(os.path.join(os.path.dirname(swig.__file__), "data/bin/swig"))' \
      2>/dev/null || true)
  fi
  castxml=$(command -v castxml || true)
  if [[ -z $swig || -z $castxml ]]; then
    echo "build-itk.sh: the wrapped profile needs castxml (Debian: castxml) and SWIG 4.2 or 4.3 (pip install 'swig>=4.2,<4.4') on the PATH" >&2
    exit 2
  fi
  options=("${options[@]/-DModule_ITKTBB=OFF/-DModule_ITKTBB=ON}"
    -DITK_WRAP_PYTHON=ON -DITK_USE_SYSTEM_SWIG=ON "-DSWIG_EXECUTABLE=$swig" -DITK_USE_SYSTEM_CASTXML=ON
    "-DCASTXML_EXECUTABLE=$castxml" -DITK_FORBID_DOWNLOADS=ON -DITK_WRAP_unsigned_short=ON -DITK_WRAP_double=ON
    -DITK_WRAP_complex_double=ON "-DITK_WRAP_IMAGE_DIMS=2;3;4" "-DITK_WRAP_VECTOR_COMPONENTS=2;3;4"
    -DITK_WRAP_DOC=OFF -DITK_USE_PYTHON_LIMITED_API=ON -DITK_WRAP_PYTHON_VERSION=3
    "-DPython3_EXECUTABLE=${PYTHON:-$(command -v python3)}")
  options=("${options[@]/-DITK_WRAP_PYTHON=OFF/}")
fi
for module in $(printf '%s\n' "${modules[@]}" | sort -u); do
  options+=("-DModule_$module=ON")
done

if [[ -f $source ]]; then
  source_hash=$(sha256sum "$source" | cut -c1-16)
elif [[ -f $source/CMakeLists.txt && -d $source/Modules/Core/Common ]]; then
  source=$(cd "$source" && pwd)
  source_hash=dir-$(printf '%s' "$source" | sha256sum | cut -c1-12)
else
  echo "build-itk.sh: $source is neither an ITK release tarball nor an ITK source tree" >&2
  exit 2
fi
compiler=$(c++ --version | head -n 1)
# The key names tools by their versions, not their paths: pip builds in a
# fresh environment each time (its swig and python under a temporary prefix),
# and must find the tree that scripts/test-wrapitk.sh built, and the reverse.
hashed_options=()
for option in "${options[@]}"; do
  case $option in
    -DSWIG_EXECUTABLE=*) hashed_options+=("swig $("${option#*=}" -version | sed -n 's/^SWIG Version //p')") ;;
    -DCASTXML_EXECUTABLE=*) hashed_options+=("$("${option#*=}" --version | sed -n 1p)") ;;
    -DPython3_EXECUTABLE=*) hashed_options+=("python $("${option#*=}" -c 'import sys; print(*sys.version_info[:2])')") ;;
    *) hashed_options+=("$option") ;;
  esac
done
# The wrapped tree serves any CMake that can build a module against it (pip's
# build environment may bring another CMake than the one that built it).
cmake_version=$(cmake --version | sed -n 1p)
[[ $profile == wrapped ]] && cmake_version=
options_hash=$(printf '%s\n' "${hashed_options[@]}" "$compiler" "$cmake_version" | sha256sum | cut -c1-8)
cache=${CUDACOMMON_ITK_CACHE:-$HOME/.cache/cudacommon-itk}
key=$profile-$source_hash-$options_hash
final=$cache/$key

mkdir -p "$cache"
exec 9>"$cache/.$key.lock"
flock 9 # one build of a key at a time; a second run waits and then finds it cached
if [[ -f $final/.complete ]]; then
  echo "build-itk.sh: cached ITK build tree $final/build" >&2
  echo "$final/build"
  exit 0
fi

# An incomplete tree (an interrupted build) is never used: it is made anew.
rm -rf "$final"
mkdir -p "$final"
trap 'rm -rf "$final"' EXIT
start=$(date +%s)
source_dir=$source
if [[ -f $source ]]; then
  mkdir -p "$final/unpacked"
  tar -xf "$source" -C "$final/unpacked"
  top=$final/unpacked
  # GitHub's release archives have one top-level folder; `git archive` ones do not.
  if [[ ! -f $top/CMakeLists.txt ]] && [[ $(find "$top" -mindepth 1 -maxdepth 1 | wc -l) -eq 1 ]]; then
    top=$(find "$top" -mindepth 1 -maxdepth 1 -type d)
  fi
  source_dir=$top
fi
echo "build-itk.sh: building ITK ($profile) from $source into $final/build" >&2
cmake -S "$source_dir" -B "$final/build" -G Ninja "${options[@]}" >"$final/configure.log"
if [[ $profile == wrapped ]]; then
  # The static libraries and ITKCommon's castxml/igenerator outputs (the
  # .mdx, .idx and .i files a module's wrapping imports); no SWIG wrapper of
  # ITK is compiled.
  targets=$(ninja -C "$final/build" -t targets all | sed -n 's/^\(lib[A-Za-z0-9_.-]*\.a\): .*/\1/p' | sort -u)
  nice ninja -C "$final/build" -j"${JOBS:-$(nproc)}" $targets ITKCommonSwig >"$final/build.log"
else
  nice ninja -C "$final/build" -j"${JOBS:-$(nproc)}" >"$final/build.log"
fi
touch "$final/.complete"
trap - EXIT
echo "build-itk.sh: built in $(($(date +%s) - start)) s" >&2
echo "$final/build"
