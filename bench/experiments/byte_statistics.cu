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
//   nvcc -std=c++17 -O3 -arch=sm_90 -o /tmp/byte_statistics byte_statistics.cu && /tmp/byte_statistics
// Where the statistics of 8-bit pixels (sum, sum of squares, minimum,
// maximum; issue 27 asks >= 90 % of a read-only kernel) lose their time: the
// per-pixel work or the fixed cost of a launch's end (the block's combine,
// the second launch that combines the blocks' partials). Variants over a
// 512^3 unsigned char buffer, each timed in turns with the benchmark's
// read-only kernel after an L2 flush, medians of 20 runs:
//   A  the library's fold (sums in integers per pack, extrema pixel by
//      pixel), shared-memory tree per block, a second launch for the partials
//   A1 A without the second launch (the cost of that launch)
//   B  four pixels an instruction: __dp4a sums and squares, Hopper's DPX
//      three-way 16x2 min/max on the bytes spread into 16-bit lanes; block
//      combine and second launch as A
//   C  B's fold, warp shuffles for the block's combine, the last block to
//      finish combining the partials (one launch; its counter zeroed by a
//      memset queued before it, in the timed span)
//   D  C with a counter that the last block resets (no memset)
//   X  the read-only kernel's fold (XOR) in C's structure: the structure's cost
// The float rows run the library's fold (A) and C's structure with it.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <type_traits>
#include <vector>
#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(err_)); exit(1);} } while (0)

constexpr unsigned int Threads = 256;

template <typename T> struct Stats { double Sum; double Squares; T Min; T Max; };

template <typename T>
__device__ __forceinline__ void Merge(Stats<T> & a, const Stats<T> & b)
{
  a.Sum += b.Sum; a.Squares += b.Squares;
  a.Min = b.Min < a.Min ? b.Min : a.Min;
  a.Max = b.Max > a.Max ? b.Max : a.Max;
}

template <typename T>
__device__ __forceinline__ Stats<T> ShuffleDown(const Stats<T> & s, unsigned int delta)
{
  Stats<T> o;
  o.Sum = __shfl_down_sync(0xffffffffu, s.Sum, delta);
  o.Squares = __shfl_down_sync(0xffffffffu, s.Squares, delta);
  if constexpr (std::is_integral<T>::value)
  {
    o.Min = static_cast<T>(__shfl_down_sync(0xffffffffu, static_cast<int>(s.Min), delta));
    o.Max = static_cast<T>(__shfl_down_sync(0xffffffffu, static_cast<int>(s.Max), delta));
  }
  else
  {
    o.Min = __shfl_down_sync(0xffffffffu, s.Min, delta);
    o.Max = __shfl_down_sync(0xffffffffu, s.Max, delta);
  }
  return o;
}

// Block combine by a shared-memory tree (the library's way).
template <typename T>
__device__ __forceinline__ Stats<T> TreeCombine(Stats<T> s)
{
  __shared__ Stats<T> shared[Threads];
  shared[threadIdx.x] = s;
  __syncthreads();
  for (unsigned int half = Threads / 2; half > 0; half /= 2)
  {
    if (threadIdx.x < half) Merge(shared[threadIdx.x], shared[threadIdx.x + half]);
    __syncthreads();
  }
  return shared[0];
}

// Block combine by warp shuffles, then the warps' results by warp 0.
template <typename T>
__device__ __forceinline__ Stats<T> ShuffleCombine(Stats<T> s)
{
  for (unsigned int d = 16; d > 0; d /= 2) Merge(s, ShuffleDown(s, d));
  __shared__ Stats<T> warps[Threads / 32];
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32)
  {
    s = warps[threadIdx.x < Threads / 32 ? threadIdx.x : 0];
    for (unsigned int d = Threads / 64; d > 0; d /= 2) Merge(s, ShuffleDown(s, d));
  }
  return s;
}

template <typename T>
__global__ void CombineKernel(const Stats<T> * partials, unsigned int count, Stats<T> * out)
{
  Stats<T> s = *out;
  if (threadIdx.x != 0) { s.Sum = 0; s.Squares = 0; }
  for (unsigned int i = threadIdx.x; i < count; i += blockDim.x) Merge(s, partials[i]);
  s = TreeCombine(s);
  if (threadIdx.x == 0) *out = s;
}

