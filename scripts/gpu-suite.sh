#!/usr/bin/env bash
# Runs every GPU check on a machine with a CUDA device, from a build tree made
# by scripts/stage-gpu-build.sh: the CTest suite, the demo, and the whole
# GoogleTest suite under compute-sanitizer's memcheck (with leak check),
# racecheck, initcheck and synccheck. Prints one summary line per check and
# keeps the full logs in $OUT (or <build>/gpu-logs).
#
# Usage: scripts/gpu-suite.sh [build-dir] [--bench] [--no-sanitizers | --sanitizers-only]
#   --bench            also run the benchmark (with its two-GPU rows where there are two devices)
#                      and the Python hand-off benchmark (bench/python_handoff.py)
#   --no-sanitizers    tests, demo (and benchmark) only
#   --sanitizers-only  compute-sanitizer only (to spread the suite over two device calls)
# On a machine with two or more GPUs the two-GPU tests run too (they skip on one).
set -uo pipefail
build=$(cd "${1:-build-gpu}" && pwd)
shift || true
bench=; tests=1; sanitizers=1
for option in "$@"; do
  case "$option" in
    --bench) bench=1 ;;
    --no-sanitizers) sanitizers= ;;
    --sanitizers-only) tests= ;;
    *) echo "gpu-suite.sh: unknown option $option" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$build/gpu-logs}
mkdir -p "$out"
export LD_LIBRARY_PATH="$build/runtime:$build/src${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
status=0
summary=()
rm -f "$out/sanitizers.log"

summary+=("GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -n 1) x $(nvidia-smi -L | wc -l)")

if [ -n "$tests" ]; then

# Not on a GPU host: the consumer test configures a project against an installed
# ITK, and it, the benchmark's smoke test and the checks of the architectures
# and of docs/coherence.md run this machine's cmake -P.
# One test at a time: the memory probe test measures device-wide memory use.
# The Python tests run below, on their own, for their summary line.
ctest --test-dir "$build" -E 'consumer|python|Benchmark.smoke|CudaArchitectures|CoherenceDocNames' --output-on-failure -j1 > "$out/ctest.log" 2>&1 || status=1
summary+=("ctest: $(grep -E 'tests passed|tests failed' "$out/ctest.log" | tail -n 1); skipped: $(grep -c 'Skipped' "$out/ctest.log")")

wrapdir=
# CudaCommon's WrapITK module in itk-core's itk package (stage-gpu-build.sh),
# with RTK's module of scripts/test-rtk-wrapping.sh when it was staged (its
# tests skip without it).
if [ -f "$build/wrapitk.tar.xz" ]; then
  wrapdir=$(mktemp -d)
  tar -xJf "$build/wrapitk.tar.xz" -C "$wrapdir"
  python3 -m compileall -q -j 0 "$wrapdir" > /dev/null  # as pip install does: no compile on the first import
  [ -f "$build/itkcudacommon-2.1.0.tar.xz" ] && export CUDACOMMON_ORIGINAL_TARBALL="$build/itkcudacommon-2.1.0.tar.xz"
  PYTHONPATH="$wrapdir" python3 -m pytest -q -rs -p no:cacheprovider "$root/wrapping/wrapitk-test" \
    > "$out/pytest-wrapitk.log" 2>&1 || status=1
  summary+=("pytest wrapping/wrapitk-test: $(tail -n 1 "$out/pytest-wrapitk.log")")
  PYTHONPATH="$wrapdir" python3 -m pytest -q -rs -p no:cacheprovider "$root/wrapping/test" \
    > "$out/pytest.log" 2>&1 || status=1
  summary+=("pytest wrapping/test: $(tail -n 1 "$out/pytest.log")")
fi

rc=0
"$build/examples/CudaCommonDemo" --size 256 > "$out/demo.log" 2>&1 || rc=$?
[ $rc -eq 0 ] || status=1
summary+=("demo 256^3: exit $rc; $(tail -n 1 "$out/demo.log")")
fi

if [ -n "$sanitizers" ]; then

# Tests provoke CUDA API errors on purpose (out of memory, invalid device,
# invalid launch configuration), so only device-side errors are counted. The
# >2^32-voxel test is left out: instrumenting 4.6e9 voxels would take hours.
for tool in memcheck racecheck initcheck synccheck; do
  extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  log="$out/sanitizer-$tool.log"
  compute-sanitizer --tool "$tool" "${extra[@]}" --report-api-errors no \
    "$build/test/CudaCommonGTests" --gtest_brief=1 --gtest_filter='-CudaHugeImage.*' > "$log" 2>&1 || status=1
  summary+=("compute-sanitizer $tool: $(grep -E 'ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY' "$log" | tr '\n' ' ')$(grep -E '^\[  (PASSED|FAILED)' "$log" | tr '\n' ' ')")
  { echo "=== $tool"; cat "$log"; } >> "$out/sanitizers.log"
  rm -f "$log"  # one file for all four: the device tool returns at most 8 files
done
fi

if [ -n "$bench" ]; then
  rc=0
  "$build/bench/CudaCommonBenchmark" --sizes 256,512 --json "$out/bench.json" > "$out/bench.log" 2>&1 || rc=$?
  [ $rc -eq 0 ] || status=1
  summary+=("benchmark: exit $rc; table in bench.log")
  if [ -n "${wrapdir:-}" ]; then
    rc=0
    for run in 1 2 3; do  # three fresh processes: the first-use rows vary
      PYTHONPATH="$wrapdir" python3 "$root/bench/python_handoff.py" >> "$out/handoff.log" 2>&1 || rc=$?
    done
    [ $rc -eq 0 ] || status=1
    summary+=("Python hand-offs: exit $rc; tables in handoff.log")
  fi
  if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
    rc=0
    python3 "$root/bench/python_kernels.py" --sizes 256,512 > "$out/kernels-torch.log" 2>&1 || rc=$?
    [ $rc -eq 0 ] || status=1
    summary+=("PyTorch kernel rows: exit $rc; table in kernels-torch.log")
  fi
fi

printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
exit $status
