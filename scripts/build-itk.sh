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
#            ITKImageIntensity, ITKSmoothing, ITKIOImageBase, ITKIOMeta and
#            ITKGoogleTest on the system's GoogleTest (207 s cold here).
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
    modules+=(ITKImageIntensity ITKSmoothing ITKIOImageBase ITKIOMeta ITKGoogleTest) ;;
  *)
    echo "build-itk.sh: unknown profile '$profile' (known: python, module)" >&2
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
options_hash=$(printf '%s\n' "${options[@]}" "$compiler" "$(cmake --version | head -n 1)" | sha256sum | cut -c1-8)
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
nice ninja -C "$final/build" -j"${JOBS:-$(nproc)}" >"$final/build.log"
touch "$final/.complete"
trap - EXIT
echo "build-itk.sh: built in $(($(date +%s) - start)) s" >&2
echo "$final/build"
