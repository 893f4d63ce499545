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
#include "itkCudaKernelLaunch.hcu"
#include "itkCudaPixelReduction.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

// How the reductions run: one launch of a grid-stride kernel (as many
// blocks of BlockSize threads as stay resident, at most MaxBlocks), each
// thread folding its pixels in the order of their positions, two packs of 16
// bytes in flight, into its own statistics; the block's threads combine
// theirs in shared memory and write one partial result per block; a second
// launch of one block combines the partials into the accumulator. The order
// of the sums is fixed by the grid, so a device gives the same result every
// time.

namespace itk
{
namespace
{
constexpr unsigned int BlockSize = 256;
constexpr unsigned int MaxBlocks = 4096;

template <typename T, unsigned int N>
struct alignas(sizeof(T) * N) Pack
{
  T Value[N];
};

template <typename T>
constexpr unsigned int PixelsPerPack = sizeof(T) <= 16 && 16 % sizeof(T) == 0 ? 16 / sizeof(T) : 1;

template <typename T, unsigned int N>
size_t
PixelsBeforeAlignedPack(const T * pointer)
{
  constexpr size_t packBytes = sizeof(T) * N;
  return (packBytes - reinterpret_cast<uintptr_t>(pointer) % packBytes) % packBytes / sizeof(T);
}

/** Fold one pixel at `position` into `s`, as ITK's iterators compare. */
template <bool WithPositions, typename T>
__device__ __forceinline__ void
Fold(CudaPixelStatistics<T> & s, T value, unsigned long long position)
{
  const double real = static_cast<double>(value);
  s.Sum += real;
  s.SumOfSquares = fma(real, real, s.SumOfSquares);
  if (value < s.Minimum)
  {
    s.Minimum = value;
    if (WithPositions)
    {
      s.PositionOfMinimum = position;
    }
  }
  if (value > s.Maximum)
  {
    s.Maximum = value;
    if (WithPositions)
    {
      s.PositionOfMaximum = position;
    }
  }
}

/** Fold a pack of N pixels, the first at `position`: as N calls of Fold, the
 * pack's extrema found before one position is computed; the sums of 8-bit
 * pixels added in integers first (exact, so equal to the sums in double). */
template <bool WithPositions, typename T, unsigned int N>
__device__ __forceinline__ void
FoldPack(CudaPixelStatistics<T> & s, const Pack<T, N> & pack, unsigned long long position)
{
  T   minimum = s.Minimum;
  T   maximum = s.Maximum;
  int minimumAt = -1;
  int maximumAt = -1;
  if constexpr (sizeof(T) == 1 && std::is_integral<T>::value)
  {
    int          sum = 0;     // |sum| < 16 * 256
    unsigned int squares = 0; // < 16 * 65536
#pragma unroll
    for (unsigned int j = 0; j < N; ++j)
    {
      const int value = pack.Value[j];
      sum += value;
      squares += static_cast<unsigned int>(value * value);
    }
    s.Sum += static_cast<double>(sum);
    s.SumOfSquares += static_cast<double>(squares);
  }
  else
  {
#pragma unroll
    for (unsigned int j = 0; j < N; ++j)
    {
      const double real = static_cast<double>(pack.Value[j]);
      s.Sum += real;
      s.SumOfSquares = fma(real, real, s.SumOfSquares);
    }
  }
#pragma unroll
  for (unsigned int j = 0; j < N; ++j)
  {
    const T value = pack.Value[j];
    if (value < minimum)
    {
      minimum = value;
      minimumAt = static_cast<int>(j);
    }
    if (value > maximum)
    {
      maximum = value;
      maximumAt = static_cast<int>(j);
    }
  }
  s.Minimum = minimum;
  s.Maximum = maximum;
  if (WithPositions)
  {
    if (minimumAt >= 0)
    {
      s.PositionOfMinimum = position + static_cast<unsigned int>(minimumAt);
    }
    if (maximumAt >= 0)
    {
      s.PositionOfMaximum = position + static_cast<unsigned int>(maximumAt);
    }
  }
}

/** Combine `b` into `a`: of equal extrema, the one of the smaller position. */
template <bool WithPositions, typename T>
__device__ __forceinline__ void
Combine(CudaPixelStatistics<T> & a, const CudaPixelStatistics<T> & b)
{
  a.Sum += b.Sum;
  a.SumOfSquares += b.SumOfSquares;
  if (b.Minimum < a.Minimum || (WithPositions && b.Minimum == a.Minimum && b.PositionOfMinimum < a.PositionOfMinimum))
  {
    a.Minimum = b.Minimum;
    a.PositionOfMinimum = b.PositionOfMinimum;
  }
  if (b.Maximum > a.Maximum || (WithPositions && b.Maximum == a.Maximum && b.PositionOfMaximum < a.PositionOfMaximum))
  {
    a.Maximum = b.Maximum;
    a.PositionOfMaximum = b.PositionOfMaximum;
  }
}

/** The statistics of the block's threads, combined into thread 0's. */
template <bool WithPositions, typename T>
__device__ __forceinline__ void
CombineBlock(CudaPixelStatistics<T> & s)
{
  __shared__ CudaPixelStatistics<T> shared[BlockSize];
  shared[threadIdx.x] = s;
  __syncthreads();
  for (unsigned int half = BlockSize / 2; half > 0; half /= 2)
  {
    if (threadIdx.x < half)
    {
      Combine<WithPositions>(shared[threadIdx.x], shared[threadIdx.x + half]);
    }
    __syncthreads();
  }
  s = shared[0];
}

/** A compact run of `count` pixels from `in`, the first at `first`. */
template <bool WithPositions, typename T>
__global__ void
ReduceRun(const T * __restrict__ in,
          size_t                   count,
          size_t                   head,
          unsigned long long       first,
          CudaPixelStatistics<T>   initial,
          CudaPixelStatistics<T> * partials)
{
  constexpr unsigned int N = PixelsPerPack<T>;
  CudaPixelStatistics<T> s = initial;
  const size_t           thread = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t           stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  if (thread < head)
  {
    Fold<WithPositions>(s, in[thread], first + thread);
  }
  const size_t packs = (count - head) / N;
  const auto * packed = reinterpret_cast<const Pack<T, N> *>(in + head);
  size_t       k = thread;
  for (; k + stride < packs; k += 2 * stride)
  {
    const Pack<T, N> a = packed[k];
    const Pack<T, N> b = packed[k + stride];
    FoldPack<WithPositions>(s, a, first + head + k * N);
    FoldPack<WithPositions>(s, b, first + head + (k + stride) * N);
  }
  if (k < packs)
  {
    FoldPack<WithPositions>(s, packed[k], first + head + k * N);
  }
  const size_t tail = head + packs * N + thread;
  if (tail < count)
  {
    Fold<WithPositions>(s, in[tail], first + tail);
  }
  CombineBlock<WithPositions>(s);
  if (threadIdx.x == 0)
  {
    partials[blockIdx.x] = s;
  }
}

/** A box whose rows are apart in memory: a block per row at a time. */
template <bool WithPositions, typename T>
__global__ void
ReduceBox(const T * __restrict__ in,
          CudaRegionGeometry       geometry,
          unsigned long long       first,
          CudaPixelStatistics<T>   initial,
          CudaPixelStatistics<T> * partials)
{
  CudaPixelStatistics<T> s = initial;
  const size_t           width = geometry.OutputSize[0];
  const size_t           rows = geometry.OutputSize[1] * geometry.OutputSize[2];
  for (size_t row = blockIdx.x; row < rows; row += gridDim.x)
  {
    const size_t y = row % geometry.OutputSize[1] + geometry.Offset[1];
    const size_t z = row / geometry.OutputSize[1] + geometry.Offset[2];
    const T *    line = in + (z * geometry.InputSize[1] + y) * geometry.InputSize[0] + geometry.Offset[0];
    for (size_t x = threadIdx.x; x < width; x += blockDim.x)
    {
      Fold<WithPositions>(s, line[x], first + row * width + x);
    }
  }
  CombineBlock<WithPositions>(s);
  if (threadIdx.x == 0)
  {
    partials[blockIdx.x] = s;
  }
}

/** One block: the partials of a launch, combined into the accumulator. */
template <bool WithPositions, typename T>
__global__ void
CombinePartials(const CudaPixelStatistics<T> * partials,
                unsigned int                   count,
                CudaPixelStatistics<T>         initial,
                CudaPixelStatistics<T> *       accumulator)
{
  CudaPixelStatistics<T> s = initial;
  for (unsigned int i = threadIdx.x; i < count; i += blockDim.x)
  {
    Combine<WithPositions>(s, partials[i]);
  }
  CombineBlock<WithPositions>(s);
  if (threadIdx.x == 0)
  {
    CudaPixelStatistics<T> total = *accumulator;
    Combine<WithPositions>(total, s);
    *accumulator = total;
  }
}

// Blocks for `work` items of `kernel`: no more than stay resident on the
// device at once (each walks its share grid-stride, so no partial last wave
// of blocks runs at a fraction of the occupancy), nor than MaxBlocks.
template <typename TKernel>
unsigned int
BlocksFor(TKernel kernel, size_t work)
{
  return static_cast<unsigned int>(std::min<size_t>(
    { CudaGridSizeForElements(std::max<size_t>(work, 1), BlockSize), CudaResidentBlocks(kernel, BlockSize), MaxBlocks }));
}

template <bool WithPositions, typename T>
void
Reduce(const T *                  in,
       const CudaRegionGeometry & geometry,
       unsigned long long         firstPosition,
       T                          initialMinimum,
       T                          initialMaximum,
       CudaPixelStatistics<T> *   accumulator,
       void *                     scratch,
       cudaStream_t               stream)
{
  const size_t count = geometry.OutputSize[0] * geometry.OutputSize[1] * geometry.OutputSize[2];
  if (count == 0)
  {
    return;
  }
  for (unsigned int d = 0; d < 3; ++d)
  {
    if (geometry.Offset[d] + geometry.OutputSize[d] > geometry.InputSize[d])
    {
      CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__, "CudaReducePixelsAsync: the box leaves the buffer");
    }
  }
  // The identity of the fold: no sums, the initial extrema (those of ITK's
  // filters, NumericTraits max() and NonpositiveMin()), no positions.
  CudaPixelStatistics<T> initial{};
  initial.Minimum = initialMinimum;
  initial.Maximum = initialMaximum;
  initial.PositionOfMinimum = CudaPixelNotFound;
  initial.PositionOfMaximum = CudaPixelNotFound;

