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
//   nvcc -std=c++17 -O3 -arch=sm_90 -o /tmp/strided_box_copy strided_box_copy.cu && /tmp/strided_box_copy
// What a strided box copy (the crop of a 480^3 float box out of 512^3, the
// region filters' device work) can reach against cudaMemcpy D2D of the same
// bytes (issue 27's region rows): a flat copy kernel of the same shape (the
// kernel's own cost without a stride), the box copied row by row in 16-byte
// words, a warp a row, and the box one pixel further (rows 4 bytes past 16)
// copied in 4-byte words or realigned through warp shuffles into 16-byte
// words. Each row timed in turns with cudaMemcpy D2D of the output's bytes
// after an L2 flush, medians of 20 runs; every output checked.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>
#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(err_)); exit(1);} } while (0)

constexpr unsigned int Threads = 256;
constexpr unsigned int N = 512, Box = 480;

// Flat copy of `words` 16-byte words, grid-stride, two words in flight.
__global__ void FlatCopy(const float4 * __restrict__ in, float4 * __restrict__ out, unsigned int words)
{
  const unsigned int stride = gridDim.x * blockDim.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + stride < words; i += 2 * stride)
  {
    const float4 a = in[i];
    const float4 b = in[i + stride];
    out[i] = a;
    out[i + stride] = b;
  }
  if (i < words) out[i] = in[i];
}

// A warp a row of the box: 16-byte words when the offset allows (Shift 0),
// else Shift floats past a 16-byte word realigned through shuffles, or
// (Words4) 4-byte words.
template <unsigned int Shift, bool Words4>
__global__ void BoxRows(const float * __restrict__ in, float * __restrict__ out, unsigned int offset)
{
  const unsigned int lane = threadIdx.x % 32;
  const unsigned int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const unsigned int warps = gridDim.x * blockDim.x / 32;
  constexpr unsigned int rowWords = Box / 4;
  for (unsigned int row = warp; row < Box * Box; row += warps)
  {
    const unsigned int y = row % Box, z = row / Box;
    const float * src = in + (static_cast<size_t>(z + offset) * N + (y + offset)) * N + offset;
    float * dst = out + static_cast<size_t>(row) * Box;
    if constexpr (Words4)
    {
      for (unsigned int x = lane; x < Box; x += 32) dst[x] = src[x];
    }
    else if constexpr (Shift == 0)
    {
      const float4 * s = reinterpret_cast<const float4 *>(src);
      float4 * d = reinterpret_cast<float4 *>(dst);
      for (unsigned int w = lane; w < rowWords; w += 32) d[w] = s[w];
    }
    else
    {
      const float4 * s = reinterpret_cast<const float4 *>(src - Shift);  // aligned words covering the row
      float4 * d = reinterpret_cast<float4 *>(dst);
      for (unsigned int base = 0; base < rowWords; base += 32)
      {
        const unsigned int w = base + lane;
        float4 a = w <= rowWords ? s[w] : float4{};
        float4 b;
        b.x = __shfl_down_sync(0xffffffffu, a.x, 1);
        b.y = __shfl_down_sync(0xffffffffu, a.y, 1);
        b.z = __shfl_down_sync(0xffffffffu, a.z, 1);
        if (lane == 31 && w + 1 <= rowWords) b = s[w + 1];
        if (w < rowWords)
        {
          float4 r;
          if (Shift == 1) r = float4{ a.y, a.z, a.w, b.x };
          if (Shift == 2) r = float4{ a.z, a.w, b.x, b.y };
          if (Shift == 3) r = float4{ a.w, b.x, b.y, b.z };
          d[w] = r;
        }
      }
    }
  }
}

template <typename K>
unsigned int Resident(K kernel)
{
  int sms = 0, perSm = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, Threads, 0));
  return static_cast<unsigned int>(sms * perSm);
}

float Median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