// The last block to finish combines every block's partial into *out.
template <typename T, bool SelfReset>
__device__ __forceinline__ void LastBlockCombines(Stats<T> s, Stats<T> * partials, unsigned int * counter, Stats<T> * out)
{
  __shared__ bool last;
  if (threadIdx.x == 0)
  {
    partials[blockIdx.x] = s;
    __threadfence();
    const unsigned int ticket = SelfReset ? atomicInc(counter, gridDim.x - 1) : atomicAdd(counter, 1u);
    last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  Stats<T> t = *out;
  if (threadIdx.x != 0) { t.Sum = 0; t.Squares = 0; }
  for (unsigned int i = threadIdx.x; i < gridDim.x; i += blockDim.x)
  {
    Stats<T> p;
    p.Sum = __ldcg(&partials[i].Sum);
    p.Squares = __ldcg(&partials[i].Squares);
    const volatile Stats<T> * v = &partials[i];
    p.Min = v->Min;
    p.Max = v->Max;
    Merge(t, p);
  }
  t = ShuffleCombine(t);
  if (threadIdx.x == 0) *out = t;
}

enum Fold { Library, Simd, Xor };
enum Finish { Tree, TreeNoCombine, LastMemset, LastSelfReset };

template <Fold F>
__device__ __forceinline__ void FoldU8(const uint4 & p, unsigned int & s32, unsigned int & q32, unsigned int & mn, unsigned int & mx)
{
  const unsigned int w[4] = { p.x, p.y, p.z, p.w };
  if constexpr (F == Simd)
  {
#pragma unroll
    for (int k = 0; k < 4; ++k)
    {
      s32 = __dp4a(w[k], 0x01010101u, s32);
      q32 = __dp4a(w[k], w[k], q32);
      const unsigned int lo = __byte_perm(w[k], 0, 0x4240);
      const unsigned int hi = __byte_perm(w[k], 0, 0x4341);
      mx = __vimax3_u16x2(mx, lo, hi);
      mn = __vimin3_u16x2(mn, lo, hi);
    }
  }
  else if constexpr (F == Library)
  {
    int sum = 0; unsigned int squares = 0;
#pragma unroll
    for (int k = 0; k < 16; ++k)
    {
      const int v = (w[k / 4] >> (8 * (k % 4))) & 0xff;
      sum += v; squares += static_cast<unsigned int>(v * v);
      mn = v < static_cast<int>(mn) ? v : mn;
      mx = v > static_cast<int>(mx) ? v : mx;
    }
    s32 += sum; q32 += squares;
  }
  else
  {
    s32 ^= w[0] ^ w[1] ^ w[2] ^ w[3];
  }
}

template <Fold F, Finish E>
__global__ void StatsU8(const uint4 * __restrict__ in, size_t words, Stats<unsigned char> * partials, unsigned int * counter,
                        Stats<unsigned char> * out)
{
  unsigned long long sum = 0, squares = 0;
  unsigned int mn = F == Simd ? 0x00ff00ffu : 0xffu, mx = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + stride < words; i += 2 * stride)
  {
    const uint4 a = in[i];
    const uint4 b = in[i + stride];
    unsigned int s32 = 0, q32 = 0;
    FoldU8<F>(a, s32, q32, mn, mx);
    FoldU8<F>(b, s32, q32, mn, mx);
    sum += s32; squares += q32;
  }
  if (i < words)
  {
    unsigned int s32 = 0, q32 = 0;
    FoldU8<F>(in[i], s32, q32, mn, mx);
    sum += s32; squares += q32;
  }
  if (F == Simd) { mn = min(mn & 0xffffu, mn >> 16); mx = max(mx & 0xffffu, mx >> 16); }
  Stats<unsigned char> s{ static_cast<double>(sum), static_cast<double>(squares), static_cast<unsigned char>(mn),
                          static_cast<unsigned char>(mx) };
  if constexpr (E == Tree || E == TreeNoCombine)
  {
    s = TreeCombine(s);
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
  }
  else
  {
    s = ShuffleCombine(s);
    LastBlockCombines<unsigned char, E == LastSelfReset>(s, partials, counter, out);
  }
}

template <Finish E>
__global__ void StatsF32(const float4 * __restrict__ in, size_t words, Stats<float> * partials, unsigned int * counter, Stats<float> * out)
{
  Stats<float> s{ 0.0, 0.0, 3.4e38f, -3.4e38f };
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  auto fold = [&](const float4 & p) {
    const float v[4] = { p.x, p.y, p.z, p.w };
#pragma unroll
    for (int k = 0; k < 4; ++k)
    {
      const double r = v[k];
      s.Sum += r; s.Squares = fma(r, r, s.Squares);
      s.Min = v[k] < s.Min ? v[k] : s.Min;
      s.Max = v[k] > s.Max ? v[k] : s.Max;
    }
  };
  for (; i + stride < words; i += 2 * stride)
  {
    const float4 a = in[i];
    const float4 b = in[i + stride];
    fold(a); fold(b);
  }
  if (i < words) fold(in[i]);
  if constexpr (E == Tree)
  {
    s = TreeCombine(s);
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
  }
  else
  {
    s = ShuffleCombine(s);
    LastBlockCombines<float, E == LastSelfReset>(s, partials, counter, out);
  }
}

