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
// ring of 2 rz + 1 planes; an output is the sum of its ring once the planes
// of its box are in. The input is read about once from device memory (the
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

/** Position i along an axis of `length` pixels as the boundary condition
 * reads it: in [0, length), or -1 for a constant (Constant) or nothing (Crop). */
__device__ inline long long
Position(long long i, long long length, CudaBoundary boundary)
{
  if (i >= 0 && i < length)
  {
    return i;
  }
  switch (boundary)
  {
    case CudaBoundary::ZeroFluxNeumann:
      return i < 0 ? 0 : length - 1;
    case CudaBoundary::Periodic:
      i %= length;
      return i < 0 ? i + length : i;
    case CudaBoundary::Mirror:
      return CudaMirrorPosition(i, length);
    default: // Constant, Crop
      return -1;
  }
}

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
  size_t Ring;    // doubles: [2 rz + 1][BoxOutputs]
  size_t Rows;    // doubles: [BoxY + 2 ry][BoxX]
  size_t Tile;    // pixels: [BoxY + 2 ry][BoxX + 2 rx]
  size_t Bytes;
};

__host__ __device__ inline SharedLayout
Layout(const CudaBoxGeometry & g, size_t pixelSize)
{
  SharedLayout l{};
  l.Ring = (2 * static_cast<size_t>(g.Radius[2]) + 1) * BoxOutputs;
  l.Rows = (BoxY + 2 * static_cast<size_t>(g.Radius[1])) * BoxX;
  l.Tile = (BoxY + 2 * static_cast<size_t>(g.Radius[1])) * (BoxX + 2 * static_cast<size_t>(g.Radius[0]));
  l.Bytes = (l.Ring + l.Rows) * sizeof(double) + l.Tile * pixelSize;
  return l;
}

template <typename TPixel>
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
  const SharedLayout layout = Layout(g, sizeof(TPixel));
  double *           ring = sharedDoubles;
  double *           rowSums = ring + layout.Ring;
  TPixel *           tile = reinterpret_cast<TPixel *>(rowSums + layout.Rows);
  const unsigned     rx = g.Radius[0];
  const unsigned     ry = g.Radius[1];
  const long long    rz = g.Radius[2];
  const unsigned     width = BoxX + 2 * rx;
  const unsigned     depth = 2 * static_cast<unsigned>(rz) + 1;
  const long long    inX = static_cast<long long>(g.InputSize[0]);
  const long long    inY = static_cast<long long>(g.InputSize[1]);
  const long long    inZ = static_cast<long long>(g.InputSize[2]);
  const size_t       x0 = static_cast<size_t>(blockIdx.x) * BoxX;
  const size_t       y0 = static_cast<size_t>(blockIdx.y) * BoxY;
  const long long    q0 = static_cast<long long>(blockIdx.z) * planes; // the first output plane
  const long long    outZ = static_cast<long long>(g.OutputSize[2]);
  const long long    q1 = q0 + planes < outZ ? q0 + planes : outZ;
  const TPixel       fill = boundary == CudaBoundary::Constant ? constant : TPixel{};

  // The in-plane offsets of this thread's tile pixels (-1: the fill), the
  // same in every plane (a plane has fewer than 2^31 pixels).
  int source[BoxLoads];
