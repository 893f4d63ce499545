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
#include "itkCudaImageFromImageFilter.h"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaTestUtilities.h"

namespace
{
using ImageType = itk::Image<float, 3>;
using FilterType = itk::CudaImageFromImageFilter<ImageType>;

ImageType::Pointer
MakeImage()
{
  auto                  image = ImageType::New();
  ImageType::RegionType region({ { 1, 2, 3 } }, { { 10, 9, 8 } });
  image->SetRegions(region);
  ImageType::SpacingType spacing;
  spacing[0] = 0.5;
  spacing[1] = 0.75;
  spacing[2] = 2.0;
  image->SetSpacing(spacing);
  ImageType::PointType origin;
  origin[0] = -4.0;
  origin[1] = 1.5;
  origin[2] = 9.0;
  image->SetOrigin(origin);
  ImageType::DirectionType direction;
  direction.Fill(0.0);
  direction[0][1] = 1.0;
  direction[1][0] = 1.0;
  direction[2][2] = 1.0;
  image->SetDirection(direction);
  image->Allocate();
  for (size_t i = 0; i < region.GetNumberOfPixels(); ++i)
  {
    image->GetBufferPointer()[i] = static_cast<float>(i % 13);
  }
  return image;
}

TEST(CudaImageFromImageFilter, SharesThePixelBufferAndMetadata)
{
  auto input = MakeImage();
  auto filter = FilterType::New();
  filter->SetInput(input);
  filter->Update();
  FilterType::OutputImageType * output = filter->GetOutput();
  EXPECT_EQ(output->GetPixelContainer(), input->GetPixelContainer()); // no copy
  EXPECT_EQ(output->GetBufferPointer(), input->GetBufferPointer());
  EXPECT_EQ(output->GetBufferedRegion(), input->GetBufferedRegion());
  EXPECT_EQ(output->GetLargestPossibleRegion(), input->GetLargestPossibleRegion());
  EXPECT_EQ(output->GetSpacing(), input->GetSpacing());
  EXPECT_EQ(output->GetOrigin(), input->GetOrigin());
  EXPECT_EQ(output->GetDirection(), input->GetDirection());
  EXPECT_TRUE(output->GetCudaDataManager()->IsGPUBufferDirty());
  EXPECT_EQ(output->GetCudaDataManager()->GetBufferSize(), 720 * sizeof(float));
}

TEST(CudaImageFromImageFilter, RequestedRegionPropagatesUpstream)
{
  auto input = MakeImage();
  auto filter = FilterType::New();
  filter->SetInput(input);
  filter->UpdateOutputInformation();
  FilterType::OutputImageType::RegionType requested({ { 2, 3, 4 } }, { { 4, 3, 2 } });
  filter->GetOutput()->SetRequestedRegion(requested);
  filter->GetOutput()->PropagateRequestedRegion();
  EXPECT_EQ(input->GetRequestedRegion(), requested);
  filter->GetOutput()->UpdateOutputData();
  // The whole shared buffer is there, so the requested region is inside it.
  EXPECT_TRUE(filter->GetOutput()->GetBufferedRegion().IsInside(requested));
}

TEST(CudaImageFromImageFilter, FeedsACudaFilter)
{
  auto input = MakeImage();
  auto filter = FilterType::New();
  filter->SetInput(input);
  using CudaImageType = FilterType::OutputImageType;
  auto square = itk::CudaSquareImageFilter<CudaImageType>::New();
  square->SetInput(filter->GetOutput());
  square->InPlaceOff(); // keep the caller's image as it was
  square->Update();
  const size_t n = input->GetBufferedRegion().GetNumberOfPixels();
  size_t       mismatches = 0;
  for (size_t i = 0; i < n; ++i)
  {
    const float v = static_cast<float>(i % 13);
    mismatches += square->GetOutput()->GetBufferPointer()[i] != v * v;
    mismatches += input->GetBufferPointer()[i] != v;
  }
  EXPECT_EQ(mismatches, 0u);
}
} // namespace
