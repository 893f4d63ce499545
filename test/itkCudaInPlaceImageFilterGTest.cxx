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
#include "itkCudaSquareImageFilter.h"
#include "itkCudaTestUtilities.h"

namespace
{
using ImageType = itk::CudaImage<float, 3>;
using FilterType = itk::CudaSquareImageFilter<ImageType>;
using itk::CudaTest::TransfersAre;

ImageType::Pointer
MakeImage()
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 17, 13, 5 } });
  image->Allocate();
  for (size_t i = 0; i < image->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    image->GetBufferPointer()[i] = static_cast<float>(i % 7) - 3.0f;
  }
  return image;
}

// The CPU parent's in-place machinery is reused as is.
static_assert(std::is_base_of<itk::InPlaceImageFilter<ImageType, ImageType>, FilterType>::value, "in-place parent");
static_assert(std::is_same<FilterType::Superclass::CPUSuperclass, itk::SquareImageFilter<ImageType, ImageType>>::value,
              "CPUSuperclass");

TEST(CudaInPlaceImageFilter, InPlaceReusesTheInputBuffers)
{
  auto  input = MakeImage();
  float * hostBuffer = input->GetBufferPointer();
  auto  filter = FilterType::New();
  EXPECT_TRUE(filter->GetInPlace());
  filter->SetInput(input);
  filter->Update();
  ImageType * output = filter->GetOutput();
  EXPECT_EQ(output->GetPixelContainer()->GetBufferPointer(), hostBuffer);
  // ReleaseInputs() released the input's hold on the bulk data.
  EXPECT_EQ(input->GetBufferedRegion().GetNumberOfPixels(), 0u);
  EXPECT_EQ(input->GetCudaDataManager()->GetBufferSize(), 0u);
  for (size_t i = 0; i < output->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    const float v = static_cast<float>(i % 7) - 3.0f;
    ASSERT_EQ(output->GetBufferPointer()[i], v * v) << i;
  }
  if (itk::IsCudaAvailable())
  {
    // One upload, the kernel in place on the same device buffer, one download.
    EXPECT_TRUE(TransfersAre(output->GetCudaDataManager(), 1, 1));
  }
}

TEST(CudaInPlaceImageFilter, InPlaceOffLeavesTheInputAlone)
{
  auto input = MakeImage();
  auto filter = FilterType::New();
  filter->InPlaceOff();
  filter->SetInput(input);
  filter->Update();
  ImageType * output = filter->GetOutput();
  EXPECT_NE(output->GetBufferPointer(), input->GetBufferPointer());
  EXPECT_FALSE(output->GetCudaDataManager()->SharesBuffersWith(input->GetCudaDataManager()));
  for (size_t i = 0; i < output->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    const float v = static_cast<float>(i % 7) - 3.0f;
    ASSERT_EQ(input->GetBufferPointer()[i], v) << i;
    ASSERT_EQ(output->GetBufferPointer()[i], v * v) << i;
  }
}

TEST(CudaInPlaceImageFilter, InPlaceOnADeviceResidentInputKeepsItsDeviceBuffer)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto         input = MakeImage();
  const void * device = input->GetCudaDataManager()->GetConstGPUBufferPointer();
  auto         filter = FilterType::New();
  filter->SetInput(input);
  filter->Update();
  // No new device allocation: the output's device copy is the input's.
  EXPECT_EQ(filter->GetOutput()->GetCudaDataManager()->GetConstGPUBufferPointer(), device);
}
} // namespace