int main()
{
  const size_t count = size_t{ N } * N * N, boxCount = size_t{ Box } * Box * Box, boxBytes = boxCount * 4;
  std::vector<float> host(count);
  for (size_t i = 0; i < count; ++i) host[i] = static_cast<float>(i % 1000003);
  float *in = nullptr, *out = nullptr, *copy = nullptr;
  CK(cudaMalloc(&in, count * 4)); CK(cudaMalloc(&out, boxBytes)); CK(cudaMalloc(&copy, boxBytes));
  CK(cudaMemcpy(in, host.data(), count * 4, cudaMemcpyHostToDevice));
  void * flush = nullptr; const size_t flushBytes = size_t{ 256 } << 20; CK(cudaMalloc(&flush, flushBytes));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  printf("device %s, %d SMs; box %u^3 of %u^3 float\n", prop.name, prop.multiProcessorCount, Box, N);
  auto once = [&](int run, const std::function<void()> & f) {
    CK(cudaMemsetAsync(flush, run & 0xff, flushBytes));
    CK(cudaEventRecord(e0)); f(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
    float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1)); return ms;
  };
  auto checkBox = [&](unsigned int offset) {
    std::vector<float> got(boxCount);
    CK(cudaMemcpy(got.data(), out, boxBytes, cudaMemcpyDeviceToHost));
    for (size_t z = 0; z < Box; ++z) for (size_t y = 0; y < Box; ++y) for (size_t x = 0; x < Box; ++x)
      if (got[(z * Box + y) * Box + x] != host[((z + offset) * N + y + offset) * N + x + offset]) return false;
    return true;
  };
  auto row = [&](const char * name, const std::function<void()> & f, const std::function<bool()> & check) {
    CK(cudaMemset(out, 0, boxBytes)); f(); CK(cudaDeviceSynchronize());
    const bool ok = check();
    std::vector<float> a, b;
    for (int run = 0; run < 25; ++run)
    {
      const float x = once(run, [&] { CK(cudaMemcpyAsync(copy, out, boxBytes, cudaMemcpyDeviceToDevice)); });
      const float y = once(run, f);
      if (run >= 5) { a.push_back(x); b.push_back(y); }
    }
    const float ma = Median(a), mb = Median(b);
    printf("%-60s %8.2f us  D2D %8.2f us (%7.1f GB/s)  %6.1f %%  %s\n", name, 1e3 * mb, 1e3 * ma, 2 * boxBytes / ma / 1e6,
           100.0 * ma / mb, ok ? "ok" : "WRONG");
  };
  for (int pass = 0; pass < 2; ++pass)
  {
    printf("-- pass %d\n", pass + 1);
    const unsigned int words = static_cast<unsigned int>(boxBytes / 16);
    for (unsigned int mult : { 1u, 2u })
    {
      const unsigned int blocks = Resident(FlatCopy) / mult;
      char label[96]; snprintf(label, sizeof label, "flat copy kernel, same bytes (%u blocks)", blocks);
      row(label, [&, blocks] { FlatCopy<<<blocks, Threads>>>(reinterpret_cast<const float4 *>(copy), reinterpret_cast<float4 *>(out), words); },
          [] { return true; });
    }
    const unsigned int blocks = Resident(BoxRows<0, false>);
    row("box rows, offset 16, 16-byte words, a warp a row", [&] { BoxRows<0, false><<<blocks, Threads>>>(in, out, 16); },
        [&] { return checkBox(16); });
    row("box rows, offset 16, 4-byte words, a warp a row", [&] { BoxRows<0, true><<<blocks, Threads>>>(in, out, 16); },
        [&] { return checkBox(16); });
    row("box rows, offset 17, 4-byte words, a warp a row", [&] { BoxRows<0, true><<<blocks, Threads>>>(in, out, 17); },
        [&] { return checkBox(17); });
    row("box rows, offset 17, realigned by shuffles, 16-byte words", [&] { BoxRows<1, false><<<blocks, Threads>>>(in, out, 17); },
        [&] { return checkBox(17); });
    cudaMemcpy3DParms p{};
    p.srcPtr = make_cudaPitchedPtr(in, N * 4, N, N);
    p.srcPos = make_cudaPos(16 * 4, 16, 16);
    p.dstPtr = make_cudaPitchedPtr(out, Box * 4, Box, Box);
    p.extent = make_cudaExtent(Box * 4, Box, Box);
    p.kind = cudaMemcpyDeviceToDevice;
    row("cudaMemcpy3DAsync, offset 16", [&] { CK(cudaMemcpy3DAsync(&p)); }, [&] { return checkBox(16); });
  }
  return 0;
}
