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
#include "itkCudaImage.h"
#include "itkCudaTestUtilities.h"

namespace
{
using ImageType = itk::CudaImage<float, 2>;
using itk::CudaTest::ExceptionMessage;

ImageType::Pointer
MakeImage(float value)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 20, 10 } });
  ImageType::SpacingType spacing;
  spacing.Fill(0.25);
  image->SetSpacing(spacing);
  image->Allocate();
  image->FillBuffer(value);
  return image;
}

class CudaImageGraftTest : public itk::CudaTest::BackendTest
{};

TEST_P(CudaImageGraftTest, GraftSharesPixelsMetadataAndTheDeviceCopy)
{
  auto source = MakeImage(1.0f);
  auto target = ImageType::New();
  target->Graft(source);
  EXPECT_EQ(target->GetBufferedRegion(), source->GetBufferedRegion());
  EXPECT_EQ(target->GetSpacing(), source->GetSpacing());
  EXPECT_EQ(target->GetPixelContainer(), source->GetPixelContainer());
  EXPECT_TRUE(target->GetCudaDataManager()->SharesBuffersWith(source->GetCudaDataManager()));

  // A GPU write through the target is what the source reads.
  void *             device = target->GetCudaDataManager()->GetGPUBufferPointer();
  std::vector<float> values(200, 6.0f);
  WriteDevice(device, values.data(), values.size() * sizeof(float));
  EXPECT_EQ(source->GetCudaDataManager()->GetConstGPUBufferPointer(), device);
  const ImageType::IndexType index = { { 19, 9 } };
  EXPECT_EQ(static_cast<const ImageType *>(source.GetPointer())->GetPixel(index), 6.0f);
  EXPECT_TRUE(itk::CudaTest::TransfersAre(target->GetCudaDataManager(), 1, 1));
}

TEST_P(CudaImageGraftTest, GraftThroughDataObjectAndSuperclassPointers)
{
  auto source = MakeImage(2.0f);
  auto viaDataObject = ImageType::New();
  viaDataObject->Graft(static_cast<const itk::DataObject *>(source.GetPointer()));
  EXPECT_TRUE(viaDataObject->GetCudaDataManager()->SharesBuffersWith(source->GetCudaDataManager()));
  auto viaImage = ImageType::New();
  viaImage->Graft(static_cast<const ImageType::Superclass *>(source.GetPointer()));
  EXPECT_TRUE(viaImage->GetCudaDataManager()->SharesBuffersWith(source->GetCudaDataManager()));
}

TEST_P(CudaImageGraftTest, InitializeAfterGraftLeavesTheOtherImageIntact)
{
  auto source = MakeImage(3.0f);
  source->GetCudaDataManager()->GetConstGPUBufferPointer();
  auto target = ImageType::New();
  target->Graft(source);
  target->Initialize(); // as ReleaseData() does
  EXPECT_FALSE(target->GetCudaDataManager()->SharesBuffersWith(source->GetCudaDataManager()));
  EXPECT_EQ(source->GetCudaDataManager()->GetGPUBufferSize(), 200 * sizeof(float));
  const ImageType::IndexType index = { { 0, 0 } };
  EXPECT_EQ(static_cast<const ImageType *>(source.GetPointer())->GetPixel(index), 3.0f);
}

TEST_P(CudaImageGraftTest, ReallocatingAGraftedImageKeepsBothCoherent)
{
  auto source = MakeImage(4.0f);
  auto target = ImageType::New();
  target->Graft(source);
  source->GetCudaDataManager()->GetConstGPUBufferPointer();
  target->Allocate(); // same pixel container, CPU copy now the current one
  target->FillBuffer(5.0f);
  const void *       device = source->GetCudaDataManager()->GetConstGPUBufferPointer();
  std::vector<float> values(200);
  ReadDevice(values.data(), device, values.size() * sizeof(float));
  EXPECT_EQ(values, std::vector<float>(200, 5.0f));
}

ITK_CUDA_INSTANTIATE_BACKEND_TESTS(CudaImageGraftTest);

TEST(CudaImageGraft, ANonCudaImageIsRejectedWithBothTypeNames)
{
  auto target = ImageType::New();
  auto plain = itk::Image<float, 2>::New();
  plain->SetRegions(ImageType::SizeType{ { 2, 2 } });
  plain->Allocate();
  const std::string message =
    ExceptionMessage([&] { target->Graft(static_cast<const itk::DataObject *>(plain.GetPointer())); });
  EXPECT_NE(message.find("cannot graft a Image"), std::string::npos) << message;
  EXPECT_NE(message.find("onto a CudaImage"), std::string::npos) << message;
  EXPECT_NE(ExceptionMessage([&] { target->Graft(static_cast<const ImageType::Superclass *>(plain.GetPointer())); })
              .find("expected the same CudaImage type"),
            std::string::npos);
  auto otherPixel = itk::CudaImage<short, 2>::New();
  EXPECT_NE(ExceptionMessage([&] { target->Graft(static_cast<const itk::DataObject *>(otherPixel.GetPointer())); })
              .find("cannot graft"),
            std::string::npos);
  EXPECT_NO_THROW(target->Graft(static_cast<const ImageType *>(nullptr)));
}
} // namespace
