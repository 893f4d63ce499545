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
#include "itkCudaSeparableConvolution.hcu"

#include <algorithm>

// A pass loads a tile of the lines it computes, with the kernel's halo, into
// shared memory once (the boundary condition applied there), then each
// thread sums its outputs from the tile: a read and a write of each pixel
// per pass from device memory, plus the halo. Along x a block computes 1024
// consecutive pixels of a row at most; along a strided axis, 32 neighbouring
// columns (coalesced) by 128 positions along the axis.

namespace itk
{
namespace
{
struct Weights
{
  double       Values[CudaMaximumConvolutionTaps];
  unsigned int Taps;
  unsigned int Radius;
};

/** The pixel at i (-radius <= i < length + radius) of a line of `length`
 * pixels `stride` apart, by the boundary condition. */
template <typename TPixel>
__device__ inline TPixel
Read(const TPixel * line, long long i, long long length, size_t stride, CudaBoundary boundary, TPixel constant)
{
  if (i < 0 || i >= length)
  {
    switch (boundary)
    {
      case CudaBoundary::Constant:
        return constant;
      case CudaBoundary::Periodic:
        i %= length;
        i += i < 0 ? length : 0;
        break;
      default:
        i = i < 0 ? 0 : length - 1;
    }
  }
  return line[static_cast<size_t>(i) * stride];
}

constexpr unsigned int RowThreads = 256;
constexpr unsigned int MaximumRowOutputs = 4; // per thread

/** Along x: blockIdx.x a tile of `tile` outputs of a row (RowThreads times
 * 1 to 4, as the row's length asks), blockIdx.y the rows (grid-stride). */
template <typename TPixel>
__global__ void
ConvolveRows(TPixel * __restrict__       out,
             const TPixel * __restrict__ in,
             CudaConvolutionAxis         axis,
             Weights                     w,
             CudaBoundary                boundary,
             TPixel                      constant,
             unsigned int                tile)
{
  extern __shared__ unsigned char sharedBytes[];
  TPixel *        shared = reinterpret_cast<TPixel *>(sharedBytes);
  const long long length = static_cast<long long>(axis.Length);
  const long long radius = static_cast<long long>(w.Radius);
  const long long start = static_cast<long long>(blockIdx.x) * tile;
  const unsigned  span = tile + 2 * w.Radius;
  const bool      interior = start - radius >= 0 && start - radius + span <= length;
  for (size_t row = blockIdx.y; row < axis.Outer; row += gridDim.y)
  {
    const TPixel * line = in + row * axis.Length;
    __syncthreads(); // the tile of the last row is read
    if (interior)
    {
      for (unsigned j = threadIdx.x; j < span; j += RowThreads)
      {
        shared[j] = line[start - radius + j];
      }
    }
    else
    {
      for (unsigned j = threadIdx.x; j < span; j += RowThreads)
      {
        const long long i = start - radius + j;
        shared[j] = i < length + radius ? Read(line, i, length, 1, boundary, constant) : TPixel{};
      }
    }
    __syncthreads();
    for (unsigned o = threadIdx.x; o < tile; o += RowThreads)
    {
      const long long i = start + o;
      if (i < length)
      {
        double sum = 0.0;
        for (unsigned t = 0; t < w.Taps; ++t)
        {
          sum += w.Values[t] * static_cast<double>(shared[o + t]);
        }
        out[row * axis.Length + static_cast<size_t>(i)] = static_cast<TPixel>(sum);
      }
    }
  }
}

constexpr unsigned int ColumnWidth = 32;   // neighbouring columns (x), one warp
constexpr unsigned int ColumnRows = 8;     // warps per block
constexpr unsigned int ColumnOutputs = 16; // per thread
constexpr unsigned int ColumnTile = ColumnRows * ColumnOutputs;

/** Along a strided axis: blockIdx.x a group of 32 columns, blockIdx.y a tile
 * of 128 positions along the axis, blockIdx.z the outer index (grid-stride). */
template <typename TPixel>
__global__ void
ConvolveColumns(TPixel * __restrict__       out,
                const TPixel * __restrict__ in,
                CudaConvolutionAxis         axis,
                Weights                     w,
                CudaBoundary                boundary,
                TPixel                      constant)
{
  extern __shared__ unsigned char sharedBytes[];
  TPixel *        tile = reinterpret_cast<TPixel *>(sharedBytes); // [span][ColumnWidth]
  const long long length = static_cast<long long>(axis.Length);
  const long long radius = static_cast<long long>(w.Radius);
  const size_t    column = static_cast<size_t>(blockIdx.x) * ColumnWidth + threadIdx.x;
  const long long start = static_cast<long long>(blockIdx.y) * ColumnTile;
  const unsigned  span = ColumnTile + 2 * w.Radius;
  const bool      inside = column < axis.Inner;
  const bool      interior = start - radius >= 0 && start - radius + span <= length;
  for (size_t outer = blockIdx.z; outer < axis.Outer; outer += gridDim.z)
  {
    const size_t   base = outer * axis.Length * axis.Inner + column;
    const TPixel * line = in + base;
    __syncthreads();
    if (inside && interior)
    {
      const TPixel * first = line + static_cast<size_t>(start - radius) * axis.Inner;
      for (unsigned j = threadIdx.y; j < span; j += ColumnRows)
      {
        tile[j * ColumnWidth + threadIdx.x] = first[static_cast<size_t>(j) * axis.Inner];
      }
    }
    else
    {
      for (unsigned j = threadIdx.y; j < span; j += ColumnRows)
      {
        const long long i = start - radius + j;
        tile[j * ColumnWidth + threadIdx.x] =
          inside && i < length + radius ? Read(line, i, length, axis.Inner, boundary, constant) : TPixel{};
      }
    }
    __syncthreads();
    if (!inside)
    {
      continue;
    }
    for (unsigned k = 0; k < ColumnOutputs; ++k)
    {
      const unsigned  o = threadIdx.y + k * ColumnRows;
      const long long i = start + o;
      if (i < length)
      {
        double sum = 0.0;
        for (unsigned t = 0; t < w.Taps; ++t)
        {
          sum += w.Values[t] * static_cast<double>(tile[(o + t) * ColumnWidth + threadIdx.x]);
        }
        out[base + static_cast<size_t>(i) * axis.Inner] = static_cast<TPixel>(sum);
      }
    }
  }
}

unsigned int
GridCap(size_t blocks, size_t cap)
{
  return static_cast<unsigned int>(std::max<size_t>(1, std::min(blocks, cap)));
}
} // namespace

template <typename TPixel>
void
CudaConvolveAxisAsync(TPixel *                    out,
                      const TPixel *              in,
                      const CudaConvolutionAxis & axis,
                      const double *              weights,
                      unsigned int                taps,
                      CudaBoundary                boundary,
                      double                      constant,
                      cudaStream_t                stream)
{
  if (taps == 0 || taps % 2 == 0 || taps > CudaMaximumConvolutionTaps)
  {
    CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__,
                   "CudaConvolveAxisAsync: a kernel of an odd number of taps, at most 255, is needed");
  }
  if (axis.Inner * axis.Length * axis.Outer == 0)
  {
    return;
  }
  Weights w{};
  std::copy(weights, weights + taps, w.Values);
  w.Taps = taps;
  w.Radius = taps / 2;
  const TPixel value = static_cast<TPixel>(constant);
  if (axis.Inner == 1)
  {
    const unsigned int perThread = static_cast<unsigned int>(
      std::min<size_t>(MaximumRowOutputs, std::max<size_t>(1, (axis.Length + RowThreads - 1) / RowThreads)));
    const unsigned int tile = RowThreads * perThread;
    const size_t       shared = (tile + 2 * w.Radius) * sizeof(TPixel);
    const dim3         grid(GridCap((axis.Length + tile - 1) / tile, 0x7fffffff), GridCap(axis.Outer, 65535));
    ConvolveRows<TPixel><<<grid, RowThreads, shared, stream>>>(out, in, axis, w, boundary, value, tile);
    CUDA_CHECK_KERNEL_LAUNCH("ConvolveRows");
    return;
  }
  const size_t shared = (ColumnTile + 2 * w.Radius) * ColumnWidth * sizeof(TPixel);
  if (shared > 48 * 1024)
  {
    CUDA_CHECK(cudaFuncSetAttribute(ConvolveColumns<TPixel>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(shared)));
  }
  const dim3 grid(GridCap((axis.Inner + ColumnWidth - 1) / ColumnWidth, 0x7fffffff),
                  GridCap((axis.Length + ColumnTile - 1) / ColumnTile, 65535),
                  GridCap(axis.Outer, 65535));
  if ((axis.Length + ColumnTile - 1) / ColumnTile > 65535)
  {
    CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__,
                   "CudaConvolveAxisAsync: more than 8388480 pixels along a strided axis");
  }
  ConvolveColumns<TPixel><<<grid, dim3(ColumnWidth, ColumnRows), shared, stream>>>(out, in, axis, w, boundary, value);
  CUDA_CHECK_KERNEL_LAUNCH("ConvolveColumns");
}

template CudaCommon_EXPORT void
CudaConvolveAxisAsync<float>(float *, const float *, const CudaConvolutionAxis &, const double *, unsigned int,
                             CudaBoundary, double, cudaStream_t);
template CudaCommon_EXPORT void
CudaConvolveAxisAsync<double>(double *, const double *, const CudaConvolutionAxis &, const double *, unsigned int,
                              CudaBoundary, double, cudaStream_t);
} // namespace itk
