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
#include "itkCudaImageToImageFilter.h"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaTestUtilities.h"

// Misuse gives an itk::ExceptionObject that says what was expected and found,
// or a well-defined empty result, never a crash or a silent no-op.
namespace
{
using ImageType = itk::CudaImage<float, 3>;
using itk::CudaTest::ExceptionMessage;

TEST(CudaBadInput, ZeroSizeImagesGiveEmptyResults)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 0, 4, 4 } });
  image->Allocate();
  EXPECT_EQ(image->GetCudaDataManager()->GetBufferSize(), 0u);
  const std::string message = ExceptionMessage([&] { image->GetCudaDataManager()->GetGPUBufferPointer(); });
  EXPECT_NE(message.find("the buffer size is 0"), std::string::npos) << message;
  auto square = itk::CudaSquareImageFilter<ImageType>::New();
  square->SetInput(image);
  square->Update();
  EXPECT_EQ(square->GetOutput()->GetBufferedRegion().GetNumberOfPixels(), 0u);
}

TEST(CudaBadInput, RequestedRegionOutsideTheLargestRegion)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 8, 8, 8 } });
  image->Allocate();
  image->FillBuffer(1.0f);
  auto square = itk::CudaSquareImageFilter<ImageType>::New();
  square->SetInput(image);
  square->UpdateOutputInformation();
  ImageType::RegionType outside({ { 4, 4, 4 } }, { { 8, 8, 8 } });
  square->GetOutput()->SetRequestedRegion(outside);
  try
  {
    square->GetOutput()->Update();
    FAIL() << "no exception";
  }
  catch (const itk::InvalidRequestedRegionError & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("outside the largest possible region"), std::string::npos)
      << e.GetDescription();
  }
}

TEST(CudaBadInput, GraftOfAnotherPixelTypeOrDimension)
{
  auto target = ImageType::New();
  auto otherDimension = itk::CudaImage<float, 2>::New();
  auto otherPixel = itk::CudaImage<double, 3>::New();
  for (const itk::DataObject * source : { static_cast<const itk::DataObject *>(otherDimension.GetPointer()),
                                          static_cast<const itk::DataObject *>(otherPixel.GetPointer()) })
  {
    const std::string message = ExceptionMessage([&] { target->Graft(source); });
    EXPECT_NE(message.find("expected the same CudaImage type"), std::string::npos) << message;
  }
}

TEST(CudaBadInput, MissingInputIsReported)
{
  auto square = itk::CudaSquareImageFilter<ImageType>::New();
  const std::string message = ExceptionMessage([&] { square->Update(); });
  EXPECT_NE(message.find("Input"), std::string::npos) << message; // ITK's "Input Primary is required"
}

TEST(CudaBadInput, ImageWithoutBufferCannotGoToTheGPU)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 4, 4, 4 } }); // never allocated
  const std::string message = ExceptionMessage([&] { image->GetCudaDataManager()->GetGPUBufferPointer(); });
  EXPECT_NE(message.find("buffer size is 0 (image not allocated?)"), std::string::npos) << message;
}
} // namespace
