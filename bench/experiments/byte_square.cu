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
// Build and run (not part of the CMake build):
//   nvcc -std=c++17 -O3 -arch=sm_90 -o /tmp/byte_square byte_square.cu && /tmp/byte_square
// Which layout and byte arithmetic bring the unsigned char square of a 512^3
// image to the device-to-device copy's bandwidth (issue 14 asks >= 97 %): a
// plain copy kernel of the same layout shows what the layout alone reaches,
// then square variants (one to four 16-byte packs per thread, block sizes,
// byte moves by __byte_perm, streaming cache hints), each timed in turns with
// cudaMemcpy D2D after an L2 flush, as the benchmark times its rows, once the
// clocks have ramped up (a first version without that warm-up measured the
// copy at idle clocks). Every variant's output is checked against the
// square's low byte.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>
#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(err_)); exit(1);} } while (0)

struct alignas(16) Bytes16 { unsigned char v[16]; };

__device__ __forceinline__ uint32_t SquareWordCast(uint32_t w) {
  uint32_t r = 0;
#pragma unroll
  for (int k = 0; k < 4; ++k) { const uint32_t b = (w >> (8 * k)) & 0xFFu; r |= ((b * b) & 0xFFu) << (8 * k); }
  return r; }
// Each byte squared in its 32-bit lane, the four low bytes gathered by two byte permutes.
__device__ __forceinline__ uint32_t SquareWordPerm(uint32_t w) {
  const uint32_t b0 = __byte_perm(w, 0, 0x4440), b1 = __byte_perm(w, 0, 0x4441), b2 = __byte_perm(w, 0, 0x4442), b3 = __byte_perm(w, 0, 0x4443);
  const uint32_t lo = __byte_perm(b0 * b0, b1 * b1, 0x0040), hi = __byte_perm(b2 * b2, b3 * b3, 0x0040);
  return __byte_perm(lo, hi, 0x5410); }
// Even and odd bytes in 16-bit lanes: the low lane's product is exact, the high one's is taken alone.
__device__ __forceinline__ uint32_t SquareWordLanes(uint32_t w) {
  const uint32_t e = w & 0x00FF00FFu, o = (w >> 8) & 0x00FF00FFu;
  const uint32_t e0 = e & 0xFFu, e1 = e >> 16, o0 = o & 0xFFu, o1 = o >> 16;
  const uint32_t even = ((e0 * e0) & 0xFFu) | ((e1 * e1) << 16);
  const uint32_t odd = ((o0 * o0) & 0xFFu) | ((o1 * o1) << 16);
  return (even & 0x00FF00FFu) | ((odd & 0x00FF00FFu) << 8); }

template <int V> __device__ __forceinline__ uint4 SquarePack(uint4 p) {
  if constexpr (V == 0) return p; // copy
  else if constexpr (V == 1) { return make_uint4(SquareWordCast(p.x), SquareWordCast(p.y), SquareWordCast(p.z), SquareWordCast(p.w)); }
  else if constexpr (V == 2) { return make_uint4(SquareWordPerm(p.x), SquareWordPerm(p.y), SquareWordPerm(p.z), SquareWordPerm(p.w)); }
  else { return make_uint4(SquareWordLanes(p.x), SquareWordLanes(p.y), SquareWordLanes(p.z), SquareWordLanes(p.w)); } }

// K packs per thread, block-strided (coalesced), all loads before the stores.
template <int V, int K, int Hint> __global__ void Packs(size_t packs, const uint4* __restrict__ in, uint4* __restrict__ out) {
  const size_t base = size_t(blockIdx.x) * blockDim.x * K + threadIdx.x; uint4 r[K];
#pragma unroll
  for (int k = 0; k < K; ++k) { const size_t i = base + size_t(k) * blockDim.x; if (i < packs) r[k] = Hint ? __ldcs(in + i) : in[i]; }
#pragma unroll
  for (int k = 0; k < K; ++k) { const size_t i = base + size_t(k) * blockDim.x; if (i < packs) { const uint4 s = SquarePack<V>(r[k]); if (Hint) __stcs(out + i, s); else out[i] = s; } } }

// Each variant against the D2D copy, timed in turns run by run after an L2
// flush (as bench/ times its rows), once the clocks have ramped up.
struct Timer {
  cudaEvent_t a, b; void* flush; size_t flushBytes;
  Timer() { CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); int l2 = 0; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0)); flushBytes = std::max<size_t>(2 * size_t(l2), 64 << 20); CK(cudaMalloc(&flush, flushBytes)); }
  template <typename F> float Once(int run, F f) { CK(cudaMemsetAsync(flush, run & 0xff, flushBytes)); CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); return ms; }
  template <typename F, typename G> std::pair<float, float> InTurns(F f, G g, int runs = 30) {
    std::vector<float> x, y; for (int r = 0; r < runs + 3; ++r) { const float u = Once(r, f), v = Once(r, g); if (r >= 3) { x.push_back(u); y.push_back(v); } }
    std::sort(x.begin(), x.end()); std::sort(y.begin(), y.end()); return { x[x.size() / 2], y[y.size() / 2] }; } };