__global__ void ReadAllKernel(const uint4 * in, size_t words, unsigned int * sink)
{
  unsigned int x = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + stride < words; i += 2 * stride)
  {
    const uint4 a = in[i];
    const uint4 b = in[i + stride];
    x ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w;
  }
  if (i < words) { const uint4 a = in[i]; x ^= a.x ^ a.y ^ a.z ^ a.w; }
  __shared__ unsigned int shared[256];
  shared[threadIdx.x] = x;
  __syncthreads();
  if (threadIdx.x == 0)
  {
    unsigned int all = 0;
    for (unsigned int k = 0; k < blockDim.x; ++k) all ^= shared[k];
    sink[blockIdx.x] = all;
  }
}

template <typename K>
unsigned int Resident(K kernel)
{
  int device = 0, sms = 0, perSm = 0;
  CK(cudaGetDevice(&device));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, Threads, 0));
  return std::min(4096u, static_cast<unsigned int>(sms * perSm));
}

struct Timer
{
  cudaEvent_t a, b;
  void * flush; size_t flushBytes = size_t{ 256 } << 20;
  Timer() { CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); CK(cudaMalloc(&flush, flushBytes)); }
  float Once(int run, const std::function<void()> & launch)
  {
    CK(cudaMemsetAsync(flush, run & 0xff, flushBytes));
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaGetLastError());
    float ms = 0; CK(cudaEventElapsedTime(&ms, a, b)); return ms;
  }
};

float Median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

