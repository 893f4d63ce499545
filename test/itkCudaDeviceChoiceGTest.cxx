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

#include <algorithm>
#include <cstdlib>

// Choosing the device of an image and of a filter; no call changes the calling
// thread's current device. The two-device tests run on machines with two GPUs.
namespace
{
using ImageType = itk::CudaImage<float, 3>;
using itk::CudaTest::ExceptionMessage;

using itk::CudaTest::CurrentDevice;
using itk::CudaTest::DeviceCount;

int
DeviceOf(const void * pointer)
{
  cudaPointerAttributes attributes{};
  CUDA_CHECK(cudaPointerGetAttributes(&attributes, pointer));
  return attributes.device;
}

ImageType::Pointer
MakeImage(float value)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 64, 32, 16 } });
  image->Allocate();
  image->FillBuffer(value);
  return image;
}

class CudaDeviceChoiceTest : public itk::CudaTest::BackendTest
{};

TEST_P(CudaDeviceChoiceTest, DefaultDeviceAndInvalidChoices)
{
  auto image = MakeImage(1.0f);
  auto manager = image->GetCudaDataManager();
  EXPECT_EQ(manager->GetDevice(), itk::CudaGetDefaultDevice());
  int count = 0;
  CUDA_CHECK(itk::CudaMemoryBackend::GetDefault()->GetDeviceCount(&count));
  for (const int bad : { -1, count, count + 3 })
  {
    const std::string message = ExceptionMessage([&] { manager->SetDevice(bad); });
    EXPECT_NE(message.find("invalid CUDA device " + std::to_string(bad)), std::string::npos) << message;
  }
  manager->SetDevice(manager->GetDevice()); // no-op
  EXPECT_TRUE(itk::CudaTest::TransfersAre(manager, 0, 0));
}

ITK_CUDA_INSTANTIATE_BACKEND_TESTS(CudaDeviceChoiceTest);

// Moving between devices, on an emulated backend with two "devices" (runs in CI).
class CudaDeviceMoveTest : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    m_Backend->SetNumberOfDevices(2);
  }
  int
  DeviceOfBuffer(const void * pointer) const
  {
    int device = -1;
    CUDA_CHECK(m_Backend->GetPointerDevice(pointer, &device));
    return device;
  }
  // The image on device 0 with its GPU copy current and holding `value`
  // (written on the "device"), the CPU copy stale.
  ImageType::Pointer
  MakeImageOnDeviceZero(float value)
  {
    auto image = MakeImage(0.0f);
    auto manager = image->GetCudaDataManager();
    manager->SetDevice(0);
    auto *       device = static_cast<float *>(manager->GetGPUBufferPointer());
    const size_t count = image->GetBufferedRegion().GetNumberOfPixels();
    std::fill(device, device + count, value); // emulated device memory is host memory
    manager->ResetTransferStatistics();
    return image;
  }

  std::shared_ptr<itk::CudaEmulatedMemoryBackend> m_Backend = std::make_shared<itk::CudaEmulatedMemoryBackend>();
  itk::CudaMemoryBackendOverride                  m_Override{ m_Backend };
};

TEST_F(CudaDeviceMoveTest, ACurrentGPUCopyIsCopiedDeviceToDevice)
{
  auto         image = MakeImageOnDeviceZero(7.0f);
  auto         manager = image->GetCudaDataManager();
  const size_t bytes = manager->GetBufferSize();
  manager->SetDevice(1);
  EXPECT_EQ(manager->GetDevice(), 1);
  EXPECT_TRUE(manager->IsCPUBufferDirty()); // flags unchanged: the data never went through the host
  EXPECT_FALSE(manager->IsGPUBufferDirty());
  const auto stats = manager->GetTransferStatistics();
  EXPECT_EQ(stats.PeerCount, 1u);
  EXPECT_EQ(stats.PeerBytes, bytes);
  EXPECT_TRUE(itk::CudaTest::TransfersAre(manager, 0, 0));
  EXPECT_EQ(DeviceOfBuffer(manager->GetConstGPUBufferPointer()), 1);
  EXPECT_EQ(m_Backend->GetNumberOfLiveAllocations(), 1u); // the device 0 buffer was freed
  const ImageType::IndexType last = { { 63, 31, 15 } };
  EXPECT_EQ(image->GetPixel(last), 7.0f); // one download, from device 1
  EXPECT_TRUE(itk::CudaTest::TransfersAre(manager, 0, 1));
}

TEST_F(CudaDeviceMoveTest, AStaleGPUCopyIsReleasedNotCopied)
{
  auto image = MakeImage(4.0f); // CPU copy current
  auto manager = image->GetCudaDataManager();
  manager->SetDevice(0);
  manager->GetConstGPUBufferPointer(); // both copies current
  manager->SetGPUBufferDirty();        // the host writes: GPU copy stale
  manager->ResetTransferStatistics();
  manager->SetDevice(1);
  EXPECT_EQ(manager->GetTransferStatistics().PeerCount, 0u);
  EXPECT_EQ(m_Backend->GetNumberOfLiveAllocations(), 0u);
  EXPECT_EQ(DeviceOfBuffer(manager->GetConstGPUBufferPointer()), 1); // uploaded to the new device
  EXPECT_TRUE(itk::CudaTest::TransfersAre(manager, 1, 0));
}