  auto *       partials = static_cast<CudaPixelStatistics<T> *>(scratch);
  const bool   rowsTouch = geometry.OutputSize[0] == geometry.InputSize[0] || geometry.OutputSize[1] * geometry.OutputSize[2] == 1;
  const bool   slicesTouch = geometry.OutputSize[1] == geometry.InputSize[1] || geometry.OutputSize[2] == 1;
  unsigned int blocks = 0;
  if (rowsTouch && slicesTouch)
  {
    const T * run =
      in + (geometry.Offset[2] * geometry.InputSize[1] + geometry.Offset[1]) * geometry.InputSize[0] + geometry.Offset[0];
    constexpr unsigned int N = PixelsPerPack<T>;
    const size_t           head = std::min(PixelsBeforeAlignedPack<T, N>(run), count);
    blocks = BlocksFor(ReduceRun<WithPositions, T>, (count - head) / N);
    ReduceRun<WithPositions><<<blocks, BlockSize, 0, stream>>>(run, count, head, firstPosition, initial, partials);
    CUDA_CHECK_KERNEL_LAUNCH("ReduceRun");
  }
  else
  {
    blocks = BlocksFor(ReduceBox<WithPositions, T>, geometry.OutputSize[1] * geometry.OutputSize[2] * BlockSize);
    ReduceBox<WithPositions><<<blocks, BlockSize, 0, stream>>>(in, geometry, firstPosition, initial, partials);
    CUDA_CHECK_KERNEL_LAUNCH("ReduceBox");
  }
  CombinePartials<WithPositions><<<1, BlockSize, 0, stream>>>(partials, blocks, initial, accumulator);
  CUDA_CHECK_KERNEL_LAUNCH("CombinePartials");
}

/** The sum of the block's threads' `value`s, for thread 0. */
__device__ __forceinline__ double
BlockSum(double value)
{
  __shared__ double shared[BlockSize];
  shared[threadIdx.x] = value;
  __syncthreads();
  for (unsigned int half = BlockSize / 2; half > 0; half /= 2)
  {
    if (threadIdx.x < half)
    {
      shared[threadIdx.x] += shared[threadIdx.x + half];
    }
    __syncthreads();
  }
  return shared[0];
}

/** Packs of N pixels of both `a` and `b` from `head` on (N = 1: pixels one
 * by one, for pointers that are not aligned alike). */
template <unsigned int N, typename T>
__global__ void
DotRun(const T * __restrict__ a, const T * __restrict__ b, size_t count, size_t head, double * partials)
{
  double       sum = 0.0;
  const size_t thread = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  if (thread < head)
  {
    sum = static_cast<double>(a[thread]) * static_cast<double>(b[thread]);
  }
  const size_t packs = (count - head) / N;
  const auto * packedA = reinterpret_cast<const Pack<T, N> *>(a + head);
  const auto * packedB = reinterpret_cast<const Pack<T, N> *>(b + head);
  for (size_t k = thread; k < packs; k += stride)
  {
    const Pack<T, N> x = packedA[k];
    const Pack<T, N> y = packedB[k];
#pragma unroll
    for (unsigned int j = 0; j < N; ++j)
    {
      sum = fma(static_cast<double>(x.Value[j]), static_cast<double>(y.Value[j]), sum);
    }
  }
  const size_t tail = head + packs * N + thread;
  if (tail < count)
  {
    sum = fma(static_cast<double>(a[tail]), static_cast<double>(b[tail]), sum);
  }
  const double total = BlockSum(sum);
  if (threadIdx.x == 0)
  {
    partials[blockIdx.x] = total;
  }
}

__global__ void
SumPartials(const double * partials, unsigned int count, double * result)
{
  double sum = 0.0;
  for (unsigned int i = threadIdx.x; i < count; i += blockDim.x)
  {
    sum += partials[i];
  }
  const double total = BlockSum(sum);
  if (threadIdx.x == 0)
  {
    *result = total;
  }
}
} // namespace