int main()
{
  const size_t n = 512, count = n * n * n;
  Timer timer;
  unsigned int * sink = nullptr; unsigned int * counter = nullptr;
  CK(cudaMalloc(&sink, 4096 * sizeof(unsigned int)));
  CK(cudaMalloc(&counter, 16)); CK(cudaMemset(counter, 0, 16));
  void * partials = nullptr; CK(cudaMalloc(&partials, 4096 * sizeof(Stats<double>)));
  void * out = nullptr; CK(cudaMalloc(&out, 256));
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);

  auto runRows = [&](size_t bytes, const void * in, const char * name, const std::function<void()> & launch,
                     const std::function<void()> & reset, const std::function<bool()> & check) {
    const size_t words = bytes / 16;
    auto readAll = [&] { ReadAllKernel<<<4096, 256>>>(static_cast<const uint4 *>(in), words, sink); };
    reset(); launch(); CK(cudaDeviceSynchronize());
    const bool ok = check();
    std::vector<float> r, k;
    for (int run = 0; run < 25; ++run)
    {
      const float x = timer.Once(run, readAll);
      reset();
      const float y = timer.Once(run, launch);
      if (run >= 5) { r.push_back(x); k.push_back(y); }
    }
    const float mr = Median(r), mk = Median(k);
    printf("%-58s %8.2f us  read-only %8.2f us  %6.1f %%  %s\n", name, 1e3 * mk, 1e3 * mr, 100.0 * mr / mk, ok ? "ok" : "WRONG");
  };

  // 8-bit pixels.
  {
    const size_t bytes = count;
    std::vector<unsigned char> host(bytes);
    uint64_t x = 88172645463325252ull;
    for (auto & v : host) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; v = static_cast<unsigned char>(3 + x % 250); }
    double sum = 0, sq = 0; unsigned char mn = 255, mx = 0;
    for (auto v : host) { sum += v; sq += double(v) * v; mn = std::min(mn, v); mx = std::max(mx, v); }
    void * in = nullptr; CK(cudaMalloc(&in, bytes)); CK(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));
    using S = Stats<unsigned char>;
    auto * o = static_cast<S *>(out); auto * p = static_cast<S *>(partials);
    const S init{ 0.0, 0.0, 255, 0 };
    auto reset = [&] { CK(cudaMemcpyAsync(o, &init, sizeof(S), cudaMemcpyHostToDevice)); };
    auto check = [&] { S r; CK(cudaMemcpy(&r, o, sizeof(S), cudaMemcpyDeviceToHost));
      return r.Sum == sum && r.Squares == sq && r.Min == mn && r.Max == mx; };
    auto noCheck = [] { return true; };
    const size_t words = bytes / 16;
    auto rowTree = [&](auto kernel, const char * name, bool combine) {
      const unsigned int blocks = Resident(kernel);
      char label[128]; snprintf(label, sizeof label, "%s (%u blocks)", name, blocks);
      runRows(bytes, in, label, [&, kernel, blocks, combine] {
        kernel<<<blocks, Threads>>>(static_cast<const uint4 *>(in), words, p, counter, o);
        if (combine) CombineKernel<<<1, Threads>>>(p, blocks, o);
      }, reset, combine ? std::function<bool()>(check) : std::function<bool()>(noCheck));
    };
    auto rowLast = [&](auto kernel, const char * name, bool memset, bool checked) {
      const unsigned int blocks = Resident(kernel);
      char label[128]; snprintf(label, sizeof label, "%s (%u blocks)", name, blocks);
      runRows(bytes, in, label, [&, kernel, blocks, memset] {
        if (memset) CK(cudaMemsetAsync(counter, 0, 4));
        kernel<<<blocks, Threads>>>(static_cast<const uint4 *>(in), words, p, counter, o);
      }, reset, checked ? std::function<bool()>(check) : std::function<bool()>(noCheck));
    };
    for (int pass = 0; pass < 2; ++pass)
    {
      printf("-- unsigned char, 512^3, pass %d\n", pass + 1);
      rowTree(StatsU8<Library, Tree>, "A  library fold, tree, 2nd launch", true);
      rowTree(StatsU8<Library, TreeNoCombine>, "A1 library fold, tree, no 2nd launch", false);
      rowTree(StatsU8<Simd, Tree>, "B  dp4a+DPX fold, tree, 2nd launch", true);
      rowTree(StatsU8<Simd, TreeNoCombine>, "B1 dp4a+DPX fold, tree, no 2nd launch", false);
      CK(cudaMemset(counter, 0, 4));
      rowLast(StatsU8<Library, LastSelfReset>, "A2 library fold, shuffles, last block (self reset)", false, true);
      rowLast(StatsU8<Simd, LastMemset>, "C  dp4a+DPX fold, shuffles, last block (memset)", true, true);
      CK(cudaMemset(counter, 0, 4));
      rowLast(StatsU8<Simd, LastSelfReset>, "D  dp4a+DPX fold, shuffles, last block (self reset)", false, true);
      rowLast(StatsU8<Xor, LastSelfReset>, "X  XOR fold, shuffles, last block (self reset)", false, false);
    }
    CK(cudaFree(in));
  }
  // float pixels.
  {
    const size_t bytes = count * 4;
    std::vector<float> host(count);
    uint64_t x = 88172645463325252ull;
    for (auto & v : host) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; v = static_cast<float>(x % 100000) * 1e-3f - 50.0f; }
    void * in = nullptr; CK(cudaMalloc(&in, bytes)); CK(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));
    double sum = 0; float mn = 1e30f, mx = -1e30f;
    for (auto v : host) { sum += v; mn = std::min(mn, v); mx = std::max(mx, v); }
    using S = Stats<float>;
    auto * o = static_cast<S *>(out); auto * p = static_cast<S *>(partials);
    const S init{ 0.0, 0.0, 3.4e38f, -3.4e38f };
    auto reset = [&] { CK(cudaMemcpyAsync(o, &init, sizeof(S), cudaMemcpyHostToDevice)); };
    auto check = [&] { S r; CK(cudaMemcpy(&r, o, sizeof(S), cudaMemcpyDeviceToHost));
      return std::abs(r.Sum - sum) < 1e-6 * count && r.Min == mn && r.Max == mx; };
    const size_t words = bytes / 16;
    for (int pass = 0; pass < 2; ++pass)
    {
      printf("-- float, 512^3, pass %d\n", pass + 1);
      {
        const unsigned int blocks = Resident(StatsF32<Tree>);
        runRows(bytes, in, "F  library fold, tree, 2nd launch", [&, blocks] {
          StatsF32<Tree><<<blocks, Threads>>>(static_cast<const float4 *>(in), words, p, counter, o);
          CombineKernel<<<1, Threads>>>(p, blocks, o);
        }, reset, check);
      }
      {
        CK(cudaMemset(counter, 0, 4));
        const unsigned int blocks = Resident(StatsF32<LastSelfReset>);
        runRows(bytes, in, "FD library fold, shuffles, last block (self reset)", [&, blocks] {
          StatsF32<LastSelfReset><<<blocks, Threads>>>(static_cast<const float4 *>(in), words, p, counter, o);
        }, reset, check);
      }
    }
    CK(cudaFree(in));
  }
  return 0;
}