// K packs per thread with the library's arithmetic (each byte squared through uint32_t).
template <int K, int Hint> __global__ void LibraryK(size_t packs, const Bytes16* __restrict__ in, Bytes16* __restrict__ out) {
  const size_t base = size_t(blockIdx.x) * blockDim.x * K + threadIdx.x; Bytes16 r[K];
#pragma unroll
  for (int k = 0; k < K; ++k) { const size_t i = base + size_t(k) * blockDim.x; if (i < packs) { if (Hint) { const uint4 u = __ldcs(reinterpret_cast<const uint4*>(in) + i); r[k] = *reinterpret_cast<const Bytes16*>(&u); } else r[k] = in[i]; } }
#pragma unroll
  for (int k = 0; k < K; ++k) { const size_t i = base + size_t(k) * blockDim.x; if (i < packs) { Bytes16 o;
#pragma unroll
      for (int j = 0; j < 16; ++j) { const uint32_t u = r[k].v[j]; o.v[j] = static_cast<unsigned char>(u * u); }
      if (Hint) __stcs(reinterpret_cast<uint4*>(out) + i, *reinterpret_cast<const uint4*>(&o)); else out[i] = o; } } }

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? size_t(atoi(argv[1])) : 512, count = n * n * n, packs = count / 16;
  std::vector<unsigned char> host(count); for (size_t i = 0; i < count; ++i) host[i] = static_cast<unsigned char>(i * 2654435761u >> 13);
  unsigned char *in, *out; CK(cudaMalloc(&in, count)); CK(cudaMalloc(&out, count)); CK(cudaMemcpy(in, host.data(), count, cudaMemcpyHostToDevice));
  std::vector<unsigned char> back(count);
  const double traffic = 2.0 * count / 1e6;
  const auto copy = [&] { CK(cudaMemcpyAsync(out, in, count, cudaMemcpyDeviceToDevice)); };
  for (int r = 0; r < 3000; ++r) copy(); // ~200 ms: clocks up
  CK(cudaDeviceSynchronize());
  Timer timer;
  printf("uchar %zu^3, each variant in turns with cudaMemcpy D2D (L2 flushed before each run)\n", n);
  auto report = [&](const char* name, bool square, auto launch) {
    const auto t = timer.InTurns(copy, launch);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize()); CK(cudaMemcpy(back.data(), out, count, cudaMemcpyDeviceToHost));
    size_t bad = 0; for (size_t i = 0; i < count; ++i) { const unsigned u = host[i]; bad += back[i] != (square ? static_cast<unsigned char>(u * u) : host[i]); }
    printf("%-40s %.4f ms %8.1f GB/s, D2D %8.1f GB/s: %6.2f %% %s\n", name, t.second, traffic / t.second, traffic / t.first, 100.0 * t.first / t.second, bad ? "WRONG" : "ok"); };
  const auto* pi = reinterpret_cast<const uint4*>(in); auto* po = reinterpret_cast<uint4*>(out);
  const auto* bi = reinterpret_cast<const Bytes16*>(in); auto* bo = reinterpret_cast<Bytes16*>(out);
  auto blocks = [&](int threads, int k) { return unsigned((packs + size_t(threads) * k - 1) / (size_t(threads) * k)); };
  for (int threads : {256, 512}) {
    char b[64];
    snprintf(b, 64, "copy kernel 1/thread, %d", threads); report(b, false, [&] { Packs<0, 1, 0><<<blocks(threads, 1), threads>>>(packs, pi, po); });
    snprintf(b, 64, "copy kernel 2/thread, %d", threads); report(b, false, [&] { Packs<0, 2, 0><<<blocks(threads, 2), threads>>>(packs, pi, po); });
    snprintf(b, 64, "library 1/thread, %d", threads); report(b, true, [&] { LibraryK<1, 0><<<blocks(threads, 1), threads>>>(packs, bi, bo); });
    snprintf(b, 64, "library 2/thread, %d", threads); report(b, true, [&] { LibraryK<2, 0><<<blocks(threads, 2), threads>>>(packs, bi, bo); });
    snprintf(b, 64, "library 4/thread, %d", threads); report(b, true, [&] { LibraryK<4, 0><<<blocks(threads, 4), threads>>>(packs, bi, bo); });
    snprintf(b, 64, "library 1/thread, %d, cs hints", threads); report(b, true, [&] { LibraryK<1, 1><<<blocks(threads, 1), threads>>>(packs, bi, bo); });
    snprintf(b, 64, "library 2/thread, %d, cs hints", threads); report(b, true, [&] { LibraryK<2, 1><<<blocks(threads, 2), threads>>>(packs, bi, bo); });
    snprintf(b, 64, "byte_perm 1/thread, %d", threads); report(b, true, [&] { Packs<2, 1, 0><<<blocks(threads, 1), threads>>>(packs, pi, po); });
    snprintf(b, 64, "byte_perm 2/thread, %d", threads); report(b, true, [&] { Packs<2, 2, 0><<<blocks(threads, 2), threads>>>(packs, pi, po); });
  }
  CK(cudaFree(in)); CK(cudaFree(out)); return 0; }
