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
#include "itkCudaAxisStencil.hcu"

// A block is 32 columns (x, coalesced) by 8 threads, each thread a run of 8
// consecutive output pixels along y, so that its coordinates are computed
// once a run and the neighbours along y slide through registers (one new
// load a pixel); a run away from the buffer's edges loads without boundary
// checks, unrolled, its loads in flight together. The neighbours along x and
// the other axes come through the read-only cache (read by the neighbouring
// threads and blocks), so device memory sees about one read of the input and
// one write of the output.
// Products and sums are rounded as ITK's CPU code rounds them (no fused
// multiply-adds), which makes the results ITK's to the bit.

namespace itk
{
namespace
{
constexpr unsigned int Width = 32; // threads along x
constexpr unsigned int Height = 8; // threads along y
constexpr unsigned int Run = 8;    // consecutive outputs along y a thread

struct Launch
{
  CudaStencilGeometry Geometry;
  size_t              InputStride[CudaMaximumStencilDimension];
  CudaStencilWeights  Weights;
  CudaBoundary        Boundary;
  double              Constant;
};

/** The input at one step (-1 or +1) along an axis from `center`, at
 * coordinate `c` of `size`, as a double; past the buffer's edges by the
 * boundary condition. */
template <typename TInput>
__device__ inline double
Neighbour(const TInput * in, size_t center, long long c, long long size, int step, size_t stride, const Launch & p)
{
  const long long n = c + step;
  if (n >= 0 && n < size)
  {
    return static_cast<double>(__ldg(step < 0 ? in + center - stride : in + center + stride));
  }
  switch (p.Boundary)
  {
    case CudaBoundary::Constant:
      return p.Constant;
    case CudaBoundary::Mirror:
    {
      const long long m = CudaMirrorPosition(n, size);
      return static_cast<double>(__ldg(m < c ? in + center - static_cast<size_t>(c - m) * stride
                                             : in + center + static_cast<size_t>(m - c) * stride));
    }
    case CudaBoundary::Periodic:
      // One step past one end is the other end.
      return static_cast<double>(
        __ldg(step < 0 ? in + center + static_cast<size_t>(size - 1) * stride : in + center - static_cast<size_t>(size - 1) * stride));
    default: // ZeroFluxNeumann: the nearest pixel, the center itself
      return static_cast<double>(__ldg(in + center));
  }
}

/** The stencil's output at one pixel from its value and neighbours. */
template <typename TOutput, CudaStencilOutput Output>
__device__ inline void
Evaluate(TOutput *                  out,
         size_t                     o,
         unsigned int               dimension,
         const CudaStencilWeights & w,
         double                     mid,
         const double *             minus,
         const double *             plus)
{
  if constexpr (Output == CudaStencilOutput::Laplacian)
  {
    double sum = 0.0;
#pragma unroll
    for (int a = CudaMaximumStencilDimension - 1; a >= 0; --a)
    {
      if (a < static_cast<int>(dimension))
      {
        sum = __dadd_rn(sum, __dmul_rn(w.Minus[a], minus[a]));
      }
    }
    sum = __dadd_rn(sum, __dmul_rn(w.Middle, mid));
#pragma unroll
    for (unsigned int a = 0; a < CudaMaximumStencilDimension; ++a)
    {
      if (a < dimension)
      {
        sum = __dadd_rn(sum, __dmul_rn(w.Plus[a], plus[a]));
      }
    }
    out[o] = static_cast<TOutput>(sum);
  }
  else
  {
    double d[CudaMaximumStencilDimension];
#pragma unroll
    for (unsigned int a = 0; a < CudaMaximumStencilDimension; ++a)
    {
      d[a] = __dadd_rn(__dadd_rn(__dadd_rn(0.0, __dmul_rn(w.Minus[a], minus[a])), __dmul_rn(w.Center[a], mid)),
                       __dmul_rn(w.Plus[a], plus[a]));
    }
    if constexpr (Output == CudaStencilOutput::GradientMagnitude)
    {
      double sum = 0.0;
#pragma unroll
      for (unsigned int a = 0; a < CudaMaximumStencilDimension; ++a)
      {
        if (a < dimension)
        {
          sum = __dadd_rn(sum, __dmul_rn(d[a], d[a]));
        }
      }
      out[o] = static_cast<TOutput>(sqrt(sum));
    }
    else
    {
      TOutput g[CudaMaximumStencilDimension];
#pragma unroll
      for (unsigned int a = 0; a < CudaMaximumStencilDimension; ++a)
      {
        g[a] = static_cast<TOutput>(d[a]);
      }
      TOutput * vector = out + o * dimension;
#pragma unroll
      for (unsigned int i = 0; i < CudaMaximumStencilDimension; ++i)
      {
        if (i < dimension)
        {
          if (w.UseDirection)
          {
            double sum = 0.0;
#pragma unroll
            for (unsigned int j = 0; j < CudaMaximumStencilDimension; ++j)
            {
              if (j < dimension)
              {
                sum = __dadd_rn(sum, __dmul_rn(w.Direction[i][j], static_cast<double>(g[j])));
              }
            }
            vector[i] = static_cast<TOutput>(sum);
          }
          else
          {
            vector[i] = g[i];
          }
        }
      }
    }
  }
}

template <typename TInput, typename TOutput, CudaStencilOutput Output>
__global__ void __launch_bounds__(Width * Height) AxisStencil(TOutput * out, const TInput * in, const Launch p)
{
  const CudaStencilGeometry & g = p.Geometry;
  const size_t                x = static_cast<size_t>(blockIdx.x) * Width + threadIdx.x;
  if (x >= g.OutputSize[0])
  {
    return; // no barrier below
  }
  const size_t outer = g.OutputSize[2] * g.OutputSize[3];
  const size_t runStride = static_cast<size_t>(gridDim.y) * Height * Run;
  for (size_t zt = blockIdx.z; zt < outer; zt += gridDim.z)
  {
    long long c[CudaMaximumStencilDimension];
    c[0] = static_cast<long long>(x + g.OutputStart[0]);
    c[2] = static_cast<long long>(zt % g.OutputSize[2] + g.OutputStart[2]);
    c[3] = static_cast<long long>(zt / g.OutputSize[2] + g.OutputStart[3]);
    for (size_t y = (static_cast<size_t>(blockIdx.y) * Height + threadIdx.y) * Run; y < g.OutputSize[1]; y += runStride)
    {
      c[1] = static_cast<long long>(y + g.OutputStart[1]);
      size_t center = 0;
#pragma unroll
      for (unsigned int a = 0; a < CudaMaximumStencilDimension; ++a)
      {
        center += static_cast<size_t>(c[a]) * p.InputStride[a];
      }
      size_t     o = x + (y + g.OutputSize[1] * zt) * g.OutputSize[0];
      const auto size1 = static_cast<long long>(g.InputSize[1]);
      // A whole run whose neighbours are all inside the buffer: plain loads,
      // unrolled so that the run's loads are in flight together.
      bool inside = y + Run <= g.OutputSize[1] && c[1] >= 1 && c[1] + Run < size1;
#pragma unroll
      for (unsigned int a = 0; a < CudaMaximumStencilDimension; ++a)
      {
        if (a != 1 && a < g.Dimension)
        {
          inside = inside && c[a] >= 1 && c[a] + 1 < static_cast<long long>(g.InputSize[a]);
        }
      }
      if (inside)
      {
        double below = static_cast<double>(__ldg(in + center - p.InputStride[1]));
        double mid = static_cast<double>(__ldg(in + center));
#pragma unroll
        for (unsigned int k = 0; k < Run; ++k)
        {
          double minus[CudaMaximumStencilDimension] = {};
          double plus[CudaMaximumStencilDimension] = {};
          minus[1] = below;
          plus[1] = static_cast<double>(__ldg(in + center + p.InputStride[1]));
#pragma unroll
          for (unsigned int a = 0; a < CudaMaximumStencilDimension; ++a)
          {
            if (a != 1 && a < g.Dimension)
            {
              minus[a] = static_cast<double>(__ldg(in + center - p.InputStride[a]));
              plus[a] = static_cast<double>(__ldg(in + center + p.InputStride[a]));
            }
          }
          Evaluate<TOutput, Output>(out, o, g.Dimension, p.Weights, mid, minus, plus);
          below = mid;
          mid = plus[1];
          center += p.InputStride[1];
          o += g.OutputSize[0];
        }
        continue;
      }
      double       below = Neighbour(in, center, c[1], size1, -1, p.InputStride[1], p);
      double       mid = static_cast<double>(__ldg(in + center));
      const size_t last = y + Run < g.OutputSize[1] ? y + Run : g.OutputSize[1];
      for (size_t k = y; k < last; ++k)
      {
        double minus[CudaMaximumStencilDimension] = {};
        double plus[CudaMaximumStencilDimension] = {};
        minus[1] = below;
        plus[1] = Neighbour(in, center, c[1], size1, +1, p.InputStride[1], p);
#pragma unroll
        for (unsigned int a = 0; a < CudaMaximumStencilDimension; ++a)
        {
          if (a != 1 && a < g.Dimension)
          {
            const auto size = static_cast<long long>(g.InputSize[a]);
            minus[a] = Neighbour(in, center, c[a], size, -1, p.InputStride[a], p);
            plus[a] = Neighbour(in, center, c[a], size, +1, p.InputStride[a], p);
          }
        }
        Evaluate<TOutput, Output>(out, o, g.Dimension, p.Weights, mid, minus, plus);
        // The next pixel along y: its neighbour below is this one, and it is
        // this one's neighbour above (inside the buffer: it is an output).
        below = mid;
        mid = plus[1];
        center += p.InputStride[1];
        ++c[1];
        o += g.OutputSize[0];
      }
    }
  }
}
} // namespace

template <typename TInput, typename TOutput>
void
CudaAxisStencilAsync(TOutput *                   out,
                     const TInput *              in,
                     const CudaStencilGeometry & geometry,
                     const CudaStencilWeights &  weights,
                     CudaStencilOutput           output,
                     CudaBoundary                boundary,
                     double                      constant,
                     cudaStream_t                stream)
{
  if (geometry.Dimension < 1 || geometry.Dimension > CudaMaximumStencilDimension || boundary == CudaBoundary::Crop)
  {
    CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__,
                   "CudaAxisStencilAsync: 1 to 4 dimensions and a Neumann, constant or periodic boundary are needed");
  }
  Launch p{};
  p.Geometry = geometry;
  size_t stride = 1;
  for (unsigned int a = 0; a < CudaMaximumStencilDimension; ++a)
  {
    if (a >= geometry.Dimension)
    {
      p.Geometry.InputSize[a] = 1;
      p.Geometry.OutputSize[a] = 1;
      p.Geometry.OutputStart[a] = 0;
    }
    if (p.Geometry.OutputStart[a] + p.Geometry.OutputSize[a] > p.Geometry.InputSize[a])
    {
      CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__,
                     "CudaAxisStencilAsync: the output region lies outside the input's buffer");
    }
    p.InputStride[a] = stride;
    stride *= p.Geometry.InputSize[a];
  }
  const size_t columns = (p.Geometry.OutputSize[0] + Width - 1) / Width;
  const size_t runs = (p.Geometry.OutputSize[1] + Height * Run - 1) / (Height * Run);
  const size_t outer = p.Geometry.OutputSize[2] * p.Geometry.OutputSize[3];
  if (columns * runs * outer == 0)
  {
    return;
  }
  if (columns > 0x7fffffffULL)
  {
    CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__,
                   "CudaAxisStencilAsync: more than 68719476704 (2^31 - 1 blocks of 32) pixels along x");
  }
  p.Weights = weights;
  p.Boundary = boundary;
  p.Constant = constant;
  const dim3 grid(static_cast<unsigned int>(columns),
                  static_cast<unsigned int>(runs < 65535 ? runs : 65535),
                  static_cast<unsigned int>(outer < 65535 ? outer : 65535));
  const dim3 block(Width, Height);
  switch (output)
  {
    case CudaStencilOutput::GradientMagnitude:
      AxisStencil<TInput, TOutput, CudaStencilOutput::GradientMagnitude><<<grid, block, 0, stream>>>(out, in, p);
      break;
    case CudaStencilOutput::Gradient:
      AxisStencil<TInput, TOutput, CudaStencilOutput::Gradient><<<grid, block, 0, stream>>>(out, in, p);
      break;
    default:
      AxisStencil<TInput, TOutput, CudaStencilOutput::Laplacian><<<grid, block, 0, stream>>>(out, in, p);
      break;
  }
  CUDA_CHECK_KERNEL_LAUNCH("AxisStencil");
}

#define CUDACOMMON_AXIS_STENCIL(TInput, TOutput)                                                                     \
  template CudaCommon_EXPORT void CudaAxisStencilAsync<TInput, TOutput>(TOutput *,                                    \
                                                                        const TInput *,                              \
                                                                        const CudaStencilGeometry &,                 \
                                                                        const CudaStencilWeights &,                  \
                                                                        CudaStencilOutput,                           \
                                                                        CudaBoundary,                                \
                                                                        double,                                      \
                                                                        cudaStream_t)
CUDACOMMON_AXIS_STENCIL(float, float);
CUDACOMMON_AXIS_STENCIL(float, double);
CUDACOMMON_AXIS_STENCIL(double, float);
CUDACOMMON_AXIS_STENCIL(double, double);
#undef CUDACOMMON_AXIS_STENCIL
} // namespace itk
