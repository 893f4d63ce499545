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
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkImageRegionConstIterator.h"
#include "itkImageRegionIterator.h"
#include "itkMetaImageIOFactory.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <sstream>
#include <thread>
#include <type_traits>
#include <vector>

namespace
{
using ImageType = itk::CudaImage<float, 3>;
using itk::CudaTest::DeviceCopy;
using itk::CudaTest::TransfersAre;

static_assert(std::is_base_of<itk::Image<float, 3>, ImageType>::value, "a CudaImage is an Image");
static_assert(std::is_same<ImageType::Rebind<short>::Type, itk::CudaImage<short, 3>>::value, "Rebind");
static_assert(std::is_same<ImageType::RebindImageType<double, 2>, itk::CudaImage<double, 2>>::value, "Rebind");
static_assert(std::is_same<itk::CudaTraits<itk::Image<float, 2>>::Type, itk::CudaImage<float, 2>>::value, "traits");
static_assert(std::is_same<itk::CudaTraits<ImageType>::Type, ImageType>::value, "traits");

ImageType::Pointer
MakeImage(unsigned int nx = 8, unsigned int ny = 6, unsigned int nz = 4)
{
  auto              image = ImageType::New();
  ImageType::SizeType size = { { nx, ny, nz } };
  image->SetRegions(size);
  image->Allocate();
  float value = 0.0f;
  for (itk::ImageRegionIterator<ImageType> it(image, image->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    it.Set(value++);
  }
  image->Modified();
  return image;
}


void
WriteDeviceCopy(ImageType * image, float value)
{
  const auto         manager = image->GetCudaDataManager();
  std::vector<float> values(manager->GetBufferSize() / sizeof(float), value);
  void *             device = manager->GetGPUBufferPointer();
  itk::CudaTest::CopyToDevice(device, values.data(), manager->GetBufferSize());
}

class CudaImageTest : public itk::CudaTest::BackendTest
{};

TEST_P(CudaImageTest, AllocateMakesTheCPUCopyCurrentWithoutTouchingTheDevice)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 4, 4, 4 } });
  image->Allocate(true);
  const auto manager = image->GetCudaDataManager();
  EXPECT_EQ(manager->GetBufferSize(), 64 * sizeof(float));
  EXPECT_FALSE(manager->IsCPUBufferDirty());
  EXPECT_TRUE(manager->IsGPUBufferDirty());
  EXPECT_EQ(manager->GetGPUBufferSize(), 0u);
  EXPECT_TRUE(TransfersAre(manager, 0, 0));
  EXPECT_EQ(LiveAllocations(), 0u);
}

TEST_P(CudaImageTest, ADataManagerMadeAfterCPUWritesStartsFromTheCPUCopy)
{
  // A CPU-only image has no data manager yet (Print says so); the first that
  // asks for one gets a manager whose current copy is the CPU buffer.
  auto               image = MakeImage(5, 4, 3);
  std::ostringstream before;
  image->Print(before);
  EXPECT_NE(before.str().find("DataManager: none yet"), std::string::npos) << before.str();
  image->FillBuffer(4.5f);
  image->SetPixel({ { 1, 2, 0 } }, -1.0f);
  const auto manager = image->GetCudaDataManager();
  EXPECT_EQ(manager->GetBufferSize(), 60 * sizeof(float));
  EXPECT_FALSE(manager->IsCPUBufferDirty());
  EXPECT_TRUE(manager->IsGPUBufferDirty());
  std::vector<float> expected(60, 4.5f);
  expected[1 + 2 * 5] = -1.0f;
  EXPECT_EQ(DeviceCopy(image), expected);
  EXPECT_EQ(image->GetCudaDataManager(), manager);
  std::ostringstream after;
  image->Print(after);
  EXPECT_EQ(after.str().find("DataManager: none yet"), std::string::npos);
}

