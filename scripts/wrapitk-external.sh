# Sourced by scripts/test-wrapitk.sh and scripts/test-rtk-wrapping.sh: builds
# an ITK module as an external module of the wrapped ITK tree $itk_dir
# (scripts/build-itk.sh --profile wrapped) with that tree's castxml and SWIG
# (an external module would otherwise fetch its own: ITK_FORBID_DOWNLOADS
# makes that an error), its Python files for an itk package under site/.
#   wrapitk_external_build SOURCE BUILD [cmake arguments...]
# Logs: BUILD/configure.log, BUILD/build.log (their tails on failure).
# Environment: python (the interpreter), JOBS.
wrapitk_external_build() {
  local source=$1 build=$2
  shift 2
  mkdir -p "$build"
  cache() { sed -n "s/^$1:[A-Z]*=//p" "$itk_dir/CMakeCache.txt"; }
  cmake -S "$source" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DITK_DIR="$itk_dir" \
    -DBUILD_TESTING=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DITK_FORBID_DOWNLOADS=ON \
    -DITK_USE_SYSTEM_CASTXML=ON -DCASTXML_EXECUTABLE="$(cache CASTXML_EXECUTABLE)" \
    -DITK_USE_SYSTEM_SWIG=ON -DSWIG_EXECUTABLE="$(cache SWIG_EXECUTABLE)" \
    -DCMAKE_ARCHIVE_OUTPUT_DIRECTORY="$PWD/$build/lib" \
    -DPython3_EXECUTABLE="$(command -v "$python")" -DPY_SITE_PACKAGES_PATH=site "$@" >"$build/configure.log" 2>&1 ||
    { tail -n 40 "$build/configure.log"; return 1; }
  nice ninja -C "$build" -j"${JOBS:-$(nproc)}" >"$build/build.log" 2>&1 || { tail -n 60 "$build/build.log"; return 1; }
}

# wrapitk_link_itk_core_tbb MODULE: the module uses itk-core's TBB (as the
# wheels' modules do, one TBB in the process) and finds it as they do.
wrapitk_link_itk_core_tbb() {
  local module=$1 libs
  libs=$(cd "$(dirname "$module")/../itk_core.libs" && pwd -P)
  if patchelf --print-needed "$module" | grep -qx 'libtbb.so.12'; then
    patchelf --replace-needed libtbb.so.12 "$(cd "$libs" && ls libtbb-*.so* | head -n 1)" "$module"
  fi
  patchelf --set-rpath '$ORIGIN/../itk_core.libs' "$module"
}
