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
#include "itkCudaMemoryPool.h"
#include "itkCudaMemoryProbe.h"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaTestUtilities.h"

// Real device-memory exhaustion on a GPU: the exception names the requested
// and free sizes, the image stays usable on the CPU, and device memory use
// returns to where it was.
namespace
{
using ImageType = itk::CudaImage<float, 3>;
using itk::CudaTest::ExceptionMessage;

/** Takes all but `leave` bytes of the device's free memory for its lifetime. */
class DeviceMemoryHog
{
public:
  explicit DeviceMemoryHog(size_t leave)
  {
    // Unused memory the pools keep from earlier tests of this process would
    // let an allocation succeed that the test means to fail.
    itk::CudaTrimMemoryPools();
    size_t freeBytes = 0;
    size_t totalBytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    CUDA_CHECK(cudaMalloc(&m_Memory, freeBytes - leave));
  }
  ~DeviceMemoryHog() { cudaFree(m_Memory); }
  DeviceMemoryHog(const DeviceMemoryHog &) = delete;
  DeviceMemoryHog &
  operator=(const DeviceMemoryHog &) = delete;

private:
  void * m_Memory{ nullptr };
};

ImageType::Pointer
MakeImage(unsigned int depth, float value)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 512, 512, depth } }); // depth MiB
  image->Allocate();
  image->FillBuffer(value);
  return image;
}

TEST(CudaOutOfMemory, AnImageLargerThanTheFreeMemory)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto image = MakeImage(512, 3.0f); // 512 MiB
  cudaFree(nullptr);
  itk::CudaTrimMemoryPools(); // the baseline: no memory kept from earlier tests
  itk::CudaMemoryProbe probe;
  probe.Start();
  {
    DeviceMemoryHog   hog(size_t{ 256 } << 20);
    const std::string message = ExceptionMessage([&] { image->GetCudaDataManager()->GetGPUBufferPointer(); });
    EXPECT_NE(message.find("cannot allocate 536870912 bytes"), std::string::npos) << message;
    EXPECT_NE(message.find("bytes free"), std::string::npos) << message;
    EXPECT_NE(message.find("cudaErrorMemoryAllocation"), std::string::npos) << message;
  }
  probe.Stop();
  EXPECT_LE(std::abs(probe.GetTotal()), 4096) << "kB of device memory not returned";
  // The CPU copy is untouched and still current; with memory back, it uploads.
  EXPECT_FALSE(image->GetCudaDataManager()->IsCPUBufferDirty());
  const ImageType::IndexType index = { { 511, 511, 511 } };
  EXPECT_EQ(static_cast<const ImageType *>(image.GetPointer())->GetPixel(index), 3.0f);
  EXPECT_NE(image->GetCudaDataManager()->GetConstGPUBufferPointer(), nullptr);
}

TEST(CudaOutOfMemory, AFilterOutputThatDoesNotFit)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto input = MakeImage(256, 2.0f); // 256 MiB
  input->GetCudaDataManager()->GetConstGPUBufferPointer();
  auto square = itk::CudaSquareImageFilter<ImageType>::New();
  square->InPlaceOff();
  square->SetInput(input);
  itk::CudaTrimMemoryPools(); // the baseline: no memory kept from earlier tests
  itk::CudaMemoryProbe probe;
  probe.Start();
  {
    DeviceMemoryHog   hog(size_t{ 128 } << 20);
    const std::string message = ExceptionMessage([&] { square->Update(); });
    EXPECT_NE(message.find("cannot allocate 268435456 bytes"), std::string::npos) << message;
    EXPECT_NE(message.find("bytes free"), std::string::npos) << message;
  }
  probe.Stop();
  EXPECT_LE(std::abs(probe.GetTotal()), 4096) << "kB of device memory not returned";
  // The input is intact, and the same filter runs once memory is back.
  square->Modified();
  square->Update();
  const ImageType::IndexType index = { { 1, 2, 3 } };
  EXPECT_EQ(square->GetOutput()->GetPixel(index), 4.0f);
  EXPECT_EQ(static_cast<const ImageType *>(input.GetPointer())->GetPixel(index), 2.0f);
}
} // namespace
