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

#include <cstdlib>

// Choosing the device of an image and of a filter; no call changes the calling
// thread's current device. The two-device tests run on machines with two GPUs.
namespace
{
using ImageType = itk::CudaImage<float, 3>;
using itk::CudaTest::ExceptionMessage;

int
DeviceCount()
{
  std::vector<cudaDeviceProp> devices;
  return itk::CudaGetAvailableDevices(devices);
}

int
CurrentDevice()
{
  int device = -1;
  CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

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
  auto image = MakeImage(1.0f);
  auto manager = image->GetCudaDataManager();
  manager->SetDevice(0);
  auto *             device = static_cast<float *>(manager->GetGPUBufferPointer()); // GPU copy current
  std::vector<float> values(64 * 32 * 16, 7.0f);
  CUDA_CHECK(cudaMemcpy(device, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice));
  manager->SetDevice(1);
  const auto * moved = static_cast<const float *>(manager->GetConstGPUBufferPointer());
  EXPECT_EQ(DeviceOf(moved), 1);
  std::vector<float> back(values.size());
  CUDA_CHECK(cudaMemcpy(back.data(), moved, back.size() * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT_EQ(back, values);
}
} // namespace