TEST_P(CudaImageTest, ThreadsAskingForTheFirstDataManagerAtOnceGetTheSameOne)
{
  for (int round = 0; round < 20; ++round)
  {
    auto                                 image = MakeImage(4, 4, 4);
    const ImageType *                    shared = image;
    std::vector<const itk::CudaDataManager *> seen(8, nullptr);
    std::vector<std::thread>             threads;
    for (size_t t = 0; t < seen.size(); ++t)
    {
      threads.emplace_back([&, t] { seen[t] = shared->GetCudaDataManager().GetPointer(); });
    }
    for (auto & thread : threads)
    {
      thread.join();
    }
    for (const auto * manager : seen)
    {
      EXPECT_EQ(manager, image->GetCudaDataManager().GetPointer());
    }
  }
}

TEST_P(CudaImageTest, GPUCopyMirrorsTheCPUBuffer)
{
  auto image = MakeImage();
  const std::vector<float> expected(image->GetBufferPointer(),
                                    image->GetBufferPointer() + image->GetBufferedRegion().GetNumberOfPixels());
  EXPECT_EQ(DeviceCopy(image), expected);
  EXPECT_TRUE(TransfersAre(image->GetCudaDataManager(), 1, 0));
}

TEST_P(CudaImageTest, ConstAccessReadsGPUResultsWithOneDownload)
{
  auto image = MakeImage();
  WriteDeviceCopy(image, 2.5f);
  const ImageType * constImage = image;
  const ImageType::IndexType index = { { 3, 2, 1 } };
  EXPECT_EQ(constImage->GetPixel(index), 2.5f);
  EXPECT_EQ((*constImage)[index], 2.5f);
  EXPECT_EQ(constImage->GetBufferPointer()[0], 2.5f);
  float sum = 0.0f;
  for (itk::ImageRegionConstIterator<ImageType> it(constImage, constImage->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    sum += it.Get();
  }
  EXPECT_EQ(sum, 2.5f * 8 * 6 * 4);
  // An iterator may write through the const buffer pointer: the GPU copy is
  // stale, but its buffer is kept, so GPU views stay valid.
  EXPECT_TRUE(image->GetCudaDataManager()->IsGPUBufferDirty());
  EXPECT_NE(image->GetCudaDataManager()->GetGPUBufferSize(), 0u);
  EXPECT_TRUE(TransfersAre(image->GetCudaDataManager(), 1, 1));
}

TEST_P(CudaImageTest, EveryWritingAccessorMarksTheGPUCopyStale)
{
  auto image = MakeImage();
  const ImageType::IndexType index = { { 1, 1, 1 } };
  const std::vector<std::pair<const char *, std::function<void()>>> writers = {
    { "SetPixel", [&] { image->SetPixel(index, 100.0f); } },
    { "GetPixel", [&] { image->GetPixel(index) = 101.0f; } },
    { "operator[]", [&] { (*image)[index] = 102.0f; } },
    { "GetBufferPointer", [&] { image->GetBufferPointer()[0] = 103.0f; } },
    { "FillBuffer", [&] { image->FillBuffer(104.0f); } },
    { "GetPixelContainer", [&] { image->GetPixelContainer()->GetBufferPointer()[1] = 105.0f; } },
    { "GetPixelAccessor", [&] { image->GetPixelAccessor().Set(*image->GetBufferPointer(), 106.0f); } },
    { "GetNeighborhoodAccessor", [&] { image->GetNeighborhoodAccessor(); } },
  };
  for (const auto & writer : writers)
  {
    image->GetCudaDataManager()->GetConstGPUBufferPointer(); // GPU copy current
    ASSERT_FALSE(image->GetCudaDataManager()->IsGPUBufferDirty()) << writer.first;
    writer.second();
    EXPECT_TRUE(image->GetCudaDataManager()->IsGPUBufferDirty()) << writer.first;
    // The GPU sees the write.
    const std::vector<float> device = DeviceCopy(image);
    EXPECT_TRUE(std::equal(device.begin(), device.end(), image->GetBufferPointer())) << writer.first;
  }
}

TEST_P(CudaImageTest, WritesOnTheGPUSurviveAnInterleavedCPUWrite)
{
  auto image = MakeImage();
  WriteDeviceCopy(image, 3.0f);
  const ImageType::IndexType index = { { 0, 0, 0 } };
  image->SetPixel(index, -1.0f); // downloads the GPU result first, then writes
  const std::vector<float> device = DeviceCopy(image);
  EXPECT_EQ(device[0], -1.0f);
  EXPECT_EQ(device[1], 3.0f);
  EXPECT_EQ(device.back(), 3.0f);
}

TEST_P(CudaImageTest, ModifiedAfterAnIteratorWriteUploadsAgain)
{
  auto image = MakeImage();
  DeviceCopy(image);
  // Iterators write through the const buffer pointer: Modified() tells the image.
  for (itk::ImageRegionIterator<ImageType> it(image, image->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    it.Set(7.0f);
  }
  image->Modified();
  const std::vector<float> device = DeviceCopy(image);
  EXPECT_EQ(device, std::vector<float>(device.size(), 7.0f));
  EXPECT_TRUE(TransfersAre(image->GetCudaDataManager(), 2, 0));
}

TEST_P(CudaImageTest, DataHasBeenGeneratedOnTheCPUInvalidatesTheGPUCopy)
{
  auto image = MakeImage();
  DeviceCopy(image);
  image->DataHasBeenGenerated(); // as the pipeline does after a CPU filter wrote
  EXPECT_TRUE(image->GetCudaDataManager()->IsGPUBufferDirty());

  WriteDeviceCopy(image, 1.0f);  // a CUDA filter asked for the writable device pointer
  image->DataHasBeenGenerated();
  EXPECT_TRUE(image->GetCudaDataManager()->IsCPUBufferDirty());
  EXPECT_FALSE(image->GetCudaDataManager()->IsGPUBufferDirty());
}

TEST_P(CudaImageTest, SetBufferedRegionOfAnotherSizeDropsTheGPUCopyButNotTheData)
{
  auto image = MakeImage();
  WriteDeviceCopy(image, 8.0f);
  ImageType::RegionType smaller = image->GetBufferedRegion();
  smaller.SetSize(2, 2);
  image->SetBufferedRegion(smaller);
  EXPECT_EQ(image->GetCudaDataManager()->GetGPUBufferSize(), 0u);
  EXPECT_TRUE(image->GetCudaDataManager()->IsGPUBufferDirty());
  EXPECT_EQ(image->Superclass::GetBufferPointer()[0], 8.0f); // downloaded, not lost
  image->Allocate();
  EXPECT_EQ(image->GetCudaDataManager()->GetBufferSize(), 8u * 6u * 2u * sizeof(float));
}

TEST_P(CudaImageTest, SetPixelContainerAdoptsTheNewBuffer)
{
  auto image = MakeImage();
  WriteDeviceCopy(image, 4.0f);
  auto container = ImageType::PixelContainer::New();
  container->Reserve(image->GetBufferedRegion().GetNumberOfPixels());
  std::fill_n(container->GetBufferPointer(), container->Size(), 6.0f);
  image->SetPixelContainer(container);
  EXPECT_TRUE(image->GetCudaDataManager()->IsGPUBufferDirty());
  EXPECT_FALSE(image->GetCudaDataManager()->IsCPUBufferDirty());
  const std::vector<float> device = DeviceCopy(image);
  EXPECT_EQ(device, std::vector<float>(device.size(), 6.0f));
}

TEST_P(CudaImageTest, InitializeReleasesBothCopies)
{
  auto image = MakeImage();
  DeviceCopy(image);
  image->Initialize();
  EXPECT_EQ(image->GetCudaDataManager()->GetBufferSize(), 0u);
  EXPECT_EQ(image->GetCudaDataManager()->GetGPUBufferSize(), 0u);
  EXPECT_EQ(LiveAllocations(), 0u);
}

TEST_P(CudaImageTest, UpdateBuffersSynchronisesBothCopies)
{
  auto image = MakeImage();
  image->UpdateBuffers();
  EXPECT_TRUE(TransfersAre(image->GetCudaDataManager(), 1, 0));
  WriteDeviceCopy(image, 5.0f);
  image->UpdateBuffers();
  EXPECT_TRUE(TransfersAre(image->GetCudaDataManager(), 1, 1));
  EXPECT_EQ(image->Superclass::GetBufferPointer()[10], 5.0f);
  EXPECT_FALSE(image->GetCudaDataManager()->IsCPUBufferDirty());
  EXPECT_FALSE(image->GetCudaDataManager()->IsGPUBufferDirty());
}

TEST_P(CudaImageTest, GPUBufferedRegionIndexAndSize)
{
  auto                  image = ImageType::New();
  ImageType::RegionType region({ { -2, 3, 5 } }, { { 7, 4, 2 } });
  image->SetRegions(region);
  image->Allocate();
  auto manager = image->GetDataManager();
  auto index = manager->GetGPUBufferedRegionIndex();
  auto size = manager->GetGPUBufferedRegionSize();
  int  values[3];
  itk::CudaTest::CopyToHost(values, index->GetConstGPUBufferPointer(), sizeof(values));
  EXPECT_EQ(values[0], -2);
  EXPECT_EQ(values[1], 3);
  EXPECT_EQ(values[2], 5);
  itk::CudaTest::CopyToHost(values, size->GetConstGPUBufferPointer(), sizeof(values));
  EXPECT_EQ(values[0], 7);
  EXPECT_EQ(values[1], 4);
  EXPECT_EQ(values[2], 2);
  // A new region is seen on the next request.
  region.SetSize(0, 9);
  image->SetRegions(region);
  size = manager->GetGPUBufferedRegionSize();
  itk::CudaTest::CopyToHost(values, size->GetConstGPUBufferPointer(), sizeof(values));
  EXPECT_EQ(values[0], 9);
}

TEST_P(CudaImageTest, NoDeviceMemoryLeftAfterTheImageGoes)
{
  {
    auto image = MakeImage(64, 64, 64);
    WriteDeviceCopy(image, 1.0f);
    image->GetDataManager()->GetGPUBufferedRegionSize();
    EXPECT_EQ(LiveAllocations(), 2u);
  }
  EXPECT_EQ(LiveAllocations(), 0u);
}

ITK_CUDA_INSTANTIATE_BACKEND_TESTS(CudaImageTest);

// --- without a device, a CudaImage is an Image

TEST(CudaImageWithoutDevice, BehavesAsAnImageIncludingIO)
{
  ITK_CUDA_SKIP_WITH_GPU();
  auto image = MakeImage(5, 4, 3);
  ImageType::SpacingType spacing;
  spacing[0] = 0.5;
  spacing[1] = 1.0;
  spacing[2] = 2.0;
  image->SetSpacing(spacing);
  const ImageType::IndexType index = { { 4, 3, 2 } };
  image->SetPixel(index, 42.0f);
  EXPECT_EQ(image->GetPixel(index), 42.0f);
  image->FillBuffer(1.0f);
  image->SetPixel(index, 3.0f);
  image->UpdateBuffers();

  itk::MetaImageIOFactory::RegisterOneFactory();
  const std::string file = ::testing::TempDir() + "cudacommon_io.mha";
  auto              writer = itk::ImageFileWriter<ImageType>::New();
  writer->SetInput(image);
  writer->SetFileName(file);
  writer->Update();
  auto reader = itk::ImageFileReader<ImageType>::New();
  reader->SetFileName(file);
  reader->Update();
  ImageType::Pointer read = reader->GetOutput();
  EXPECT_EQ(read->GetSpacing()[2], 2.0);
  EXPECT_EQ(read->GetPixel(index), 3.0f);
  ImageType::IndexType origin = { { 0, 0, 0 } };
  EXPECT_EQ(read->GetPixel(origin), 1.0f);
  EXPECT_TRUE(TransfersAre(read->GetCudaDataManager(), 0, 0));
  std::remove(file.c_str());
  // No device: asking for the GPU copy is a clear error, not a crash.
  EXPECT_NE(itk::CudaTest::ExceptionMessage([&] { read->GetCudaDataManager()->GetGPUBufferPointer(); })
              .find("no CUDA device is available"),
            std::string::npos);
}
} // namespace
