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
#include "itkCudaBoxFilter.hcu"

#include <algorithm>

// A block computes a tile of 32 x 16 outputs (x, y) through a run of planes
// along z: for each input plane it loads the tile with its x-y halo into
// shared memory (the next plane's loads in flight while this one is summed),
// sums along x, then along y, and keeps the plane sums of its pixels in a
// ring of 2 rz + 1 planes (in registers for the unrolled radii); an output is
// the sum of its ring, oldest plane first, once the planes of its box are in. The input is read about once from device memory (the
// halos of neighbouring tiles and runs mostly from L2), the output written
// once; no intermediate volume. Sums in double, as the passes'.

namespace itk
{
namespace
{
constexpr unsigned int BoxX = 32;          // outputs along x a block (a warp)
constexpr unsigned int BoxY = 16;          // outputs along y a block
constexpr unsigned int BoxThreads = 256;   // 8 warps, each thread two outputs along y
constexpr unsigned int BoxLoads = 8;       // tile pixels a thread: the tile's at most BoxLoads * BoxThreads
constexpr size_t       BoxShared = 96 * 1024; // at most, so that two blocks fit an SM
constexpr unsigned int BoxOutputs = BoxX * BoxY;
static_assert(BoxOutputs == 2 * BoxThreads, "two outputs a thread");

/** The box's positions inside [0, length) around position i. */
__device__ inline double
InsideCount(long long i, long long radius, long long length)
{
  const long long first = i - radius < 0 ? 0 : i - radius;
  const long long last = i + radius >= length ? length - 1 : i + radius;
  return static_cast<double>(last - first + 1);
}

struct SharedLayout
{
  size_t Rows;  // doubles: [BoxY + 2 ry][BoxX]
  size_t Tile;  // doubles: [BoxY + 2 ry][BoxX + 2 rx]
  size_t Ring;  // doubles: [2 rz + 1][BoxOutputs], the loops' form only
  size_t Bytes; // all three
};

inline SharedLayout
Layout(const CudaBoxGeometry & g)
{
  SharedLayout l{};
  l.Ring = (2 * static_cast<size_t>(g.Radius[2]) + 1) * BoxOutputs;
  l.Rows = (BoxY + 2 * static_cast<size_t>(g.Radius[1])) * BoxX;
  l.Tile = (BoxY + 2 * static_cast<size_t>(g.Radius[1])) * (BoxX + 2 * static_cast<size_t>(g.Radius[0]));
  l.Bytes = (l.Ring + l.Rows + l.Tile) * sizeof(double);
  return l;
}

/** R > 0: a radius of R along every axis, known at compile time (the loops
 * over the box unrolled, the ring of plane sums in registers); R = 0: the
 * geometry's radii (the ring in shared memory). */
template <typename TPixel, unsigned int R>
__global__ void
__launch_bounds__(BoxThreads) BoxFilter(TPixel * __restrict__       out,
                                        const TPixel * __restrict__ in,
                                        CudaBoxGeometry             g,
                                        double                      scale,
                                        CudaBoundary                boundary,
                                        TPixel                      constant,
                                        unsigned int                planes)
{
  extern __shared__ double sharedDoubles[];
  __builtin_assume(threadIdx.x < BoxThreads);
  // The tile pixels a thread loads: known at compile time for R > 0.
  constexpr unsigned Loads = R > 0 ? ((BoxY + 2 * R) * (BoxX + 2 * R) + BoxThreads - 1) / BoxThreads : BoxLoads;
  static_assert(Loads <= BoxLoads, "a tile of BoxLoads pixels a thread at most");
  const unsigned  rx = R > 0 ? R : g.Radius[0];
  const unsigned  ry = R > 0 ? R : g.Radius[1];
  const unsigned  rz = R > 0 ? R : g.Radius[2];
  const unsigned  width = BoxX + 2 * rx;
  const unsigned  rows = BoxY + 2 * ry;
  const unsigned  depth = 2 * rz + 1;
  const unsigned  tilePixels = rows * width;
  double *        rowSums = sharedDoubles;        // [rows][BoxX]
  double *        tile = rowSums + rows * BoxX;   // [rows][width], converted once
  double *        sharedRing = tile + tilePixels; // R = 0: [depth][BoxOutputs]
  const long long inX = static_cast<long long>(g.InputSize[0]);
  const long long inY = static_cast<long long>(g.InputSize[1]);
  const long long inZ = static_cast<long long>(g.InputSize[2]);
  const size_t    x0 = static_cast<size_t>(blockIdx.x) * BoxX;
  const size_t    y0 = static_cast<size_t>(blockIdx.y) * BoxY;
  const long long q0 = static_cast<long long>(blockIdx.z) * planes; // the first output plane
  const long long outZ = static_cast<long long>(g.OutputSize[2]);
  const long long q1 = q0 + planes < outZ ? q0 + planes : outZ;
  const long long end = q1 + rz; // past the last input plane of the run
  const TPixel    fill = boundary == CudaBoundary::Constant ? constant : TPixel{};

  // The in-plane offsets of this thread's tile pixels (-1: the fill), the
  // same in every plane (a plane has fewer than 2^31 pixels).
  int source[Loads];
#pragma unroll
  for (unsigned k = 0; k < Loads; ++k)
  {
    const unsigned e = threadIdx.x + k * BoxThreads;
    source[k] = -1;
    if (e < tilePixels)
    {
      const long long left = static_cast<long long>(x0 + g.Offset[0]) - rx;
      const long long top = static_cast<long long>(y0 + g.Offset[1]) - ry;
      const long long x = CudaBoundaryPosition(left + e % width, inX, boundary);
      const long long y = CudaBoundaryPosition(top + e / width, inY, boundary);
      source[k] = x < 0 || y < 0 ? -1 : static_cast<int>(y * inX + x);
    }
  }
  TPixel     next[Loads];
  const auto load = [&](long long p) { // input plane of output plane p
    const long long z = CudaBoundaryPosition(p + static_cast<long long>(g.Offset[2]), inZ, boundary);
    const TPixel *  plane = in + static_cast<size_t>(z < 0 ? 0 : z) * static_cast<size_t>(inX * inY);
#pragma unroll
    for (unsigned k = 0; k < Loads; ++k)
    {
      if (threadIdx.x + k * BoxThreads < tilePixels)
      {
        next[k] = z >= 0 && source[k] >= 0 ? plane[source[k]] : fill;
      }
    }
  };

  // This thread's two outputs: one column, two adjacent rows (their sums
  // along y share 2 ry of their 2 ry + 1 row sums).
  const unsigned column = threadIdx.x % BoxX;
  const unsigned row = 2 * (threadIdx.x / BoxX);
  const size_t   planeSize = g.OutputSize[0] * g.OutputSize[1];
  size_t         target[2];
  bool           inside[2];
  double         cropXY[2]; // CudaBoundary::Crop: the box's pixels inside the buffer along x and y
#pragma unroll
  for (unsigned o = 0; o < 2; ++o)
  {
    const size_t x = x0 + column;
    const size_t y = y0 + row + o;
    inside[o] = x < g.OutputSize[0] && y < g.OutputSize[1];
    target[o] = y * g.OutputSize[0] + x;
    cropXY[o] = InsideCount(static_cast<long long>(x + g.Offset[0]), rx, inX) *
                InsideCount(static_cast<long long>(y + g.Offset[1]), ry, inY);
  }

  // The sums over x and y of the box around this thread's outputs in input
  // plane p (its loads issued by the step before), the next plane's loads
  // started.
  const auto planeSums = [&](long long p, double (&sums)[2]) {
    __syncthreads(); // the last plane's tile and row sums are read
#pragma unroll
    for (unsigned k = 0; k < Loads; ++k)
    {
      const unsigned e = threadIdx.x + k * BoxThreads;
      if (e < tilePixels)
      {
        tile[e] = static_cast<double>(next[k]);
      }
    }
    __syncthreads();
    if (p + 1 < end)
    {
      load(p + 1); // in flight while this plane is summed
    }
    for (unsigned e = threadIdx.x; e < rows * BoxX; e += BoxThreads)
    {
      const double * from = tile + (e / BoxX) * width + e % BoxX;
      double         sum = 0.0;
      for (unsigned t = 0; t <= 2 * rx; ++t)
      {
        sum += from[t];
      }
      rowSums[e] = sum;
    }
    __syncthreads();
    const double * from = rowSums + row * BoxX + column;
    double         first = from[0];
    double         second = 0.0;
    for (unsigned t = 1; t <= 2 * ry; ++t)
    {
      const double value = from[t * BoxX];
      first += value;
      second += value;
    }
    sums[0] = first;
    sums[1] = second + from[(2 * ry + 1) * BoxX];
  };
  // Output plane q from the sums of its box's planes.
  const auto write = [&](long long q, const double (&sums)[2]) {
    const double cropZ =
      boundary == CudaBoundary::Crop ? InsideCount(q + static_cast<long long>(g.Offset[2]), rz, inZ) : 1.0;
#pragma unroll
    for (unsigned o = 0; o < 2; ++o)
    {
      if (inside[o])
      {
        const double value = boundary == CudaBoundary::Crop ? sums[o] / (cropXY[o] * cropZ) : sums[o] * scale;
        out[static_cast<size_t>(q) * planeSize + target[o]] = static_cast<TPixel>(value);
      }
    }
  };

  load(q0 - rz);
  if constexpr (R > 0)
  {
    // The ring in registers: the plane loop unrolled by the ring's length,
    // so that every slot is known at compile time; an output sums its
    // planes oldest first.
    constexpr unsigned Depth = 2 * R + 1;
    double             ring[Depth][2];
    for (long long p = q0 - R;;)
    {
#pragma unroll
      for (unsigned s = 0; s < Depth; ++s, ++p)
      {
        if (p >= end)
        {
          return;
        }
        planeSums(p, ring[s]);
        if (p - static_cast<long long>(R) >= q0)
        {
          double sums[2] = { 0.0, 0.0 };
#pragma unroll
          for (unsigned k = 1; k <= Depth; ++k)
          {
            sums[0] += ring[(s + k) % Depth][0];
            sums[1] += ring[(s + k) % Depth][1];
          }
          write(p - R, sums);
        }
      }
    }
  }
  else
  {
    // Each thread's ring slots are its own: no barrier for them.
    unsigned slot = 0; // the ring's slot of plane p
    for (long long p = q0 - rz; p < end; ++p)
    {
      double plane[2];
      planeSums(p, plane);
      sharedRing[slot * BoxOutputs + threadIdx.x] = plane[0];
      sharedRing[slot * BoxOutputs + threadIdx.x + BoxThreads] = plane[1];
      slot = slot + 1 == depth ? 0 : slot + 1;
      if (p - static_cast<long long>(rz) >= q0)
      {
        double sums[2] = { 0.0, 0.0 };
        for (unsigned k = 0; k < depth; ++k) // oldest first: slot is the oldest now
        {
          const unsigned from = (slot + k < depth ? slot + k : slot + k - depth) * BoxOutputs + threadIdx.x;
          sums[0] += sharedRing[from];
          sums[1] += sharedRing[from + BoxThreads];
        }
        write(p - rz, sums);
      }
    }
  }
}

} // namespace

bool
CudaBoxFilterTakes(const CudaBoxGeometry & geometry)
{
  const SharedLayout layout = Layout(geometry);
  return layout.Bytes <= BoxShared && layout.Tile <= static_cast<size_t>(BoxLoads) * BoxThreads &&
         geometry.InputSize[0] * geometry.InputSize[1] <= 0x7fffffff &&
         (geometry.OutputSize[1] + BoxY - 1) / BoxY <= 65535 &&
         (geometry.OutputSize[0] + BoxX - 1) / BoxX <= 0x7fffffff;
}

unsigned int
CudaBoxFilterUnrolledRadius(const CudaBoxGeometry & geometry)
{
  const unsigned int r = geometry.Radius[0];
  return CudaBoxFilterTakes(geometry) && r >= 1 && r <= 3 && geometry.Radius[1] == r &&
             geometry.Radius[2] == r
           ? r
           : 0;
}

namespace
{
template <typename TPixel, unsigned int R>
void
LaunchBoxFilter(TPixel *                out,
                const TPixel *          in,
                const CudaBoxGeometry & geometry,
                double                  scale,
                CudaBoundary            boundary,
                double                  constant,
                cudaStream_t            stream,
                const dim3 &            grid,
                unsigned int            run)
{
  const SharedLayout layout = Layout(geometry);
  const size_t       shared = R > 0 ? layout.Bytes - layout.Ring * sizeof(double) : layout.Bytes;
  if (shared > 48 * 1024)
  {
    CUDA_CHECK(cudaFuncSetAttribute(BoxFilter<TPixel, R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(shared)));
  }
  BoxFilter<TPixel, R>
    <<<grid, BoxThreads, shared, stream>>>(out, in, geometry, scale, boundary, static_cast<TPixel>(constant), run);
  CUDA_CHECK_KERNEL_LAUNCH("BoxFilter");
}
} // namespace

template <typename TPixel>
void
CudaBoxFilterAsync(TPixel *                out,
                   const TPixel *          in,
                   const CudaBoxGeometry & geometry,
                   double                  scale,
                   CudaBoundary            boundary,
                   double                  constant,
                   cudaStream_t            stream)
{
  if (!CudaBoxFilterTakes(geometry))
  {
    CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__,
                   "CudaBoxFilterAsync: a box or a buffer this kernel does not take (see CudaBoxFilterTakes)");
  }
  const size_t tilesX = (geometry.OutputSize[0] + BoxX - 1) / BoxX;
  const size_t tilesY = (geometry.OutputSize[1] + BoxY - 1) / BoxY;
  const size_t planes = geometry.OutputSize[2];
  if (tilesX * tilesY * planes == 0)
  {
    return;
  }
  // Runs along z: enough blocks to fill the device a few times over, each
  // run long against its box's 2 rz planes re-read at its ends.
  const size_t shortest = std::max<size_t>(8, 4 * static_cast<size_t>(geometry.Radius[2]));
  const size_t runs = std::max<size_t>(
    1, std::min({ (4096 + tilesX * tilesY - 1) / (tilesX * tilesY), planes / shortest, size_t{ 65535 } }));
  const auto   run = static_cast<unsigned int>((planes + runs - 1) / runs);
  const dim3   grid(static_cast<unsigned int>(tilesX), static_cast<unsigned int>(tilesY),
                  static_cast<unsigned int>((planes + run - 1) / run));
  switch (CudaBoxFilterUnrolledRadius(geometry))
  {
    case 1:
      LaunchBoxFilter<TPixel, 1>(out, in, geometry, scale, boundary, constant, stream, grid, run);
      break;
    case 2:
      LaunchBoxFilter<TPixel, 2>(out, in, geometry, scale, boundary, constant, stream, grid, run);
      break;
    case 3:
      LaunchBoxFilter<TPixel, 3>(out, in, geometry, scale, boundary, constant, stream, grid, run);
      break;
    default:
      LaunchBoxFilter<TPixel, 0>(out, in, geometry, scale, boundary, constant, stream, grid, run);
  }
}

template CudaCommon_EXPORT void
CudaBoxFilterAsync<float>(float *, const float *, const CudaBoxGeometry &, double, CudaBoundary, double, cudaStream_t);
template CudaCommon_EXPORT void
CudaBoxFilterAsync<double>(double *, const double *, const CudaBoxGeometry &, double, CudaBoundary, double,
                           cudaStream_t);
} // namespace itk
