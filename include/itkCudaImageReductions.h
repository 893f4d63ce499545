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
#ifndef itkCudaImageReductions_h
#define itkCudaImageReductions_h

/** \file itkCudaImageReductions.h
 * \brief Reductions of CudaImages on their device: the statistics of a
 * region (CudaStatisticsImageFilter, CudaMinimumMaximumImageCalculator) and
 * the dot product of two images, for the conjugate-gradient loops of
 * iterative reconstructions.
 * \ingroup CudaCommon
 */

#include "itkCudaElementwiseImageFilter.h" // CudaForEachRegionSlab
#include "itkCudaImage.h"
#include "itkCudaPixelReduction.h"
#include "itkCudaUtil.h"

#include <sstream>

namespace itk
{
/** The sums and extrema of the pixels of `region` (inside the image's
 * buffered region) of `image`, computed on the image's device (its GPU copy
 * made current first, as for any CUDA filter's input); positions of the
 * extrema, with `withPositions`, count the region's pixels in the order of
 * an ITK region iterator (CudaRegionIndexOfPosition()). The extrema start at
 * `initialMinimum` and `initialMaximum`, replaced by pixels strictly beyond
 * them, as ITK's filters do. Waits for the result.
 * \throws itk::ExceptionObject for a region outside the buffered one, or
 * naming the CUDA error. */
template <typename TImage>
CudaPixelStatistics<typename TImage::PixelType>
CudaReduceImageRegion(const TImage *                     image,
                      const typename TImage::RegionType & region,
                      bool                               withPositions,
                      typename TImage::PixelType         initialMinimum,
                      typename TImage::PixelType         initialMaximum)
{
  using PixelType = typename TImage::PixelType;
  const auto & buffered = image->GetBufferedRegion();
  if (!buffered.IsInside(region) && region.GetNumberOfPixels() > 0)
  {
    std::ostringstream message;
    message << "the region to reduce " << region.GetIndex() << " + " << region.GetSize()
            << " is not inside the image's buffered region " << buffered.GetIndex() << " + " << buffered.GetSize();
    itkGenericExceptionMacro(<< message.str());
  }
  CudaPixelStatistics<PixelType> result{};
  result.Minimum = initialMinimum;
  result.Maximum = initialMaximum;
  result.PositionOfMinimum = CudaPixelNotFound;
  result.PositionOfMaximum = CudaPixelNotFound;
  if (region.GetNumberOfPixels() == 0)
  {
    return result;
  }
  CudaDataManager *       manager = image->GetCudaDataManager();
  const int               device = manager->GetDevice();
  const CudaDeviceGuard   onDevice(device);
  const cudaStream_t      stream = manager->GetStream();
  CudaStreamOrderingScope ordering(stream, false);
  const auto *            in = static_cast<const PixelType *>(manager->GetConstGPUBufferPointer());
  // The accumulator, then the partial results of the blocks.
  constexpr size_t accumulatorBytes = 256;
  static_assert(sizeof(result) <= accumulatorBytes, "the accumulator fits its slot");
  auto scratch = GPUMemPointer::New();
  scratch->Allocate(accumulatorBytes + CudaPixelReductionScratchBytes<PixelType>(), device, stream);
  auto * accumulator = static_cast<CudaPixelStatistics<PixelType> *>(scratch->GetPointer());
  void * partials = static_cast<char *>(scratch->GetPointer()) + accumulatorBytes;
  CUDA_CHECK(cudaMemcpyAsync(accumulator, &result, sizeof(result), cudaMemcpyHostToDevice, stream));
  CudaForEachRegionSlab(buffered, region, [&](size_t inputOffset, size_t outputOffset, const CudaRegionGeometry & geometry) {
    CudaReducePixelsAsync(
      in + inputOffset, geometry, outputOffset, withPositions, initialMinimum, initialMaximum, accumulator, partials, stream);
  });
  CUDA_CHECK(cudaMemcpyAsync(&result, accumulator, sizeof(result), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  ordering.Finish();
  return result;
}

/** The index of the pixel at `position` of `region`, in the order of an ITK
 * region iterator (first dimension fastest). */
template <unsigned int VDimension>
Index<VDimension>
CudaRegionIndexOfPosition(const ImageRegion<VDimension> & region, unsigned long long position)
{
  Index<VDimension> index = region.GetIndex();
  for (unsigned int d = 0; d < VDimension; ++d)
  {
    index[d] += static_cast<IndexValueType>(position % region.GetSize(d));
    position /= region.GetSize(d);
  }
  return index;
}

/** The dot product of the buffers of two images of float or double pixels
 * and buffered regions of the same size: the sum of a[i] * b[i], in double,
 * computed on the device of `a` (b's GPU copy is made current there), or on
 * the CPU when no CUDA device is available. Waits for the result.
 * \throws itk::ExceptionObject for a missing image or buffered regions of
 * different sizes, or naming the CUDA error. */
template <typename TImage>
double
CudaImageDotProduct(const TImage * a, const TImage * b)
{
  using PixelType = typename TImage::PixelType;
  static_assert(std::is_same<PixelType, float>::value || std::is_same<PixelType, double>::value,
                "CudaImageDotProduct takes images of float or double pixels");
  if (a == nullptr || b == nullptr)
  {
    itkGenericExceptionMacro(<< "CudaImageDotProduct: an image is missing");
  }
  if (a->GetBufferedRegion().GetSize() != b->GetBufferedRegion().GetSize())
  {
    itkGenericExceptionMacro(<< "CudaImageDotProduct: buffered regions of different sizes, "
                             << a->GetBufferedRegion().GetSize() << " and " << b->GetBufferedRegion().GetSize());
  }
  const size_t count = a->GetBufferedRegion().GetNumberOfPixels();
  if (count == 0)
  {
    return 0.0;
  }
  if (!IsCudaAvailable())
  {
    const PixelType * x = a->GetBufferPointer();
    const PixelType * y = b->GetBufferPointer();
    double            sum = 0.0;
    for (size_t i = 0; i < count; ++i)
    {
      sum += static_cast<double>(x[i]) * static_cast<double>(y[i]);
    }
    return sum;
  }
  CudaDataManager *       managerA = a->GetCudaDataManager();
  CudaDataManager *       managerB = b->GetCudaDataManager();
  const int               device = managerA->GetDevice();
  const CudaDeviceGuard   onDevice(device);
  managerB->SetDevice(device);
  const cudaStream_t      stream = managerA->GetStream();
  CudaStreamOrderingScope ordering(stream, false);
  const auto *            x = static_cast<const PixelType *>(managerA->GetConstGPUBufferPointer());
  const auto *            y = static_cast<const PixelType *>(managerB->GetConstGPUBufferPointer());
  constexpr size_t        resultBytes = 256;
  auto                    scratch = GPUMemPointer::New();
  scratch->Allocate(resultBytes + CudaPixelReductionScratchBytes<PixelType>(), device, stream);
  auto * result = static_cast<double *>(scratch->GetPointer());
  CudaDotProductAsync(x, y, count, result, static_cast<char *>(scratch->GetPointer()) + resultBytes, stream);
  double sum = 0.0;
  CUDA_CHECK(cudaMemcpyAsync(&sum, result, sizeof(sum), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  ordering.Finish();
  return sum;
}
} // namespace itk

#endif
