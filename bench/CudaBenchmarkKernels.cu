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
#include "CudaBenchmarkKernels.hcu"
#include "itkCudaKernelLaunch.hcu"

#include <algorithm>
#include <cmath>

namespace CudaBenchmark
{
namespace
{
__global__ void
IterateAffineKernel(const float * in, float * out, size_t count, unsigned int iterations)
{
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
  {
    float x = in[i];
    for (unsigned int k = 0; k < iterations; ++k)
    {
      x = __fmaf_rn(x, 0.75f, 0.25f);
    }
    out[i] = x;
  }
}

// XOR of every word read, per block: nothing the compiler may drop, no work
// beyond the loads.
__global__ void
ReadAllKernel(const uint4 * in, size_t words, unsigned int * sink)
{
  unsigned int x = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t       i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + stride < words; i += 2 * stride)
  {
    const uint4 a = in[i];
    const uint4 b = in[i + stride];
    x ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w;
  }
  if (i < words)
  {
    const uint4 a = in[i];
    x ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  __shared__ unsigned int shared[256];
  shared[threadIdx.x] = x;
  __syncthreads();
  if (threadIdx.x == 0)
  {
    unsigned int all = 0;
    for (unsigned int k = 0; k < blockDim.x; ++k)
    {
      all ^= shared[k];
    }
    sink[blockIdx.x] = all;
  }
}
} // namespace

void
ReadAll(const void * in, size_t bytes, unsigned int * sink, cudaStream_t stream)
{
  constexpr unsigned int blockSize = 256;
  const size_t           words = bytes / sizeof(uint4);
  const unsigned int     blocks = std::min(itk::CudaGridSizeForElements(words, blockSize), ReadAllBlocks);
  ReadAllKernel<<<blocks, blockSize, 0, stream>>>(static_cast<const uint4 *>(in), words, sink);
  CUDA_CHECK_KERNEL_LAUNCH("ReadAll");
}

void
IterateAffine(const float * in, float * out, size_t count, unsigned int iterations, cudaStream_t stream)
{
  if (count == 0)
  {
    return;
  }
  constexpr unsigned int blockSize = 256;
  IterateAffineKernel<<<itk::CudaGridSizeForElements(count, blockSize), blockSize, 0, stream>>>(in, out, count,
                                                                                              iterations);
  CUDA_CHECK_KERNEL_LAUNCH("IterateAffine");
}

float
IterateAffineOnHost(float value, unsigned int iterations)
{
  for (unsigned int k = 0; k < iterations; ++k)
  {
    const float next = std::fmaf(value, 0.75f, 0.25f);
    if (next == value)
    {
      break; // a fixed point (1.0 after about a hundred iterations): the rest change nothing
    }
    value = next;
  }
  return value;
}
} // namespace CudaBenchmark