#pragma unroll
  for (unsigned k = 0; k < BoxLoads; ++k)
  {
    const unsigned e = threadIdx.x + k * BoxThreads;
    source[k] = -1;
    if (e < layout.Tile)
    {
      const long long x = Position(static_cast<long long>(x0 + g.Offset[0]) - rx + e % width, inX, boundary);
      const long long y = Position(static_cast<long long>(y0 + g.Offset[1]) - ry + e / width, inY, boundary);
      source[k] = x < 0 || y < 0 ? -1 : static_cast<int>(y * inX + x);
    }
  }
  TPixel next[BoxLoads];
  const auto load = [&](long long p) { // input plane of output plane p
    const long long z = Position(p + static_cast<long long>(g.Offset[2]), inZ, boundary);
    const TPixel *  plane = in + static_cast<size_t>(z < 0 ? 0 : z) * static_cast<size_t>(inX * inY);
#pragma unroll
    for (unsigned k = 0; k < BoxLoads; ++k)
    {
      next[k] = z >= 0 && source[k] >= 0 ? plane[source[k]] : fill;
    }
  };

  const unsigned column = threadIdx.x % BoxX;
  const unsigned row = threadIdx.x / BoxX; // and row + BoxY / 2
  load(q0 - rz);
  unsigned slot = 0; // the ring's slot of plane p
  for (long long p = q0 - rz; p < q1 + rz; ++p)
  {
    __syncthreads(); // the last plane's tile and row sums are read
#pragma unroll
    for (unsigned k = 0; k < BoxLoads; ++k)
    {
      const unsigned e = threadIdx.x + k * BoxThreads;
      if (e < layout.Tile)
      {
        tile[e] = next[k];
      }
    }
    __syncthreads();
    if (p + 1 < q1 + rz)
    {
      load(p + 1); // in flight while this plane is summed
    }
    for (unsigned e = threadIdx.x; e < layout.Rows; e += BoxThreads)
    {
      const TPixel * from = tile + (e / BoxX) * width + e % BoxX;
      double         sum = 0.0;
      for (unsigned t = 0; t <= 2 * rx; ++t)
      {
        sum += static_cast<double>(from[t]);
      }
      rowSums[e] = sum;
    }
    __syncthreads();
    // Each thread's ring slots are its own: no barrier for them.
#pragma unroll
    for (unsigned o = 0; o < 2; ++o)
    {
      const unsigned r = row + o * (BoxY / 2);
      double         sum = 0.0;
      for (unsigned t = 0; t <= 2 * ry; ++t)
      {
        sum += rowSums[(r + t) * BoxX + column];
      }
      ring[slot * BoxOutputs + r * BoxX + column] = sum;
    }
    slot = slot + 1 == depth ? 0 : slot + 1;
    const long long q = p - rz; // the output plane whose box is in the ring
    if (q < q0)
    {
      continue;
    }
#pragma unroll
    for (unsigned o = 0; o < 2; ++o)
    {
      const unsigned r = row + o * (BoxY / 2);
      const size_t   x = x0 + column;
      const size_t   y = y0 + r;
      if (x >= g.OutputSize[0] || y >= g.OutputSize[1])
      {
        continue;
      }
      double sum = 0.0;
      for (unsigned k = 0, s = slot; k < depth; ++k, s = s + 1 == depth ? 0 : s + 1)
      {
        sum += ring[s * BoxOutputs + r * BoxX + column]; // planes q - rz .. q + rz
      }
      if (boundary == CudaBoundary::Crop)
      {
        sum /= InsideCount(static_cast<long long>(x + g.Offset[0]), rx, inX) *
               InsideCount(static_cast<long long>(y + g.Offset[1]), ry, inY) *
               InsideCount(q + static_cast<long long>(g.Offset[2]), rz, inZ);
      }
      else
      {
        sum *= scale;
      }
      out[(static_cast<size_t>(q) * g.OutputSize[1] + y) * g.OutputSize[0] + x] = static_cast<TPixel>(sum);
    }
  }
}
} // namespace

bool
CudaBoxFilterTakes(const CudaBoxGeometry & geometry, size_t pixelSize)
{
  const SharedLayout layout = Layout(geometry, pixelSize);
  return layout.Bytes <= BoxShared && layout.Tile <= static_cast<size_t>(BoxLoads) * BoxThreads &&
         geometry.InputSize[0] * geometry.InputSize[1] <= 0x7fffffff &&
         (geometry.OutputSize[1] + BoxY - 1) / BoxY <= 65535 &&
         (geometry.OutputSize[0] + BoxX - 1) / BoxX <= 0x7fffffff;
}

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
  if (!CudaBoxFilterTakes(geometry, sizeof(TPixel)))
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
  const size_t run = (planes + runs - 1) / runs;
  const size_t shared = Layout(geometry, sizeof(TPixel)).Bytes;
  if (shared > 48 * 1024)
  {
    CUDA_CHECK(cudaFuncSetAttribute(BoxFilter<TPixel>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(shared)));
  }
  const dim3 grid(static_cast<unsigned int>(tilesX), static_cast<unsigned int>(tilesY),
                  static_cast<unsigned int>((planes + run - 1) / run));
  BoxFilter<TPixel><<<grid, BoxThreads, shared, stream>>>(
    out, in, geometry, scale, boundary, static_cast<TPixel>(constant), static_cast<unsigned int>(run));
  CUDA_CHECK_KERNEL_LAUNCH("BoxFilter");
}

template CudaCommon_EXPORT void
CudaBoxFilterAsync<float>(float *, const float *, const CudaBoxGeometry &, double, CudaBoundary, double, cudaStream_t);
template CudaCommon_EXPORT void
CudaBoxFilterAsync<double>(double *, const double *, const CudaBoxGeometry &, double, CudaBoundary, double,
                           cudaStream_t);
} // namespace itk
