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
// shared memory once (the boundary condition applied there; several loads in
// flight per thread), then each thread computes P consecutive outputs of a
// line from a window of P values in registers: per tap, one value read from
// the tile and converted to double, P fused multiply-adds. The sums are ITK's
// (t ascending, in double); a pass reads and writes each pixel of the buffer
// once from device memory, plus the halo. Along x a block computes rows of
// 256 to 2048 pixels (several rows of a short line at once), the tile laid
// out by phase (see RowSlot) so that a window's reads need no address
// arithmetic; along a strided axis, 32 neighbouring columns (coalesced) by 64
// positions along the axis. The taps run in whole rounds of P with no test a
// tap.

namespace itk
{
namespace
{
struct Weights
{
  double       Values[CudaMaximumConvolutionTaps];
  double       Total; // the sum of the weights
  unsigned int Taps;
  unsigned int Radius;
};

constexpr unsigned int LoadBatch = 8; // tile loads in flight a thread: its outputs' count

/** Position i of a line of `length` pixels `stride` apart, for i past the
 * line's ends: what the boundary condition reads there (Crop reads 0: the sum
 * leaves it out). */
template <typename TPixel>
__device__ inline TPixel
ReadPast(const TPixel * line, long long i, long long length, size_t stride, CudaBoundary boundary, TPixel constant)
{
  const long long p = CudaBoundaryPosition(i, length, boundary);
  if (p >= 0)
  {
    return line[static_cast<size_t>(p) * stride];
  }
  return boundary == CudaBoundary::Constant ? constant : TPixel{};
}

/** Copies positions first .. first + span - 1 of a line of `length` pixels
 * `stride` apart to the tile, at tile[Slot(j)] for position first + j, the
 * positions past the line's ends by the boundary condition. */
template <typename TPixel, typename TSlot>
__device__ inline void
LoadTile(TPixel *       tile,
         const TPixel * line,
         long long      first,
         unsigned       span,
         long long      length,
         size_t         stride,
         CudaBoundary   boundary,
         TPixel         constant,
         unsigned       lane,
         unsigned       lanes,
         TSlot          Slot)
{
  const size_t step = static_cast<size_t>(lanes) * stride;
  // Positions jBegin .. jEnd - 1 of the tile are inside the line (all of
  // them for most tiles along a long axis): the `lanes` threads load them
  // LoadBatch at a time in flight, each behind one test (the tile's outputs,
  // lanes * LoadBatch), then the rest of the halo; last, what the boundary
  // condition puts past the line's ends.
  const long long spanEnd = static_cast<long long>(span);
  const long long inside = length - first; // positions of the span before the line's end
  const unsigned  jBegin = static_cast<unsigned>(first >= 0 ? 0 : -first < spanEnd ? -first : spanEnd);
  const unsigned  jEnd = static_cast<unsigned>(inside <= jBegin ? jBegin : inside < spanEnd ? inside : spanEnd);
  const TPixel *  from = line + (static_cast<size_t>(first + jBegin) + lane) * stride;
  TPixel          value[LoadBatch];
#pragma unroll
  for (unsigned k = 0; k < LoadBatch; ++k)
  {
    value[k] = jBegin + k * lanes + lane < jEnd ? *from : TPixel{};
    from += step;
  }
#pragma unroll
  for (unsigned k = 0; k < LoadBatch; ++k)
  {
    const unsigned j = jBegin + k * lanes + lane;
    if (j < jEnd)
    {
      tile[Slot(j)] = value[k];
    }
  }
  for (unsigned j = jBegin + LoadBatch * lanes + lane; j < jEnd; j += lanes)
  {
    tile[Slot(j)] = *from;
    from += step;
  }
  for (unsigned j = lane; j < jBegin; j += lanes)
  {
    tile[Slot(j)] = ReadPast(line, first + j, length, stride, boundary, constant);
  }
  for (unsigned j = jEnd + lane; j < span; j += lanes)
  {
    tile[Slot(j)] = ReadPast(line, first + j, length, stride, boundary, constant);
  }
}

/** The P outputs at positions o0 .. o0 + P - 1 (o0 a multiple of P) of a
 * tile whose position base + k is tile[Slot.At(base, k)] for base a multiple
 * of P (the tile's position 0 is radius before output 0; the tile has one
 * slot past its span): a window of P values in registers, ring-indexed so
 * that every index is known at compile time. */
template <unsigned P, typename TPixel, typename TSlot>
__device__ inline void
Accumulate(double (&sum)[P], const TPixel * tile, unsigned o0, const Weights & w, TSlot Slot)
{
  double window[P];
#pragma unroll
  for (unsigned k = 0; k < P; ++k)
  {
    sum[k] = 0.0;
    window[k] = static_cast<double>(tile[Slot.At(o0, k)]);
  }
  // Before tap t, window[(p - o0) % P] is the tile's position p for p in [o0 + t, o0 + t + P).
  // Whole rounds of P taps first, with no test a tap (the window's load after
  // the last tap reads the slot past the span, which the tile has), then the
  // last Taps % P.
  unsigned t0 = 0;
  for (; t0 + P <= w.Taps; t0 += P)
  {
#pragma unroll
    for (unsigned u = 0; u < P; ++u)
    {
      const double weight = w.Values[t0 + u];
#pragma unroll
      for (unsigned k = 0; k < P; ++k)
      {
        sum[k] += weight * window[(k + u) % P];
      }
      window[u] = static_cast<double>(tile[Slot.At(o0 + t0, u + P)]);
    }
  }
#pragma unroll
  for (unsigned u = 0; u + 1 < P; ++u)
  {
    if (t0 + u >= w.Taps)
    {
      break;
    }
    const double weight = w.Values[t0 + u];
#pragma unroll
    for (unsigned k = 0; k < P; ++k)
    {
      sum[k] += weight * window[(k + u) % P];
    }
    window[u] = static_cast<double>(tile[Slot.At(o0 + t0, u + P)]);
  }
}

/** For CudaBoundary::Crop: the sum over the taps inside the line, divided by
 * their weights (a mean over what is inside, for weights of 1). */
__device__ inline double
Cropped(double sum, long long i, long long length, const Weights & w)
{
  const long long radius = static_cast<long long>(w.Radius);
  if (i >= radius && i + radius < length)
  {
    return sum / w.Total;
  }
  double inside = 0.0;
  for (unsigned t = 0; t < w.Taps; ++t)
  {
    const long long j = i + static_cast<long long>(t) - radius;
    inside += j >= 0 && j < length ? w.Values[t] : 0.0;
  }
  return sum / inside;
}

constexpr unsigned int RowBlock = 256;
constexpr unsigned int RowOutputs = 8; // per thread

/** The tile's position j along x: the RowOutputs positions j % RowOutputs
 * (the phases) each in a run of Stride slots, Stride = 4 mod 8, so that
 * lanes reading positions RowOutputs apart, and 32 lanes writing 32
 * consecutive positions, meet distinct banks; a window's position at a
 * compile-time offset from a multiple of RowOutputs is a constant offset. */
struct RowSlot
{
  unsigned Stride;
  static __host__ __device__ unsigned
  StrideFor(unsigned slots)
  {
    const unsigned run = (slots + RowOutputs - 1) / RowOutputs; // at least
    return run + (12 - run % 8) % 8;
  }
  __device__ unsigned
  operator()(unsigned j) const
  {
    return j % RowOutputs * Stride + j / RowOutputs;
  }
  __device__ unsigned
  At(unsigned base, unsigned k) const // base a multiple of RowOutputs
  {
    return k % RowOutputs * Stride + base / RowOutputs + k / RowOutputs;
  }
};

/** Along x: a block is RowBlock / lanes groups of `lanes` threads, each
 * group a tile of lanes * RowOutputs outputs of a row; blockIdx.x the tile
 * along the row, blockIdx.y the rows (grid-stride). */
template <typename TPixel>
__global__ void
__launch_bounds__(RowBlock) ConvolveRows(TPixel * __restrict__       out,
                                         const TPixel * __restrict__ in,
                                         CudaConvolutionAxis         axis,
                                         Weights                     w,
                                         CudaBoundary                boundary,
                                         TPixel                      constant,
                                         unsigned int                lanes)
{
  extern __shared__ unsigned char sharedBytes[];
  const unsigned  groups = RowBlock / lanes;
  const unsigned  group = threadIdx.x / lanes;
  const unsigned  lane = threadIdx.x % lanes;
  const unsigned  tile = lanes * RowOutputs;
  const unsigned  span = tile + 2 * w.Radius;
  const RowSlot   slot{ RowSlot::StrideFor(span + 1) }; // a slot past the span: Accumulate()
  TPixel *        shared = reinterpret_cast<TPixel *>(sharedBytes) + group * RowOutputs * slot.Stride;
  const long long length = static_cast<long long>(axis.Length);
  const long long radius = static_cast<long long>(w.Radius);
  const long long start = static_cast<long long>(blockIdx.x) * tile;
  for (size_t first = static_cast<size_t>(blockIdx.y) * groups; first < axis.Outer;
       first += static_cast<size_t>(gridDim.y) * groups)
  {
    const size_t   row = first + group;
    const bool     inside = row < axis.Outer;
    const TPixel * line = in + row * axis.Length;
    __syncthreads(); // the tile of the last rows is written out
    if (inside)
    {
      LoadTile(shared, line, start - radius, span, length, 1, boundary, constant, lane, lanes, slot);
    }
    __syncthreads();
    double sum[RowOutputs];
    if (inside)
    {
      Accumulate<RowOutputs>(sum, shared, lane * RowOutputs, w, slot);
    }
    __syncthreads(); // every thread has read its window: the tile takes the outputs
    if (inside)
    {
#pragma unroll
      for (unsigned k = 0; k < RowOutputs; ++k)
      {
        const long long i = start + lane * RowOutputs + k;
        const double    value = boundary == CudaBoundary::Crop ? Cropped(sum[k], i, length, w) : sum[k];
        shared[slot(lane * RowOutputs + k)] = static_cast<TPixel>(value);
      }
    }
    __syncthreads();
    if (inside)
    {
      TPixel * target = out + row * axis.Length;
      for (unsigned o = lane; o < tile && start + o < length; o += lanes)
      {
        target[start + o] = shared[slot(o)];
      }
    }
  }
}

constexpr unsigned int ColumnWidth = 32;   // neighbouring columns (x), one warp
constexpr unsigned int ColumnRows = 8;     // warps per block
constexpr unsigned int ColumnOutputs = 8; // per thread, consecutive along the axis
constexpr unsigned int ColumnTile = ColumnRows * ColumnOutputs;
static_assert(RowOutputs == LoadBatch && ColumnOutputs == LoadBatch,
              "LoadTile loads a thread's count of outputs first: every position of it is in the span");

/** The tile's position j of this thread's column. */
struct ColumnSlot
{
  unsigned Column;
  __device__ unsigned
  operator()(unsigned j) const
  {
    return j * ColumnWidth + Column;
  }
  __device__ unsigned
  At(unsigned base, unsigned k) const
  {
    return (base + k) * ColumnWidth + Column;
  }
};

/** Along a strided axis: blockIdx.x a tile of 64 positions along the axis
 * (the fastest, so that a tile's halo was just read by the tile before it and
 * is still in L2) of a group of 32 columns, blockIdx.z the outer index
 * (grid-stride). */
template <typename TPixel>
__global__ void
__launch_bounds__(ColumnWidth * ColumnRows) ConvolveColumns(TPixel * __restrict__       out,
                                                            const TPixel * __restrict__ in,
                                                            CudaConvolutionAxis         axis,
                                                            Weights                     w,
                                                            CudaBoundary                boundary,
                                                            TPixel                      constant)
{
  extern __shared__ unsigned char sharedBytes[];
  TPixel *         tile = reinterpret_cast<TPixel *>(sharedBytes); // [span][ColumnWidth]
  const long long  length = static_cast<long long>(axis.Length);
  const long long  radius = static_cast<long long>(w.Radius);
  const unsigned   tiles = static_cast<unsigned>((axis.Length + ColumnTile - 1) / ColumnTile);
  const size_t     column = static_cast<size_t>(blockIdx.x / tiles) * ColumnWidth + threadIdx.x;
  const long long  start = static_cast<long long>(blockIdx.x % tiles) * ColumnTile;
  const unsigned   span = ColumnTile + 2 * w.Radius;
  const bool       inside = column < axis.Inner;
  const ColumnSlot slot{ threadIdx.x };
  for (size_t outer = blockIdx.z; outer < axis.Outer; outer += gridDim.z)
  {
    const size_t   base = outer * axis.Length * axis.Inner + column;
    const TPixel * line = in + base;
    __syncthreads();
    if (inside)
    {
      LoadTile(tile, line, start - radius, span, length, axis.Inner, boundary, constant, threadIdx.y, ColumnRows, slot);
    }
    __syncthreads();
    if (!inside)
    {
      continue;
    }
    const unsigned o0 = threadIdx.y * ColumnOutputs;
    double         sum[ColumnOutputs];
    Accumulate<ColumnOutputs>(sum, tile, o0, w, slot);
    const long long first = start + o0;
    TPixel *        target = out + base + static_cast<size_t>(first) * axis.Inner;
#pragma unroll
    for (unsigned k = 0; k < ColumnOutputs; ++k)
    {
      const long long i = first + k;
      if (i < length)
      {
        const double value = boundary == CudaBoundary::Crop ? Cropped(sum[k], i, length, w) : sum[k];
        *target = static_cast<TPixel>(value);
      }
      target += axis.Inner;
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
  for (unsigned int t = 0; t < taps; ++t)
  {
    w.Total += weights[t];
  }
  w.Taps = taps;
  w.Radius = taps / 2;
  const TPixel value = static_cast<TPixel>(constant);
  if (axis.Inner == 1)
  {
    // Lanes per row: enough for the row in one tile where it fits, 32 to RowBlock.
    unsigned int lanes = 32;
    while (lanes < RowBlock && static_cast<size_t>(lanes) * RowOutputs < axis.Length)
    {
      lanes *= 2;
    }
    const unsigned int groups = RowBlock / lanes;
    const unsigned int tile = lanes * RowOutputs;
    const size_t       shared = groups * RowOutputs * RowSlot::StrideFor(tile + 2 * w.Radius + 1) * sizeof(TPixel);
    // About 20 blocks an SM take the rows in turn (grid-stride): a block's
    // setup is paid once for many rows, not once a group (9 % of the x pass
    // at 512^3 on an H100).
    int device = 0;
    int processors = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&processors, cudaDevAttrMultiProcessorCount, device));
    const size_t rowBlocks = std::min<size_t>(65535, 20 * static_cast<size_t>(std::max(processors, 1)));
    const dim3   grid(GridCap((axis.Length + tile - 1) / tile, 0x7fffffff),
                    GridCap((axis.Outer + groups - 1) / groups, rowBlocks));
    ConvolveRows<TPixel><<<grid, RowBlock, shared, stream>>>(out, in, axis, w, boundary, value, lanes);
    CUDA_CHECK_KERNEL_LAUNCH("ConvolveRows");
    return;
  }
  const size_t shared = (ColumnTile + 2 * w.Radius + 1) * ColumnWidth * sizeof(TPixel);
  if (shared > 48 * 1024)
  {
    CUDA_CHECK(cudaFuncSetAttribute(ConvolveColumns<TPixel>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(shared)));
  }
  const size_t tiles = (axis.Length + ColumnTile - 1) / ColumnTile;
  const size_t groups = (axis.Inner + ColumnWidth - 1) / ColumnWidth;
  if (tiles * groups > 0x7fffffff)
  {
    CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__,
                   "CudaConvolveAxisAsync: more than 2^31 - 1 tiles of 32 x 64 pixels across a strided axis");
  }
  const dim3 grid(static_cast<unsigned>(tiles * groups), 1, GridCap(axis.Outer, 65535));
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
