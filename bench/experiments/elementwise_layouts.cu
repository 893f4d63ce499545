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
// Build and run (not part of the CMake build): nvcc -std=c++17 -O3 -arch=sm_90 -o /tmp/x elementwise_layouts.cu && /tmp/x
// The measurement behind the kernel layout of itkCudaFunctorKernels.cuh and the
// defaults of CudaStreamedTransform: element-wise kernel layouts against
// cudaMemcpy D2D at 512^3, PCIe duplex, and a chunked pinned pipeline.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(err_)); exit(1);} } while (0)
template <typename T, unsigned N> struct alignas(sizeof(T) * N) Pack { T v[N]; };
template <typename T> __device__ __forceinline__ T Sq(T x) { if constexpr (sizeof(T) <= 2) { uint32_t u = x; return T(u * u); } else return x * x; }
template <typename T, unsigned N> __device__ __forceinline__ Pack<T, N> Ap(const Pack<T, N>& p) { Pack<T, N> r;
#pragma unroll
  for (unsigned k = 0; k < N; ++k) r.v[k] = Sq(p.v[k]); return r; }
// A: grid-stride, 2 packs in flight (current)
template <typename T, unsigned N> __global__ void KA(size_t packs, const Pack<T, N>* __restrict__ in, Pack<T, N>* __restrict__ out) {
  size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x, s = size_t(blockDim.x) * gridDim.x, v = t;
  for (; v + s < packs; v += 2 * s) { auto a = in[v]; auto b = in[v + s]; out[v] = Ap(a); out[v + s] = Ap(b); }
  if (v < packs) out[v] = Ap(in[v]); }
// B: block tiles of K packs per thread, one tile per block, no loop
template <typename T, unsigned N, unsigned K> __global__ void KB(size_t packs, const Pack<T, N>* __restrict__ in, Pack<T, N>* __restrict__ out) {
  size_t base = size_t(blockIdx.x) * blockDim.x * K + threadIdx.x; Pack<T, N> r[K];
#pragma unroll
  for (unsigned k = 0; k < K; ++k) { size_t i = base + size_t(k) * blockDim.x; if (i < packs) r[k] = in[i]; }
#pragma unroll
  for (unsigned k = 0; k < K; ++k) { size_t i = base + size_t(k) * blockDim.x; if (i < packs) out[i] = Ap(r[k]); } }
// C: grid-stride over block tiles of K packs per thread
template <typename T, unsigned N, unsigned K> __global__ void KC(size_t packs, const Pack<T, N>* __restrict__ in, Pack<T, N>* __restrict__ out) {
  const size_t tile = size_t(blockDim.x) * K;
  for (size_t b = size_t(blockIdx.x) * tile; b < packs; b += size_t(gridDim.x) * tile) {
    Pack<T, N> r[K];
#pragma unroll
    for (unsigned k = 0; k < K; ++k) { size_t i = b + size_t(k) * blockDim.x + threadIdx.x; if (i < packs) r[k] = in[i]; }
#pragma unroll
    for (unsigned k = 0; k < K; ++k) { size_t i = b + size_t(k) * blockDim.x + threadIdx.x; if (i < packs) out[i] = Ap(r[k]); } } }
// D: like A but stores with __stcs (streaming) hint
template <typename T, unsigned N> __global__ void KD(size_t packs, const Pack<T, N>* __restrict__ in, Pack<T, N>* __restrict__ out) {
  size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x, s = size_t(blockDim.x) * gridDim.x, v = t;
  for (; v + s < packs; v += 2 * s) { auto a = in[v]; auto b = in[v + s]; auto ra = Ap(a); auto rb = Ap(b);
    __stcs(reinterpret_cast<int4*>(out + v), *reinterpret_cast<int4*>(&ra)); __stcs(reinterpret_cast<int4*>(out + v + s), *reinterpret_cast<int4*>(&rb)); }
  if (v < packs) out[v] = Ap(in[v]); }

template <typename F> float Median(F f, int runs = 30) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); std::vector<float> s;
  for (int r = 0; r < runs + 3; ++r) { CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (r >= 3) s.push_back(ms); }
  std::sort(s.begin(), s.end()); CK(cudaEventDestroy(a)); CK(cudaEventDestroy(b)); return s[s.size() / 2]; }

