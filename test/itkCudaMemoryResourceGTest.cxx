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
#include "itkCudaMemoryResource.h"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaTestUtilities.h"

#include <sstream>

// The memory resource behind device buffers: installed on the active
// backend, it serves every buffer, and a buffer goes back to the resource
// that allocated it. On the emulated backend and on the GPU.
namespace
{
using ImageType = itk::CudaImage<float, 2>;
using itk::CudaTest::CountingMemoryResource;
using itk::CudaTest::ExceptionMessage;

ImageType::Pointer
DeviceImage(float value)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 32, 16 } });
  image->Allocate();
  image->FillBuffer(value);
  image->GetCudaDataManager()->GetGPUBufferPointer();
  return image;
}

/** A resource that refuses every allocation. */
class RefusingMemoryResource : public itk::CudaMemoryResource
{
public:
  const char *
  GetName() const override
  {
    return "refusing test resource";
  }
  cudaError_t
  Allocate(void ** pointer, size_t, int, cudaStream_t) override
  {
    *pointer = nullptr;
    ++Attempts;
    return cudaErrorMemoryAllocation;
  }
  cudaError_t
  Deallocate(void *, size_t, int, cudaStream_t) noexcept override
  {
    return cudaErrorInvalidValue; // nothing was ever allocated here
  }
  int Attempts{ 0 };
};

/** Installs `resource` on the active backend for the scope. */
class ResourceOverride
{
public:
  explicit ResourceOverride(std::shared_ptr<itk::CudaMemoryResource> resource)
    : m_Previous(itk::CudaMemoryBackend::GetDefault()->SetMemoryResource(std::move(resource)))
  {}
  ~ResourceOverride() { itk::CudaMemoryBackend::GetDefault()->SetMemoryResource(m_Previous); }
  ResourceOverride(const ResourceOverride &) = delete;
  ResourceOverride &
  operator=(const ResourceOverride &) = delete;
  const std::shared_ptr<itk::CudaMemoryResource> &
  Previous() const
  {
    return m_Previous;
  }

private:
  std::shared_ptr<itk::CudaMemoryResource> m_Previous;
};

class CudaMemoryResourceTest : public itk::CudaTest::BackendTest
{};

TEST_P(CudaMemoryResourceTest, ImageBuffersComeFromTheInstalledResource)
{
  const auto upstream = itk::CudaMemoryBackend::GetDefault()->GetMemoryResource();
  const auto counting = std::make_shared<CountingMemoryResource>(upstream);
  {
    const ResourceOverride use(counting);
    EXPECT_EQ(use.Previous(), upstream);
    {
      const auto image = DeviceImage(3.0f);
      EXPECT_EQ(counting->GetNumberOfLiveAllocations(), 1u);
      EXPECT_EQ(itk::CudaTest::DeviceCopy(image), std::vector<float>(32 * 16, 3.0f));
      auto buffer = itk::GPUMemPointer::New();
      buffer->Allocate(256);
      EXPECT_EQ(buffer->GetMemoryResource(), counting);
      EXPECT_EQ(counting->GetNumberOfLiveAllocations(), 2u);
    }
    EXPECT_EQ(counting->GetNumberOfLiveAllocations(), 0u);
  }
  EXPECT_EQ(itk::CudaMemoryBackend::GetDefault()->GetMemoryResource(), upstream);
  EXPECT_EQ(LiveAllocations(), 0u);
}

TEST_P(CudaMemoryResourceTest, ABufferGoesBackToTheResourceThatAllocatedIt)
{
  const auto upstream = itk::CudaMemoryBackend::GetDefault()->GetMemoryResource();
  const auto first = std::make_shared<CountingMemoryResource>(upstream);
  const auto second = std::make_shared<CountingMemoryResource>(upstream);
  ImageType::Pointer image;
  {
    const ResourceOverride use(first);
    image = DeviceImage(1.0f);
  }
  {
    const ResourceOverride use(second);
    EXPECT_EQ(first->GetNumberOfLiveAllocations(), 1u);
    EXPECT_EQ(itk::CudaTest::DeviceCopy(image), std::vector<float>(32 * 16, 1.0f));
    EXPECT_EQ(second->GetNumberOfLiveAllocations(), 0u);
    image = nullptr;
    EXPECT_EQ(first->GetNumberOfLiveAllocations(), 0u);
    image = DeviceImage(4.0f);
    EXPECT_EQ(second->GetNumberOfLiveAllocations(), 1u);
    image = nullptr;
    EXPECT_EQ(second->GetNumberOfLiveAllocations(), 0u);
  }
  EXPECT_EQ(LiveAllocations(), 0u);
}

