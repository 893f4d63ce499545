#!/usr/bin/env bash
# Packs the RTK compatibility build made by test/rtk/build.sh for a GPU
# machine without ITK: <build>/../build-rtk-gpu/rtk.tar.xz holds RTK's test
# programs (stripped), libRTK, the installed CudaCommon, the CTest files and
# the runtime libraries they load (runtime/), at this machine's paths. There:
#   tar -xJf build-rtk-gpu/rtk.tar.xz -C /
#   LD_LIBRARY_PATH=<build>/rtk/runtime:/usr/local/cuda/lib64 ctest --test-dir <build>/rtk/build
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=${BUILD_DIR:-$root/build}/rtk
out=$root/build-rtk-gpu
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

programs=$(find "$work/build" -maxdepth 1 -type f -executable -name 'rtk*')
rm -rf "$work/runtime"
"$root/../shared/tools/bundle-runtime-libs" "$work/runtime" $programs "$work/build/libRTK.so" >/dev/null
rm -f "$work"/runtime/libCudaCommon.so* "$work"/runtime/libRTK.so* # the build's own copies are used
# The CUDA toolkit's libraries (cuFFT alone is 300 MB) come from the GPU
# machine's toolkit: add its lib64 to LD_LIBRARY_PATH there.
rm -f "$work"/runtime/libcufft* "$work"/runtime/libcublas* "$work"/runtime/libcudart*

# The tree as it is here, programs stripped, object files left out.
(cd / && find "${work#/}/build" -maxdepth 1 \( -name 'rtk*' -o -name 'libRTK.so*' -o -name 'CTestTestfile.cmake' \) -print
 cd / && find "${work#/}/install/lib" "${work#/}/runtime" -print) > "$stage/list"
tar -C / -cf "$stage/rtk.tar" --no-recursion -T "$stage/list"
mkdir -p "$stage/x" && tar -C "$stage/x" -xf "$stage/rtk.tar"
find "$stage/x" -type f \( -name 'rtk*' -o -name '*.so*' \) -exec strip --strip-unneeded {} + 2>/dev/null || true
mkdir -p "$out"
tar -C "$stage/x" -cJf "$out/rtk.tar.xz" .
du -h "$out/rtk.tar.xz"
