#!/usr/bin/env bash
# The C++ test suite under AddressSanitizer + UndefinedBehaviorSanitizer (and,
# with SANITIZER=thread, ThreadSanitizer), in its own build tree. Without a GPU
# this covers the host side: data manager, images, pool, filters' CPU paths.
# Fails on any sanitizer report.
#   scripts/sanitize.sh            (build-asan/, address + undefined)
#   SANITIZER=thread scripts/sanitize.sh   (build-tsan/)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kind=${SANITIZER:-address}
filter=()
if [[ $kind == thread ]]; then
  flags="-fsanitize=thread"
  build_dir=$root/build-tsan
  # Only the tests whose threads are ours: ITK's thread pool lives in the
  # uninstrumented libITKCommon, so TSan cannot see its joins and would flag
  # every multi-threaded CPU filter.
  filter=(--gtest_filter='*Stress*:*Concurrent*')
else
  flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
  build_dir=$root/build-asan
fi
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" \
  -DCMAKE_CXX_FLAGS="$flags -fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" \
  -DCudaCommon_BUILD_EXAMPLES=OFF -DCudaCommon_BUILD_BENCHMARKS=OFF >/dev/null
ninja -C "$build_dir" -j"${JOBS:-$(nproc)}" CudaCommonGTests

# protect_shadow_gap=0: the CUDA runtime maps memory where ASan keeps its gap.
export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
log=$build_dir/sanitizer.log
status=0
"$build_dir/test/CudaCommonGTests" --gtest_brief=1 "${filter[@]}" > "$log" 2>&1 || status=$?
reports=$(grep -cE "ERROR: (Address|Leak)Sanitizer|runtime error:|WARNING: ThreadSanitizer" "$log" || true)
tail -n 3 "$log"
echo "sanitize ($kind): exit $status, $reports sanitizer reports"
[[ $status -eq 0 && $reports -eq 0 ]]