TEST_P(CudaMemoryResourceTest, NullRestoresTheBackendsOwnResource)
{
  auto       backend = itk::CudaMemoryBackend::GetDefault();
  const auto installed = backend->GetMemoryResource();
  // The fixture's backend may have a counting adaptor installed: restore it.
  const auto previous = backend->SetMemoryResource(nullptr);
  EXPECT_EQ(previous, installed);
  const auto own = backend->GetMemoryResource();
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(backend->SetMemoryResource(std::make_shared<RefusingMemoryResource>()), own);
  EXPECT_EQ(backend->SetMemoryResource(nullptr)->GetName(), std::string("refusing test resource"));
  EXPECT_EQ(backend->GetMemoryResource(), own);
  backend->SetMemoryResource(installed);
}

TEST_P(CudaMemoryResourceTest, AFailedAllocationNamesTheResourceAndTheSizes)
{
  const auto refusing = std::make_shared<RefusingMemoryResource>();
  const ResourceOverride use(refusing);
  auto                   image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 32, 16 } });
  image->Allocate();
  image->FillBuffer(5.0f);
  const std::string message = ExceptionMessage([&] { image->GetCudaDataManager()->GetGPUBufferPointer(); });
  EXPECT_NE(message.find("cannot allocate 2048 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("refusing test resource"), std::string::npos) << message;
  EXPECT_NE(message.find("cudaErrorMemoryAllocation"), std::string::npos) << message;
  EXPECT_EQ(refusing->Attempts, 1);
  // Nothing was lost: the pixels are still on the host, and current there.
  EXPECT_EQ(image->GetPixel({ { 31, 15 } }), 5.0f);
  EXPECT_EQ(LiveAllocations(), 0u);
}

ITK_CUDA_INSTANTIATE_BACKEND_TESTS(CudaMemoryResourceTest);

TEST(CudaMemoryResource, TheRuntimeBackendStartsWithThePool)
{
  // No CUDA call: runs without a GPU too.
  itk::CudaRuntimeMemoryBackend backend;
  const auto                    resource = backend.GetMemoryResource();
  EXPECT_NE(dynamic_cast<itk::CudaPoolMemoryResource *>(resource.get()), nullptr);
  EXPECT_EQ(std::string(resource->GetName()), "stream-ordered pool");
}

TEST(CudaMemoryResource, TheSynchronousResourceServesAFilterChain)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  std::shared_ptr<CountingMemoryResource> counting;
  auto                                    runtime = itk::CudaTest::MakeCountingRuntimeBackend(&counting);
  const auto                              synchronous =
    std::make_shared<CountingMemoryResource>(std::make_shared<itk::CudaSynchronousMemoryResource>());
  runtime->SetMemoryResource(synchronous);
  const itk::CudaMemoryBackendOverride use(runtime);
  {
    using SquareType = itk::CudaSquareImageFilter<ImageType>;
    auto first = SquareType::New();
    first->InPlaceOff();
    first->SetInput(DeviceImage(3.0f));
    auto second = SquareType::New();
    second->InPlaceOff();
    second->SetInput(first->GetOutput());
    second->Update();
    EXPECT_EQ(synchronous->GetNumberOfLiveAllocations(), 3u) << "the input and two outputs";
    EXPECT_EQ(itk::CudaTest::DeviceCopy(second->GetOutput()), std::vector<float>(32 * 16, 81.0f));
    std::ostringstream printed;
    second->GetOutput()->GetCudaDataManager()->Print(printed);
    EXPECT_NE(printed.str().find("owned, from cudaMalloc"), std::string::npos) << printed.str();
  }
  EXPECT_EQ(synchronous->GetNumberOfLiveAllocations(), 0u);
  EXPECT_EQ(counting->GetNumberOfLiveAllocations(), 0u) << "the pool was not used";
}
} // namespace