TEST_F(CudaDeviceMoveTest, NoRoomOnTheNewDeviceLeavesTheImageWhereItWas)
{
  auto image = MakeImageOnDeviceZero(5.0f);
  auto manager = image->GetCudaDataManager();
  m_Backend->FailAllocationAfter(1);
  const std::string message = itk::CudaTest::ExceptionMessage([&] { manager->SetDevice(1); });
  EXPECT_NE(message.find("on CUDA device 1"), std::string::npos) << message;
  EXPECT_NE(message.find("cudaErrorMemoryAllocation"), std::string::npos) << message;
  EXPECT_EQ(manager->GetDevice(), 0);
  EXPECT_EQ(DeviceOfBuffer(manager->GetConstGPUBufferPointer()), 0);
  const ImageType::IndexType index = { { 1, 2, 3 } };
  EXPECT_EQ(image->GetPixel(index), 5.0f);
}

TEST_F(CudaDeviceMoveTest, AFailedCopyFreesTheNewBufferAndKeepsTheOld)
{
  auto image = MakeImageOnDeviceZero(6.0f);
  auto manager = image->GetCudaDataManager();
  m_Backend->FailCopyAfter(1);
  const std::string message = itk::CudaTest::ExceptionMessage([&] { manager->SetDevice(1); });
  EXPECT_NE(message.find("cudaErrorLaunchFailure"), std::string::npos) << message;
  EXPECT_EQ(m_Backend->GetNumberOfLiveAllocations(), 1u);
  EXPECT_EQ(manager->GetDevice(), 0);
  EXPECT_EQ(manager->GetTransferStatistics().PeerCount, 0u);
  const ImageType::IndexType index = { { 1, 2, 3 } };
  EXPECT_EQ(image->GetPixel(index), 6.0f);
  manager->SetDevice(1); // works once the fault is gone
  EXPECT_EQ(manager->GetDevice(), 1);
}

TEST_F(CudaDeviceMoveTest, AGraftFollowsTheMove)
{
  auto image = MakeImageOnDeviceZero(3.0f);
  auto graft = ImageType::New();
  graft->Graft(image);
  graft->GetCudaDataManager()->SetDevice(1);
  EXPECT_EQ(image->GetCudaDataManager()->GetDevice(), 1);
  EXPECT_EQ(DeviceOfBuffer(image->GetCudaDataManager()->GetConstGPUBufferPointer()), 1);
  const ImageType::IndexType index = { { 0, 0, 0 } };
  EXPECT_EQ(image->GetPixel(index), 3.0f);
}

TEST(CudaDeviceChoice, DefaultDeviceIsTheMostCapable)
{
  if (std::getenv("ITK_CUDA_DEVICE") != nullptr)
  {
    GTEST_SKIP() << "ITK_CUDA_DEVICE is set";
  }
  EXPECT_EQ(itk::CudaGetDefaultDevice(), std::max(0, itk::CudaGetMaxFlopsDev()));
}

// Run by CTest with ITK_CUDA_DEVICE set (test/CMakeLists.txt).
TEST(CudaDeviceChoice, DefaultDeviceFromEnvironment)
{
  const char * value = std::getenv("ITK_CUDA_DEVICE");
  if (value == nullptr)
  {
    GTEST_SKIP() << "run by CTest with ITK_CUDA_DEVICE set";
  }
  const int chosen = std::atoi(value);
  if (chosen >= 0 && chosen < DeviceCount())
  {
    EXPECT_EQ(itk::CudaGetDefaultDevice(), chosen);
  }
  else
  {
    EXPECT_EQ(itk::CudaGetDefaultDevice(), std::max(0, itk::CudaGetMaxFlopsDev())); // ignored, with a warning
  }
}

TEST(CudaDeviceChoice, FiltersLeaveTheCurrentDeviceAlone)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const int last = DeviceCount() - 1;
  CUDA_CHECK(cudaSetDevice(last));
  auto input = MakeImage(3.0f);
  auto square = itk::CudaSquareImageFilter<ImageType>::New();
  square->SetInput(input);
  square->InPlaceOff();
  square->Update();
  EXPECT_EQ(CurrentDevice(), last);
  const ImageType::IndexType index = { { 63, 31, 15 } };
  EXPECT_EQ(square->GetOutput()->GetPixel(index), 9.0f);
  EXPECT_EQ(CurrentDevice(), last);
  CUDA_CHECK(cudaSetDevice(0));
}

