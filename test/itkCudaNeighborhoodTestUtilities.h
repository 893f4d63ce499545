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
#ifndef itkCudaNeighborhoodTestUtilities_h
#define itkCudaNeighborhoodTestUtilities_h

#include "itkCudaTestUtilities.h"
#include "itkImageRegionConstIterator.h"
#include "itkImageRegionIteratorWithIndex.h"
#include "itkStreamingImageFilter.h"

#include <cmath>
#include <string>

// What the tests of the neighborhood filters (Gaussian, means) share: an
// image in which every tap counts, and the comparison with ITK's output.
namespace itk
{
namespace CudaTest
{
/** A smooth pattern with edges (so that every tap counts), its region
 * starting at (-3, -2, ...), spacing 0.5, 1.5, ... */
template <typename TImage>
typename TImage::Pointer
MakeSmoothImage(const typename TImage::SizeType & size)
{
  auto                         image = TImage::New();
  typename TImage::IndexType   start;
  typename TImage::SpacingType spacing;
  for (unsigned int d = 0; d < TImage::ImageDimension; ++d)
  {
    start[d] = -3 + static_cast<int>(d);
    spacing[d] = 0.5 + d;
  }
  image->SetRegions(typename TImage::RegionType(start, size));
  image->SetSpacing(spacing);
  image->Allocate();
  itk::ImageRegionIteratorWithIndex<TImage> it(image, image->GetBufferedRegion());
  for (; !it.IsAtEnd(); ++it)
  {
    double value = 0.0;
    for (unsigned int d = 0; d < TImage::ImageDimension; ++d)
    {
      value += std::sin(0.7 * (d + 1) * it.GetIndex()[d]) + ((it.GetIndex()[d] / 3) % 2 == 0 ? 1.0 : -0.5);
    }
    it.Set(static_cast<typename TImage::PixelType>(value));
  }
  return image;
}

/** The largest difference from ITK's output, relative to its largest value. */
template <typename TCudaImage, typename TITKImage>
void
ExpectNearITK(const TCudaImage * output, const TITKImage * reference, double tolerance, const std::string & what)
{
  ASSERT_EQ(output->GetBufferedRegion(), reference->GetBufferedRegion()) << what;
  EXPECT_EQ(output->GetOrigin(), reference->GetOrigin()) << what;
  EXPECT_EQ(output->GetSpacing(), reference->GetSpacing()) << what;
  itk::ImageRegionConstIterator<TCudaImage> it(output, output->GetBufferedRegion());
  itk::ImageRegionConstIterator<TITKImage>  ref(reference, reference->GetBufferedRegion());
  double                                    largest = 0.0;
  double                                    difference = 0.0;
  size_t                                    mismatchedNaN = 0;
  for (; !it.IsAtEnd(); ++it, ++ref)
  {
    if (std::isnan(static_cast<double>(ref.Get())) || std::isnan(static_cast<double>(it.Get())))
    {
      mismatchedNaN += std::isnan(static_cast<double>(ref.Get())) != std::isnan(static_cast<double>(it.Get()));
      continue;
    }
    largest = std::max(largest, std::abs(static_cast<double>(ref.Get())));
    difference = std::max(difference, std::abs(static_cast<double>(it.Get()) - static_cast<double>(ref.Get())));
  }
  EXPECT_EQ(mismatchedNaN, 0u) << what;
  EXPECT_LE(difference, tolerance * std::max(largest, 1.0)) << what;
}


/** Updates `filter` (its output streamed in `pieces` when more than one) and
 * compares it with ITK's updated `reference` by `compare(output, ITK's
 * output)`; on the GPU path (`gpu`), the output is expected made on the
 * device when `onDevice`, else on the host. */
template <typename TFilter, typename TReference, typename TCompare>
void
ExpectUpdateLikeITK(TFilter *           filter,
                    TReference *        reference,
                    const std::string & what,
                    unsigned int        pieces,
                    bool                gpu,
                    bool                onDevice,
                    TCompare &&         compare)
{
  using ImageType = typename TFilter::OutputImageType;
  reference->Update();
  if (pieces == 1)
  {
    filter->Update();
    if (gpu)
    {
      EXPECT_EQ(filter->GetOutput()->GetCudaDataManager()->IsCPUBufferDirty(), onDevice) << what << ": where it was made";
    }
    compare(filter->GetOutput(), reference->GetOutput());
    return;
  }
  auto streamer = itk::StreamingImageFilter<ImageType, ImageType>::New();
  streamer->SetInput(filter->GetOutput());
  streamer->SetNumberOfStreamDivisions(pieces);
  streamer->Update();
  EXPECT_LT(filter->GetOutput()->GetBufferedRegion().GetNumberOfPixels(),
            reference->GetOutput()->GetBufferedRegion().GetNumberOfPixels())
    << what << ": the last piece alone";
  compare(streamer->GetOutput(), reference->GetOutput());
}

/** ExpectUpdateLikeITK() with ExpectNearITK() as the comparison. */
template <typename TFilter, typename TReference>
void
ExpectUpdateNearITK(TFilter *           filter,
                    TReference *        reference,
                    double              tolerance,
                    const std::string & what,
                    unsigned int        pieces,
                    bool                gpu,
                    bool                onDevice)
{
  ExpectUpdateLikeITK(filter, reference, what, pieces, gpu, onDevice, [&](const auto * output, const auto * expected) {
    ExpectNearITK(output, expected, tolerance, what);
  });
}
} // namespace CudaTest
} // namespace itk

#endif