template <typename T>
size_t
CudaPixelReductionScratchBytes()
{
  return MaxBlocks * std::max(sizeof(CudaPixelStatistics<T>), sizeof(double));
}

template <typename T>
void
CudaReducePixelsAsync(const T *                  in,
                      const CudaRegionGeometry & geometry,
                      unsigned long long         firstPosition,
                      bool                       withPositions,
                      T                          initialMinimum,
                      T                          initialMaximum,
                      CudaPixelStatistics<T> *   accumulator,
                      void *                     scratch,
                      cudaStream_t               stream)
{
  if (withPositions)
  {
    Reduce<true>(in, geometry, firstPosition, initialMinimum, initialMaximum, accumulator, scratch, stream);
  }
  else
  {
    Reduce<false>(in, geometry, firstPosition, initialMinimum, initialMaximum, accumulator, scratch, stream);
  }
}

template <typename T>
void
CudaDotProductAsync(const T * a, const T * b, size_t count, double * result, void * scratch, cudaStream_t stream)
{
  auto *                 partials = static_cast<double *>(scratch);
  constexpr unsigned int N = PixelsPerPack<T>;
  const size_t           head = std::min(PixelsBeforeAlignedPack<T, N>(a), count);
  unsigned int           blocks = 0;
  if (head == std::min(PixelsBeforeAlignedPack<T, N>(b), count))
  {
    blocks = BlocksFor(DotRun<N, T>, (count - head) / N);
    DotRun<N><<<blocks, BlockSize, 0, stream>>>(a, b, count, head, partials);
  }
  else
  {
    blocks = BlocksFor(DotRun<1, T>, count);
    DotRun<1><<<blocks, BlockSize, 0, stream>>>(a, b, count, 0, partials);
  }
  CUDA_CHECK_KERNEL_LAUNCH("DotRun");
  SumPartials<<<1, BlockSize, 0, stream>>>(partials, blocks, result);
  CUDA_CHECK_KERNEL_LAUNCH("SumPartials");
}