TEST(CudaDeviceChoice, ImageAndFilterOnTheSecondDevice)
{
  if (!itk::IsCudaAvailable() || DeviceCount() < 2)
  {
    GTEST_SKIP() << "needs two CUDA devices";
  }
  CUDA_CHECK(cudaSetDevice(0));
  auto image = MakeImage(2.0f);
  image->GetCudaDataManager()->SetDevice(1);
  const void * device = image->GetCudaDataManager()->GetConstGPUBufferPointer();
  EXPECT_EQ(DeviceOf(device), 1);
  EXPECT_EQ(CurrentDevice(), 0);

  auto square = itk::CudaSquareImageFilter<ImageType>::New();
  square->SetInput(image);
  square->InPlaceOff();
  square->Update(); // follows its input: device 1
  EXPECT_EQ(DeviceOf(square->GetOutput()->GetCudaDataManager()->GetConstGPUBufferPointer()), 1);
  EXPECT_EQ(square->GetOutput()->GetCudaDataManager()->GetDevice(), 1);
  const ImageType::IndexType index = { { 5, 6, 7 } };
  EXPECT_EQ(square->GetOutput()->GetPixel(index), 4.0f);
  EXPECT_EQ(CurrentDevice(), 0);

  auto onZero = itk::CudaSquareImageFilter<ImageType>::New();
  onZero->SetInput(square->GetOutput());
  onZero->InPlaceOff();
  onZero->SetDevice(0); // moves its input to device 0
  onZero->Update();
  EXPECT_EQ(DeviceOf(onZero->GetOutput()->GetCudaDataManager()->GetConstGPUBufferPointer()), 0);
  EXPECT_EQ(onZero->GetOutput()->GetPixel(index), 16.0f);
  EXPECT_EQ(CurrentDevice(), 0);
}

TEST(CudaDeviceChoice, MovingAGPUResultToAnotherDeviceKeepsIt)
{
  if (!itk::IsCudaAvailable() || DeviceCount() < 2)
  {
    GTEST_SKIP() << "needs two CUDA devices";
  }
  CUDA_CHECK(cudaSetDevice(0));
  auto image = MakeImage(1.0f);
  auto manager = image->GetCudaDataManager();
  manager->SetDevice(0);
  auto *             device = static_cast<float *>(manager->GetGPUBufferPointer()); // GPU copy current
  std::vector<float> values(64 * 32 * 16, 7.0f);
  CUDA_CHECK(cudaMemcpy(device, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice));
  manager->ResetTransferStatistics();
  manager->SetDevice(1);
  const auto * moved = static_cast<const float *>(manager->GetConstGPUBufferPointer());
  EXPECT_EQ(DeviceOf(moved), 1);
  EXPECT_EQ(manager->GetTransferStatistics().PeerCount, 1u); // device to device, not through the host
  EXPECT_TRUE(itk::CudaTest::TransfersAre(manager, 0, 0));
  EXPECT_EQ(CurrentDevice(), 0);
  std::vector<float> back(values.size());
  CUDA_CHECK(cudaMemcpy(back.data(), moved, back.size() * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT_EQ(back, values);
}
} // namespace

namespace
{
// A caller whose current device is not the image's (e.g. after another
// library initialised every device) still orders streams across devices.
TEST(CudaDeviceChoice, StreamsOfDevicesOtherThanTheCurrentOneAreOrdered)
{
  if (!itk::IsCudaAvailable() || DeviceCount() < 2)
  {
    GTEST_SKIP() << "needs two CUDA devices";
  }
  CUDA_CHECK(cudaSetDevice(0));
  auto image = MakeImage(2.0f);
  image->GetCudaDataManager()->SetDevice(0);
  image->GetCudaDataManager()->GetConstGPUBufferPointer(); // upload queued on the image's stream (device 0)
  cudaStream_t onZero = image->GetCudaDataManager()->GetStream();

  CUDA_CHECK(cudaSetDevice(1));
  cudaStream_t onOne = nullptr;
  CUDA_CHECK(cudaStreamCreate(&onOne));
  itk::CudaStreamWaitFor(cudaStreamLegacy, onZero); // device 1's legacy stream waits for device 0's stream
  itk::CudaStreamWaitFor(onOne, onZero);
  itk::CudaStreamWaitFor(onZero, onOne);
  itk::CudaStreamWaitFor(onZero, cudaStreamLegacy);
  EXPECT_EQ(CurrentDevice(), 1);
  CUDA_CHECK(cudaStreamSynchronize(onOne));
  CUDA_CHECK(cudaStreamDestroy(onOne));

  // The square filter and the host read still work from device 1.
  auto square = itk::CudaSquareImageFilter<ImageType>::New();
  square->SetInput(image);
  square->InPlaceOff();
  square->Update();
  const ImageType::IndexType index = { { 9, 8, 7 } };
  EXPECT_EQ(square->GetOutput()->GetPixel(index), 4.0f);
  EXPECT_EQ(square->GetOutput()->GetCudaDataManager()->GetDevice(), 0);
  EXPECT_EQ(CurrentDevice(), 1);
  CUDA_CHECK(cudaSetDevice(0));
}
} // namespace
