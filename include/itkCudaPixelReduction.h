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
#ifndef itkCudaPixelReduction_h
#define itkCudaPixelReduction_h

/** \file itkCudaPixelReduction.h
 * \brief Reductions of device pixels (sum, sum of squares, extrema and where
 * they are; dot products), the kernels behind CudaStatisticsImageFilter,
 * CudaMinimumMaximumImageCalculator and CudaImageDotProduct().
 *
 * No ITK header, for nvcc and the host compiler alike. Sums are in double,
 * whatever the pixel type (ITK's RealType of the scalar pixels); extrema are
 * in the pixel type. Instantiated for unsigned char, short, unsigned short,
 * int, unsigned int, unsigned long, float and double (dot products: float
 * and double); another type is a link error naming the function.
 * \ingroup CudaCommon
 */

#include "itkCudaRegionGeometry.h"

#include <cuda_runtime_api.h>
#include <cstddef>

namespace itk
{
/** Where no extremum was found: no pixel was below the initial minimum
 * (above the initial maximum), NaNs and pixels equal to it among them. */
constexpr unsigned long long CudaPixelNotFound = ~0ULL;

/** \struct CudaPixelStatistics
 * \brief What a reduction accumulates. Positions count the reduced pixels in
 * the order of an ITK region iterator (first dimension fastest), from the
 * first position the caller gave. Extrema follow ITK's iterators: a pixel
 * replaces the minimum when it is strictly below it (NaNs never), so the
 * first of equal extrema is the one kept.
 * \ingroup CudaCommon */
template <typename T>
struct CudaPixelStatistics
{
  double             Sum;
  double             SumOfSquares;
  T                  Minimum;
  T                  Maximum;
  unsigned long long PositionOfMinimum;
  unsigned long long PositionOfMaximum;
};

/** Bytes of device scratch memory a reduction needs (partial results of the
 * blocks of one launch), for any box. */
template <typename T>
size_t
CudaPixelReductionScratchBytes();

/** Queue on `stream` the folding of the pixels of the box `geometry` of `in`
 * into `*accumulator` (device memory the caller initialised: zero sums,
 * `initialMinimum` and `initialMaximum` as the extrema, CudaPixelNotFound
 * positions), the box's pixels taking the positions from `firstPosition`.
 * Without `withPositions` the positions are left as they are. `scratch` is CudaPixelReductionScratchBytes<T>() bytes of
 * device memory, reused once the work queued before on `stream` is done.
 * \throws itk::ExceptionObject naming the CUDA error. */
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
                      cudaStream_t               stream);

/** Queue on `stream`: `*result` (device memory) = the sum over i < count of
 * a[i] * b[i], in double. `scratch` as for CudaReducePixelsAsync().
 * \throws itk::ExceptionObject naming the CUDA error. */
template <typename T>
void
CudaDotProductAsync(const T * a, const T * b, size_t count, double * result, void * scratch, cudaStream_t stream);
} // namespace itk

#endif
