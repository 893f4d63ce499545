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
#include "itkCudaDataManager.h"
#include "itkCudaTestUtilities.h"

namespace
{
using itk::GPUMemPointer;
using itk::CudaTest::ExceptionMessage;

class GPUMemPointerTest : public itk::CudaTest::BackendTest
{};

TEST_P(GPUMemPointerTest, OwnsWhatItAllocates)
{
  {
    auto buffer = GPUMemPointer::New();
    buffer->Allocate(1 << 20);
    EXPECT_NE(buffer->GetPointer(), nullptr);
    EXPECT_EQ(*static_cast<void **>(buffer->GetPointerPtr()), buffer->GetPointer());
    EXPECT_EQ(buffer->GetBufferSize(), size_t{ 1 } << 20);
    EXPECT_TRUE(buffer->IsOwner());
    EXPECT_EQ(buffer->GetDevice(), 0);
    EXPECT_EQ(LiveAllocations(), 1u);
    buffer->Free();
    EXPECT_EQ(buffer->GetPointer(), nullptr);
    EXPECT_EQ(buffer->GetBufferSize(), 0u);
    buffer->Allocate(1 << 20); // freed by the destructor
  }
  EXPECT_EQ(LiveAllocations(), 0u);
}

TEST_P(GPUMemPointerTest, NeverFreesWhatItBorrows)
{
  void * external = nullptr;
  CUDA_CHECK(itk::CudaMemoryBackend::GetDefault()->GetMemoryResource()->Allocate(&external, 4096, 0, nullptr));
  {
    auto buffer = GPUMemPointer::New();
    buffer->SetBufferSize(4096);
    buffer->SetPointer(external);
    EXPECT_FALSE(buffer->IsOwner());
    EXPECT_EQ(buffer->GetPointer(), external);
    EXPECT_EQ(buffer->GetBufferSize(), 4096u);
    buffer->Allocate(128); // replaces the borrowed pointer without freeing it
    EXPECT_TRUE(buffer->IsOwner());
    EXPECT_NE(buffer->GetPointer(), external);
    buffer->SetPointer(external); // frees the owned one, borrows again
    EXPECT_FALSE(buffer->IsOwner());
  }
  EXPECT_EQ(LiveAllocations(), 1u); // the external one only
  // Freeing it ourselves succeeds: nobody freed it before.
  EXPECT_EQ(itk::CudaMemoryBackend::GetDefault()->GetMemoryResource()->Deallocate(external, 4096, 0, nullptr),
            cudaSuccess);
}

TEST_P(GPUMemPointerTest, KeepsTheOwnerOfABorrowedPointerAlive)
{
  void * external = nullptr;
  CUDA_CHECK(itk::CudaMemoryBackend::GetDefault()->GetMemoryResource()->Allocate(&external, 64, 0, nullptr));
  bool released = false;
  {
    std::shared_ptr<const void> owner(external, [&](const void *) { released = true; });
    auto manager = itk::CudaDataManager::New();
    manager->SetBufferSize(64);
    manager->SetGPUBufferPointer(external, std::move(owner));
    auto graft = itk::CudaDataManager::New();
    graft->Graft(manager);
    manager = nullptr;
    EXPECT_FALSE(released); // the graft still uses it
    graft->Initialize();
    EXPECT_TRUE(released);
  }
  EXPECT_EQ(itk::CudaMemoryBackend::GetDefault()->GetMemoryResource()->Deallocate(external, 64, 0, nullptr),
            cudaSuccess);
}

TEST_P(GPUMemPointerTest, OutOfMemoryNamesTheSizes)
{
  size_t freeBytes = 0;
  size_t totalBytes = 0;
  CUDA_CHECK(itk::CudaMemoryBackend::GetDefault()->GetMemoryInfo(&freeBytes, &totalBytes));
  auto              buffer = GPUMemPointer::New();
  const size_t      tooMuch = totalBytes + (size_t{ 1 } << 30);
  const std::string message = ExceptionMessage([&] { buffer->Allocate(tooMuch); });
  EXPECT_NE(message.find("cannot allocate " + std::to_string(tooMuch) + " bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("bytes free"), std::string::npos) << message;
  EXPECT_NE(message.find("cudaErrorMemoryAllocation"), std::string::npos) << message;
  EXPECT_EQ(buffer->GetPointer(), nullptr);
  // The runtime is still usable afterwards.
  buffer->Allocate(256);
  EXPECT_NE(buffer->GetPointer(), nullptr);
}

ITK_CUDA_INSTANTIATE_BACKEND_TESTS(GPUMemPointerTest);

TEST(GPUMemPointerWithoutDevice, AllocateThrowsClearly)
{
  ITK_CUDA_SKIP_WITH_GPU();
  auto              buffer = GPUMemPointer::New();
  const std::string message = ExceptionMessage([&] { buffer->Allocate(16); });
  EXPECT_NE(message.find("no CUDA device is available"), std::string::npos) << message;
}
} // namespace
