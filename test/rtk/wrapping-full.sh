#!/usr/bin/env bash
# RTK 2.7.0's whole Python wrapping with its CUDA classes (RTK_USE_CUDA=ON),
# from RTK's unchanged sources, on CudaCommon: ITK 5.4.7's source tree with RTK
# and this checkout in Modules/Remote and ITK_WRAP_PYTHON=ON (ITK's first
# context), configured as ITK's wheels are (scripts/build-itk.sh --profile
# wrapped's wrapping and ABI settings), with castxml and SWIG from the system
# or PyPI and nothing downloaded. RTK's wrapping imports 30 ITK modules (about
# 640 castxml runs): more than CI's two cores hold (scripts/test-rtk-wrapping.sh
# builds the part that fits there). Run it where there are many cores, e.g.
# the GPU host (16), in steps:
#   test/rtk/wrapping-full.sh WORK [ninja targets...]   (default: RTKSwig)
#   test/rtk/wrapping-full.sh WORK --cuda-python
# --cuda-python, once RTKSwig is built: SWIG's stage for each of RTK's CUDA
# submodules (their *Python.cpp and *Python.py), then the C++ compile of those
# sources, each by its own command from the build's plan (ninja -t commands -s)
# without the link steps and libraries ninja would build first (RTK's and 30
# ITK modules'), which the stages do not read.
# SWIG's Python sources of RTK's classes need RTK's library built, whose
# rtkCudaUtilities.cu calls CUDA 12's cuCtxCreate: the shim of the RTK
# compatibility build (shims/rtkCuda13Compat.h) is force-included, as there.
# The first run unpacks and configures WORK; later ones only run ninja, so a
# long build can be spread over several calls. Environment: ITK_TARBALL,
# RTK_TARBALL (default ../shared/deps/{itk-5.4.7,rtk-2.7.0}.tar.xz), CASTXML,
# SWIG (executables; default: on the PATH), PYTHON (default python3),
# CUDA_ARCHS (default 90), JOBS (default nproc), CASTXML_AS_GCC (a GCC major
# version for castxml to emulate: PyPI's castxml 0.4.5 reads glibc's headers
# wrongly as GCC 13's, which expect _Float32 and its kin from the compiler,
# and its clang has none; CASTXML_AS_GCC=12 there).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mkdir -p "$1" && cd "$1" && pwd)
shift
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(RTKSwig)
python=$(command -v "${PYTHON:-python3}")
castxml=${CASTXML:-$(command -v castxml)}
swig=${SWIG:-$(command -v swig)}
start=$(date +%s)