int sms;
template <typename T> void Run(const char* name) {
  constexpr unsigned N = 16 / sizeof(T); const size_t count = size_t(512) * 512 * 512, bytes = count * sizeof(T), packs = count / N;
  void *in, *out; CK(cudaMalloc(&in, bytes)); CK(cudaMalloc(&out, bytes)); CK(cudaMemset(in, 1, bytes));
  auto* pi = static_cast<const Pack<T, N>*>(in); auto* po = static_cast<Pack<T, N>*>(out);
  const double traffic = 2.0 * bytes / 1e6;
  float copy = Median([&] { CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); });
  printf("%-8s D2D copy %.1f GB/s\n", name, traffic / copy);
  auto report = [&](const char* v, float ms) { printf("%-8s %-44s %8.1f GB/s %6.2f%%\n", name, v, traffic / ms, 100.0 * copy / ms); };
  for (unsigned waves : {1u, 2u, 4u, 8u}) { unsigned g = sms * 8 * waves; char buf[64]; snprintf(buf, 64, "A grid-stride 2 in flight, 256x(SM*8*%u)", waves);
    report(buf, Median([&] { KA<T, N><<<g, 256>>>(packs, pi, po); })); }
  { unsigned g = sms * 8 * 4; report("D as A(4 waves), __stcs stores", Median([&] { KD<T, N><<<g, 256>>>(packs, pi, po); })); }
  report("B tile K=2, 256 threads", Median([&] { KB<T, N, 2><<<(packs + 511) / 512, 256>>>(packs, pi, po); }));
  report("B tile K=4, 256 threads", Median([&] { KB<T, N, 4><<<(packs + 1023) / 1024, 256>>>(packs, pi, po); }));
  report("B tile K=8, 256 threads", Median([&] { KB<T, N, 8><<<(packs + 2047) / 2048, 256>>>(packs, pi, po); }));
  report("B tile K=4, 128 threads", Median([&] { KB<T, N, 4><<<(packs + 511) / 512, 128>>>(packs, pi, po); }));
  report("B tile K=1, 256 threads", Median([&] { KB<T, N, 1><<<(packs + 255) / 256, 256>>>(packs, pi, po); }));
  report("B tile K=1, 512 threads", Median([&] { KB<T, N, 1><<<(packs + 511) / 512, 512>>>(packs, pi, po); }));
  for (unsigned waves : {2u, 8u, 32u}) { unsigned g = sms * 8 * waves; char buf[64]; snprintf(buf, 64, "C tiles K=4 grid-stride, SM*8*%u", waves);
    report(buf, Median([&] { KC<T, N, 4><<<g, 256>>>(packs, pi, po); })); }
  // in place
  report("A in place (4 waves)", Median([&] { KA<T, N><<<sms * 32, 256>>>(packs, po, po); }));
  report("B K=4 in place", Median([&] { KB<T, N, 4><<<(packs + 1023) / 1024, 256>>>(packs, po, po); }));
  report("B K=1 in place", Median([&] { KB<T, N, 1><<<(packs + 255) / 256, 256>>>(packs, po, po); }));
  CK(cudaFree(in)); CK(cudaFree(out)); }

void Duplex() {
  const size_t bytes = size_t(512) << 20; void *h1, *h2, *d1, *d2;
  CK(cudaMallocHost(&h1, bytes)); CK(cudaMallocHost(&h2, bytes)); CK(cudaMalloc(&d1, bytes)); CK(cudaMalloc(&d2, bytes));
  memset(h1, 1, bytes); memset(h2, 2, bytes);
  cudaStream_t s1, s2; CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking)); CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  float up = Median([&] { CK(cudaMemcpyAsync(d1, h1, bytes, cudaMemcpyHostToDevice, 0)); }, 5);
  float down = Median([&] { CK(cudaMemcpyAsync(h2, d2, bytes, cudaMemcpyDeviceToHost, 0)); }, 5);
  float both = Median([&] { cudaEvent_t e; CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)); CK(cudaEventRecord(e, 0)); CK(cudaStreamWaitEvent(s1, e)); CK(cudaStreamWaitEvent(s2, e));
    CK(cudaMemcpyAsync(d1, h1, bytes, cudaMemcpyHostToDevice, s1)); CK(cudaMemcpyAsync(h2, d2, bytes, cudaMemcpyDeviceToHost, s2));
    CK(cudaEventRecord(e, s1)); CK(cudaStreamWaitEvent(0, e)); CK(cudaEventRecord(e, s2)); CK(cudaStreamWaitEvent(0, e)); CK(cudaEventDestroy(e)); }, 5);
  printf("pinned 512 MiB: H2D %.1f GB/s (%.2f ms), D2H %.1f GB/s (%.2f ms), both at once %.2f ms = %.1f GB/s each way\n",
         bytes / up / 1e6, up, bytes / down / 1e6, down, both, bytes / both / 1e6);
  // chunked pipeline: up chunk k, square in place, down chunk k, 3 streams, pinned, in place on h1
  for (size_t chunkMiB : {4, 8, 16, 32, 64}) {
    for (int nstreams : {2, 3, 4}) {
      cudaStream_t st[4]; for (int i = 0; i < nstreams; ++i) CK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
      const size_t chunk = chunkMiB << 20;
      float ms = Median([&] { cudaEvent_t e; CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)); CK(cudaEventRecord(e, 0));
        for (int i = 0; i < nstreams; ++i) CK(cudaStreamWaitEvent(st[i], e));
        for (size_t off = 0, k = 0; off < bytes; off += chunk, ++k) { size_t b = std::min(chunk, bytes - off); cudaStream_t s = st[k % nstreams];
          CK(cudaMemcpyAsync((char*)d1 + off, (char*)h1 + off, b, cudaMemcpyHostToDevice, s));
          KA<float, 4><<<sms * 8, 256, 0, s>>>(b / 16, (const Pack<float, 4>*)((char*)d1 + off), (Pack<float, 4>*)((char*)d1 + off));
          CK(cudaMemcpyAsync((char*)h1 + off, (char*)d1 + off, b, cudaMemcpyDeviceToHost, s)); }
        for (int i = 0; i < nstreams; ++i) { CK(cudaEventRecord(e, st[i])); CK(cudaStreamWaitEvent(0, e)); } CK(cudaEventDestroy(e)); }, 5);
      printf("pipeline pinned 512 MiB float, chunk %3zu MiB, %d streams: %.2f ms\n", chunkMiB, nstreams, ms);
      for (int i = 0; i < nstreams; ++i) CK(cudaStreamDestroy(st[i]));
    }
  }
}
int main() { CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0)); printf("SMs %d\n", sms);
  Run<float>("float"); Run<double>("double"); Run<unsigned char>("uchar"); Duplex(); return 0; }
