/*=========================================================================
 *
 *  Copyright CudaCommon contributors
 *
 *  Licensed under the Apache License, Version 2.0 (the "License");
 *  you may not use this file except in compliance with the License.
 *  You may obtain a copy of the License at
 *
 *         https://www.apache.org/licenses/LICENSE-2.0.txt
 *
 *  Unless required by applicable law or agreed to in writing, software
 *  distributed under the License is distributed on an "AS IS" BASIS,
 *  WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 *  See the License for the specific language governing permissions and
 *  limitations under the License.
 *
 *=========================================================================*/
// Build and run (not part of the CMake build): nvcc -std=c++17 -O3 -arch=sm_90 -o /tmp/x round_trip_calls.cu && /tmp/x
// The CUDA calls a 16x16 CudaImage round trip makes, each timed alone (the
// profile behind the round-trip row of docs/performance.md).
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <functional>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorName(e)); exit(1);} } while (0)
static double timeit(const char* name, int n, const std::function<void()>& setup, const std::function<void()>& body) {
  std::vector<double> s;
  for (int r = 0; r < 7; ++r) {
    double total = 0;
    for (int i = 0; i < n; ++i) {
      setup();
      auto t0 = std::chrono::steady_clock::now();
      body();
      auto t1 = std::chrono::steady_clock::now();
      total += std::chrono::duration<double, std::micro>(t1 - t0).count();
    }
    s.push_back(total / n);
  }
  std::sort(s.begin(), s.end());
  printf("%-60s median %.3f us (min %.3f max %.3f)\n", name, s[3], s[0], s[6]);
  return s[3];
}
int main() {
  CK(cudaSetDevice(0)); CK(cudaFree(0));
  cudaStream_t nb, bl; CK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking)); CK(cudaStreamCreate(&bl));
  cudaMemPool_t pool; cudaMemPoolProps props{}; props.allocType = cudaMemAllocationTypePinned; props.location.type = cudaMemLocationTypeDevice; props.location.id = 0;
  CK(cudaMemPoolCreate(&pool, &props)); uint64_t thr = 1ull << 30; CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr));
  const size_t B = 1024;
  std::vector<float> pageable(256, 2.0f); float* pinned; CK(cudaMallocHost(&pinned, B));
  void* d; CK(cudaMalloc(&d, B));
  const int N = 2000;
  auto sync = [&] { CK(cudaDeviceSynchronize()); };
  auto none = [] {};
  timeit("cudaGetDevice", N, none, [&] { int x; CK(cudaGetDevice(&x)); });
  timeit("cudaSetDevice(0) (already current)", N, none, [&] { CK(cudaSetDevice(0)); });
  timeit("cudaPointerGetAttributes(pageable)", N, none, [&] { cudaPointerAttributes a; CK(cudaPointerGetAttributes(&a, pageable.data())); });
  timeit("cudaPointerGetAttributes(pinned)", N, none, [&] { cudaPointerAttributes a; CK(cudaPointerGetAttributes(&a, pinned)); });
  timeit("cudaMallocFromPoolAsync+cudaFreeAsync 1KiB nonblocking", N, sync, [&] { void* p; CK(cudaMallocFromPoolAsync(&p, B, pool, nb)); CK(cudaFreeAsync(p, nb)); });
  timeit("cudaMallocFromPoolAsync 1KiB nb then cudaFreeAsync legacy", N, sync, [&] { void* p; CK(cudaMallocFromPoolAsync(&p, B, pool, nb)); CK(cudaFreeAsync(p, 0)); });
  timeit("cudaMemcpyAsync H2D 1KiB pageable nonblocking", N, sync, [&] { CK(cudaMemcpyAsync(d, pageable.data(), B, cudaMemcpyHostToDevice, nb)); });
  timeit("cudaMemcpyAsync H2D 1KiB pageable blocking", N, sync, [&] { CK(cudaMemcpyAsync(d, pageable.data(), B, cudaMemcpyHostToDevice, bl)); });
  timeit("cudaMemcpyAsync H2D 1KiB pinned nonblocking", N, sync, [&] { CK(cudaMemcpyAsync(d, pinned, B, cudaMemcpyHostToDevice, nb)); });
  timeit("memcpy to pinned + cudaMemcpyAsync H2D 1KiB pinned nb", N, sync, [&] { std::copy(pageable.begin(), pageable.end(), pinned); CK(cudaMemcpyAsync(d, pinned, B, cudaMemcpyHostToDevice, nb)); });
  timeit("cudaMemcpyAsync H2D 1KiB pageable nb (back-to-back, no sync)", N, none, [&] { CK(cudaMemcpyAsync(d, pageable.data(), B, cudaMemcpyHostToDevice, nb)); });
  cudaEvent_t ev; CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  timeit("cudaEventRecord(nb)+cudaStreamWaitEvent(legacy)", N, sync, [&] { CK(cudaEventRecord(ev, nb)); CK(cudaStreamWaitEvent(0, ev, 0)); });
  timeit("cudaEventRecord(nb)", N, sync, [&] { CK(cudaEventRecord(ev, nb)); });
  timeit("cudaEventQuery", N, sync, [&] { cudaEventQuery(ev); });
  timeit("cudaStreamQuery(nb) idle", N, sync, [&] { cudaStreamQuery(nb); });
  timeit("full: alloc nb + pageable H2D nb + event bridge + free legacy", N, sync, [&] {
    void* p; CK(cudaMallocFromPoolAsync(&p, B, pool, nb)); cudaPointerAttributes a; CK(cudaPointerGetAttributes(&a, pageable.data()));
    CK(cudaMemcpyAsync(p, pageable.data(), B, cudaMemcpyHostToDevice, nb)); CK(cudaEventRecord(ev, nb)); CK(cudaStreamWaitEvent(0, ev, 0)); CK(cudaFreeAsync(p, 0)); });
  timeit("full, blocking stream, no bridge", N, sync, [&] {
    void* p; CK(cudaMallocFromPoolAsync(&p, B, pool, bl)); cudaPointerAttributes a; CK(cudaPointerGetAttributes(&a, pageable.data()));
    CK(cudaMemcpyAsync(p, pageable.data(), B, cudaMemcpyHostToDevice, bl)); CK(cudaFreeAsync(p, bl)); });
  timeit("full, legacy stream only", N, sync, [&] {
    void* p; CK(cudaMallocFromPoolAsync(&p, B, pool, 0));
    CK(cudaMemcpyAsync(p, pageable.data(), B, cudaMemcpyHostToDevice, 0)); CK(cudaFreeAsync(p, 0)); });
  timeit("full via pinned copy, nb + bridge", N, sync, [&] {
    void* p; CK(cudaMallocFromPoolAsync(&p, B, pool, nb)); std::copy(pageable.begin(), pageable.end(), pinned);
    CK(cudaMemcpyAsync(p, pinned, B, cudaMemcpyHostToDevice, nb)); CK(cudaEventRecord(ev, nb)); CK(cudaStreamWaitEvent(0, ev, 0)); CK(cudaFreeAsync(p, 0)); });
  printf("done\n");
  return 0;
}