if [[ ! -f $work/.configured ]]; then
  rm -rf "$work/source" "$work/build"
  mkdir -p "$work/source"
  tar -xf "${ITK_TARBALL:-$root/../shared/deps/itk-5.4.7.tar.xz}" -C "$work/source"
  itk=$work/source
  [[ -f $itk/CMakeLists.txt ]] || itk=$(find "$work/source" -mindepth 1 -maxdepth 1 -type d)
  mkdir -p "$itk/Modules/Remote/RTK" "$itk/Modules/Remote/CudaCommon"
  # (RTK's release tarball holds its tree without a top-level folder.)
  tar -xf "${RTK_TARBALL:-$root/../shared/deps/rtk-2.7.0.tar.xz}" -C "$itk/Modules/Remote/RTK"
  # This checkout, without its build trees.
  tar -C "$root" --exclude='./build*' --exclude=./.device --exclude=./.git --exclude=./.whl -cf - . |
    tar -C "$itk/Modules/Remote/CudaCommon" -xf -
  compiler=()
  if [[ -n ${CASTXML_AS_GCC:-} ]]; then
    # castxml asks the C++ compiler for its predefined macros (-dM): this one
    # answers with another __GNUC__ and is the compiler otherwise.
    cxx=$(command -v "${CXX:-g++}")
    printf '#!/bin/sh\ncase " $* " in *" -dM "*) "%s" "$@" | sed "s/^#define __GNUC__ .*/#define __GNUC__ %s/"; exit ;; esac\nexec "%s" "$@"\n' \
      "$cxx" "$CASTXML_AS_GCC" "$cxx" >"$work/c++"
    chmod +x "$work/c++"
    compiler=(-DCMAKE_CXX_COMPILER="$work/c++" -DCMAKE_CUDA_HOST_COMPILER="$cxx")
  fi
  cmake -S "$itk" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF "${compiler[@]}" \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_TESTING=OFF -DBUILD_EXAMPLES=OFF \
    -DITK_BUILD_DEFAULT_MODULES=OFF -DITKGroup_Core=OFF -DModule_RTK=ON -DModule_CudaCommon=ON \
    -DRTK_USE_CUDA=ON -DRTK_BUILD_APPLICATIONS=OFF -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" \
    -DITK_WRAP_PYTHON=ON -DITK_WRAP_DOC=OFF -DITK_FORBID_DOWNLOADS=ON \
    -DITK_USE_SYSTEM_CASTXML=ON -DCASTXML_EXECUTABLE="$castxml" -DITK_USE_SYSTEM_SWIG=ON -DSWIG_EXECUTABLE="$swig" \
    -DITK_WRAP_unsigned_short=ON -DITK_WRAP_double=ON -DITK_WRAP_complex_double=ON \
    "-DITK_WRAP_IMAGE_DIMS=2;3;4" "-DITK_WRAP_VECTOR_COMPONENTS=2;3;4" -DITK_USE_PYTHON_LIMITED_API=ON \
    "-DCMAKE_CUDA_FLAGS=-include $root/test/rtk/shims/rtkCuda13Compat.h" \
    -DITK_LEGACY_REMOVE=ON -DITK_FUTURE_LEGACY_REMOVE=OFF -DITK_LEGACY_SILENT=ON -DITK_USE_64BITS_IDS=OFF \
    -DPython3_EXECUTABLE="$python" >"$work/configure.log" 2>&1 ||
    { tail -n 60 "$work/configure.log"; exit 1; }
  touch "$work/.configured"
  echo "wrapping-full: configured in $(($(date +%s) - start)) s" \
    "($(grep -c 'castxml_inputs/.*\.xml:' <(ninja -C "$work/build" -t targets all) || true) castxml outputs planned)"
fi
if [[ ${targets[0]} == --cuda-python ]]; then
  # run_planned STEP PATTERN: the build's own command of each output matching
  # PATTERN (a grep -E of ninja's target list), all at once (JOBS at a time).
  run_planned() {
    local step=$1 pattern=$2 outputs
    mapfile -t outputs < <(ninja -C "$work/build" -t targets all | sed -n 's/: .*//p' | sed "s|^$work/build/||" |
      grep -E "$pattern" | sort -u)
    [[ ${#outputs[@]} -gt 0 ]] || { echo "wrapping-full: no output matches $pattern" >&2; exit 1; }
    rm -rf "${work:?}/$step" && mkdir -p "$work/$step"
    local i=0 output
    for output in "${outputs[@]}"; do
      i=$((i + 1))
      { echo "cd '$work/build'"; ninja -C "$work/build" -t commands -s "$output"; } >"$work/$step/$i.sh"
    done
    printf '%s\n' "$work/$step"/*.sh | nice xargs -P"${JOBS:-$(nproc)}" -I{} sh -c 'sh "$1" >"$1.log" 2>&1 || echo "FAILED $1"' _ {} |
      tee "$work/$step/failed"
    echo "wrapping-full: $step: ${#outputs[@]} outputs, $(wc -l <"$work/$step/failed") failed," \
      "$(($(date +%s) - start)) s; $(printf '%s ' "${outputs[@]##*/}")"
    [[ ! -s $work/$step/failed ]] || { for f in $(cat "$work/$step/failed" | cut -d' ' -f2); do tail -n 30 "$f.log"; done; exit 1; }
  }
  # CudaCommon's second module (the CUDA filters), whose interface files
  # RTKSwig does not make: RTK imports CudaCommon's first module only.
  nice ninja -C "$work/build" -j"${JOBS:-$(nproc)}" CudaCommonFiltersSwig >>"$work/build.log" 2>&1 ||
    { tail -n 60 "$work/build.log"; exit 1; }
  run_planned swig '/(itk|rtk)Cuda[A-Za-z]*Python\.cpp$'
  run_planned compile '/(itk|rtk)Cuda[A-Za-z]*Python\.cpp\.o$'
  exit 0
fi
nice ninja -C "$work/build" -j"${JOBS:-$(nproc)}" "${targets[@]}" >>"$work/build.log" 2>&1 ||
  { tail -n 60 "$work/build.log"; exit 1; }
echo "wrapping-full: ${targets[*]} built in $(($(date +%s) - start)) s"