#define ITK_CUDA_REDUCTION_INSTANTIATE(T)                                                                           \
  template CudaCommon_EXPORT size_t CudaPixelReductionScratchBytes<T>();                                             \
  template CudaCommon_EXPORT void   CudaReducePixelsAsync<T>(                                                        \
    const T *, const CudaRegionGeometry &, unsigned long long, bool, T, T, CudaPixelStatistics<T> *, void *, cudaStream_t)

ITK_CUDA_REDUCTION_INSTANTIATE(unsigned char);
ITK_CUDA_REDUCTION_INSTANTIATE(short);
ITK_CUDA_REDUCTION_INSTANTIATE(unsigned short);
ITK_CUDA_REDUCTION_INSTANTIATE(int);
ITK_CUDA_REDUCTION_INSTANTIATE(unsigned int);
ITK_CUDA_REDUCTION_INSTANTIATE(unsigned long);
ITK_CUDA_REDUCTION_INSTANTIATE(float);
ITK_CUDA_REDUCTION_INSTANTIATE(double);
template CudaCommon_EXPORT void
CudaDotProductAsync<float>(const float *, const float *, size_t, double *, void *, cudaStream_t);
template CudaCommon_EXPORT void
CudaDotProductAsync<double>(const double *, const double *, size_t, double *, void *, cudaStream_t);
} // namespace itk
