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
#include "itkCudaImage.h"
#include "itkCudaTestUtilities.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <thread>
#include <vector>

namespace
{
using itk::CudaDataManager;
using itk::CudaTest::ExceptionMessage;
using itk::CudaTest::TransfersAre;

class CudaDataManagerTest : public itk::CudaTest::BackendTest
{
protected:
  void
  SetUp() override
  {
    BackendTest::SetUp();
    if (IsSkipped())
    {
      return;
    }
    m_Host.resize(1000);
    std::iota(m_Host.begin(), m_Host.end(), 1.0f);
    m_Manager = CudaDataManager::New();
    m_Manager->SetBufferSize(Bytes());
    m_Manager->SetCPUBufferPointer(m_Host.data());
    // The CPU copy holds the data: the usual state after an image's Allocate().
    m_Manager->SetCPUDirtyFlag(false);
    m_Manager->SetGPUDirtyFlag(true);
  }

  void
  TearDown() override
  {
    m_Manager = nullptr;
    BackendTest::TearDown();
  }

  size_t
  Bytes() const
  {
    return m_Host.size() * sizeof(float);
  }

  std::vector<float>
  DeviceContents(const void * device) const
  {
    std::vector<float> values(m_Host.size());
    ReadDevice(values.data(), device, Bytes());
    return values;
  }

  std::vector<float>        m_Host;
  CudaDataManager::Pointer m_Manager;
};

TEST_P(CudaDataManagerTest, UploadsOnceWhenTheGPUCopyIsStale)
{
  void * device = m_Manager->GetGPUBufferPointer();
  ASSERT_NE(device, nullptr);
  EXPECT_TRUE(TransfersAre(m_Manager, 1, 0));
  EXPECT_EQ(m_Manager->GetTransferStatistics().HostToDeviceBytes, Bytes());
  EXPECT_EQ(DeviceContents(device), m_Host);
  EXPECT_EQ(m_Manager->GetGPUBufferSize(), Bytes());

  // Asking again moves nothing.
  EXPECT_EQ(m_Manager->GetGPUBufferPointer(), device);
  EXPECT_EQ(m_Manager->GetConstGPUBufferPointer(), device);
  EXPECT_TRUE(TransfersAre(m_Manager, 1, 0));
}

TEST_P(CudaDataManagerTest, WritableGPUPointerMarksCPUStaleAndDownloadsOnRead)
{
  auto *             device = static_cast<float *>(m_Manager->GetGPUBufferPointer());
  EXPECT_TRUE(m_Manager->IsCPUBufferDirty());
  EXPECT_FALSE(m_Manager->IsGPUBufferDirty());
  std::vector<float> written(m_Host.size(), -3.5f);
  WriteDevice(device, written.data(), Bytes()); // what a kernel would do

  const void * host = m_Manager->GetConstCPUBufferPointer();
  EXPECT_EQ(host, m_Host.data());
  EXPECT_EQ(m_Host, written);
  EXPECT_TRUE(TransfersAre(m_Manager, 1, 1));
  EXPECT_EQ(m_Manager->GetTransferStatistics().DeviceToHostBytes, Bytes());
  // A const read leaves the GPU copy current: no upload on the next GPU read.
  EXPECT_FALSE(m_Manager->IsGPUBufferDirty());
  m_Manager->GetConstGPUBufferPointer();
  EXPECT_TRUE(TransfersAre(m_Manager, 1, 1));
}

TEST_P(CudaDataManagerTest, ReadOnlyGPUPointerLeavesTheCPUCopyCurrent)
{
  m_Manager->GetConstGPUBufferPointer();
  EXPECT_FALSE(m_Manager->IsCPUBufferDirty());
  EXPECT_FALSE(m_Manager->IsGPUBufferDirty());
  m_Manager->GetConstCPUBufferPointer();
  EXPECT_TRUE(TransfersAre(m_Manager, 1, 0));
}

TEST_P(CudaDataManagerTest, OverwritePointerSkipsTheUpload)
{
  void * device = m_Manager->GetGPUBufferPointerForOverwrite();
  ASSERT_NE(device, nullptr);
  EXPECT_TRUE(TransfersAre(m_Manager, 0, 0));
  EXPECT_TRUE(m_Manager->IsCPUBufferDirty());
  std::vector<float> written(m_Host.size(), 7.0f);
  WriteDevice(device, written.data(), Bytes());
  m_Manager->UpdateCPUBuffer();
  EXPECT_EQ(m_Host, written);
  EXPECT_TRUE(TransfersAre(m_Manager, 0, 1));
}

TEST_P(CudaDataManagerTest, WritableCPUPointerReleasesTheStaleGPUBuffer)
{
  auto * device = static_cast<float *>(m_Manager->GetGPUBufferPointer());
  std::vector<float> written(m_Host.size(), 2.0f);
  WriteDevice(device, written.data(), Bytes());

  void * host = m_Manager->GetCPUBufferPointer();
  EXPECT_EQ(host, m_Host.data());
  EXPECT_EQ(m_Host, written); // downloaded before the GPU copy was dropped
  EXPECT_TRUE(m_Manager->IsGPUBufferDirty());
  EXPECT_FALSE(m_Manager->IsCPUBufferDirty());
  EXPECT_EQ(m_Manager->GetGPUBufferSize(), 0u);
  EXPECT_EQ(LiveAllocations(), 0u);
  EXPECT_TRUE(TransfersAre(m_Manager, 1, 1));
}

TEST_P(CudaDataManagerTest, ReleaseDirtyGPUBufferOffKeepsTheAllocation)
{
  m_Manager->ReleaseDirtyGPUBufferOff();
  void * device = m_Manager->GetGPUBufferPointer();
  m_Manager->SetGPUBufferDirty();
  EXPECT_EQ(m_Manager->GetGPUBufferSize(), Bytes());
  m_Host[0] = 42.0f;
  EXPECT_EQ(m_Manager->GetConstGPUBufferPointer(), device); // same allocation, new contents
  EXPECT_EQ(DeviceContents(device), m_Host);
  EXPECT_TRUE(TransfersAre(m_Manager, 2, 1));
}

TEST_P(CudaDataManagerTest, UpdateSynchronisesBothCopies)
{
  EXPECT_TRUE(m_Manager->Update());
  EXPECT_FALSE(m_Manager->IsCPUBufferDirty());
  EXPECT_FALSE(m_Manager->IsGPUBufferDirty());
  EXPECT_TRUE(TransfersAre(m_Manager, 1, 0));
  EXPECT_TRUE(m_Manager->Update());
  EXPECT_TRUE(TransfersAre(m_Manager, 1, 0));
}

TEST_P(CudaDataManagerTest, BothCopiesStaleIsAnError)
{
  m_Manager->GetGPUBufferPointer();
  m_Manager->SetGPUDirtyFlag(true); // by hand: nobody holds the data now
  EXPECT_NE(ExceptionMessage([&] { m_Manager->Update(); }).find("both the CPU and the GPU copies are marked stale"),
            std::string::npos);
}

TEST_P(CudaDataManagerTest, FreeKeepsTheOnlyCurrentCopy)
{
  auto * device = static_cast<float *>(m_Manager->GetGPUBufferPointer());
  std::vector<float> written(m_Host.size(), 9.0f);
  WriteDevice(device, written.data(), Bytes());
  m_Manager->Free();
  EXPECT_EQ(m_Host, written);
  EXPECT_EQ(m_Manager->GetGPUBufferSize(), 0u);
  EXPECT_FALSE(m_Manager->IsCPUBufferDirty());
}

TEST_P(CudaDataManagerTest, GraftedManagersShareBuffersFlagsAndCounters)
{
  auto other = CudaDataManager::New();
  other->Graft(m_Manager);
  EXPECT_TRUE(other->SharesBuffersWith(m_Manager));
  auto * device = static_cast<float *>(other->GetGPUBufferPointer());
  EXPECT_EQ(m_Manager->GetConstGPUBufferPointer(), device);
  EXPECT_TRUE(m_Manager->IsCPUBufferDirty());
  std::vector<float> written(m_Host.size(), 5.0f);
  WriteDevice(device, written.data(), Bytes());
  m_Manager->UpdateCPUBuffer();
  EXPECT_EQ(m_Host, written);
  EXPECT_TRUE(TransfersAre(other, 1, 1));

  // Initialize() detaches: the other manager keeps the buffers.
  m_Manager->Initialize();
  EXPECT_FALSE(other->SharesBuffersWith(m_Manager));
  EXPECT_EQ(m_Manager->GetBufferSize(), 0u);
  EXPECT_EQ(other->GetBufferSize(), Bytes());
  EXPECT_EQ(other->GetConstGPUBufferPointer(), device);
}

TEST_P(CudaDataManagerTest, ExternalGPUBufferIsNeverFreed)
{
  void * external = nullptr;
  CUDA_CHECK(itk::CudaMemoryBackend::GetDefault()->GetMemoryResource()->Allocate(&external, Bytes(), 0, nullptr));
  std::vector<float> values(m_Host.size(), 11.0f);
  WriteDevice(external, values.data(), Bytes());
  {
    auto borrower = CudaDataManager::New();
    borrower->SetBufferSize(Bytes());
    std::vector<float> host(m_Host.size());
    borrower->SetCPUBufferPointer(host.data());
    borrower->SetGPUBufferPointer(external);
    borrower->SetCPUDirtyFlag(true);
    borrower->SetGPUDirtyFlag(false);
    EXPECT_EQ(borrower->GetConstCPUBufferPointer(), host.data());
    EXPECT_EQ(host, values);
    // A CPU write makes the borrowed copy stale but does not drop it.
    borrower->GetCPUBufferPointer();
    EXPECT_EQ(borrower->GetGPUBufferSize(), Bytes());
    host[0] = -1.0f;
    EXPECT_EQ(borrower->GetConstGPUBufferPointer(), external);
    EXPECT_EQ(DeviceContents(external)[0], -1.0f);
  }
  EXPECT_EQ(LiveAllocations(), 1u); // the external buffer, still alive
  // Still ours to free: the manager did not.
  EXPECT_EQ(itk::CudaMemoryBackend::GetDefault()->GetMemoryResource()->Deallocate(external, Bytes(), 0, nullptr),
            cudaSuccess);
}

TEST_P(CudaDataManagerTest, NullExternalPointerIsRejected)
{
  const std::string message = ExceptionMessage([&] { m_Manager->SetGPUBufferPointer(static_cast<void *>(nullptr)); });
  EXPECT_NE(message.find("got a null pointer"), std::string::npos) << message;
}

TEST_P(CudaDataManagerTest, ExternalPointerMustHoldTheBuffer)
{
  void * external = nullptr;
  CUDA_CHECK(itk::CudaMemoryBackend::GetDefault()->GetMemoryResource()->Allocate(&external, 256, 0, nullptr));
  auto manager = CudaDataManager::New();
  EXPECT_NE(ExceptionMessage([&] { manager->SetGPUBufferPointer(external); }).find("set the buffer size"),
            std::string::npos);
  manager->SetBufferSize(4000);
  std::string message = ExceptionMessage([&] { manager->SetGPUBufferPointer(external); });
  EXPECT_NE(message.find("holds 256 bytes from there, the buffer needs 4000"), std::string::npos) << message;
  manager->SetBufferSize(200);
  message = ExceptionMessage([&] { manager->SetGPUBufferPointer(static_cast<char *>(external) + 100); });
  EXPECT_NE(message.find("holds 156 bytes"), std::string::npos) << message;
  int onTheStack = 0;
  message = ExceptionMessage([&] { manager->SetGPUBufferPointer(&onTheStack); });
  EXPECT_NE(message.find("is not in a device allocation"), std::string::npos) << message;
  manager->SetGPUBufferPointer(static_cast<char *>(external) + 56); // exactly 200 bytes left: fine
  EXPECT_EQ(manager->GetGPUBufferSize(), 200u);
  manager = nullptr;
  EXPECT_EQ(itk::CudaMemoryBackend::GetDefault()->GetMemoryResource()->Deallocate(external, 256, 0, nullptr),
            cudaSuccess);
}

TEST_P(CudaDataManagerTest, AdoptedGPUBufferIsTheCurrentCopy)
{
  void * external = nullptr;
  CUDA_CHECK(itk::CudaMemoryBackend::GetDefault()->GetMemoryResource()->Allocate(&external, Bytes(), 0, nullptr));
  std::vector<float> values(m_Host.size(), 3.0f);
  WriteDevice(external, values.data(), Bytes());
  auto owner = std::make_shared<int>(7);
  m_Manager->GetGPUBufferPointer(); // an owned buffer, replaced by the adopted one
  EXPECT_EQ(LiveAllocations(), 2u);
  m_Manager->SetBufferSize(8); // any size before: the adoption sets it
  m_Manager->AdoptGPUBuffer(external, Bytes(), owner);
  EXPECT_EQ(LiveAllocations(), 1u); // ours went, the external one stays
  EXPECT_EQ(m_Manager->GetBufferSize(), Bytes());
  EXPECT_TRUE(m_Manager->IsCPUBufferDirty());
  EXPECT_FALSE(m_Manager->IsGPUBufferDirty());
  EXPECT_EQ(m_Manager->PeekCPUBuffer(), nullptr); // no host buffer until the host reads
  m_Manager->ResetTransferStatistics();
  EXPECT_EQ(m_Manager->GetConstGPUBufferPointer(), external);
  EXPECT_TRUE(TransfersAre(m_Manager, 0, 0));
  EXPECT_EQ(owner.use_count(), 2); // kept alive by the manager
  std::vector<float> host(m_Host.size());
  m_Manager->SetCPUBufferPointer(host.data());
  m_Manager->UpdateCPUBuffer();
  EXPECT_EQ(host, values);
  EXPECT_TRUE(TransfersAre(m_Manager, 0, 1));
  m_Manager = nullptr;
  EXPECT_EQ(owner.use_count(), 1);
  EXPECT_EQ(LiveAllocations(), 1u); // borrowed: never freed by us
  EXPECT_EQ(itk::CudaMemoryBackend::GetDefault()->GetMemoryResource()->Deallocate(external, Bytes(), 0, nullptr),
            cudaSuccess);
}

TEST_P(CudaDataManagerTest, RefusedAdoptionChangesNothing)
{
  void * external = nullptr;
  CUDA_CHECK(itk::CudaMemoryBackend::GetDefault()->GetMemoryResource()->Allocate(&external, 256, 0, nullptr));
  std::string message = ExceptionMessage([&] { m_Manager->AdoptGPUBuffer(nullptr, Bytes()); });
  EXPECT_NE(message.find("AdoptGPUBuffer expects device memory holding the data"), std::string::npos) << message;
  message = ExceptionMessage([&] { m_Manager->AdoptGPUBuffer(external, 0); });
  EXPECT_NE(message.find("and 0 bytes"), std::string::npos) << message;
  message = ExceptionMessage([&] { m_Manager->AdoptGPUBuffer(external, Bytes()); });
  EXPECT_NE(message.find("holds 256 bytes from there, the buffer needs 4000"), std::string::npos) << message;
  int onTheStack = 0;
  message = ExceptionMessage([&] { m_Manager->AdoptGPUBuffer(&onTheStack, sizeof(int)); });
  EXPECT_NE(message.find("is not in a device allocation"), std::string::npos) << message;
  EXPECT_EQ(m_Manager->GetBufferSize(), Bytes());
  EXPECT_FALSE(m_Manager->IsCPUBufferDirty());
  EXPECT_EQ(m_Manager->GetConstCPUBufferPointer(), m_Host.data());
  EXPECT_EQ(m_Manager->GetGPUBufferSize(), 0u);
  EXPECT_EQ(itk::CudaMemoryBackend::GetDefault()->GetMemoryResource()->Deallocate(external, 256, 0, nullptr),
            cudaSuccess);
}

TEST_P(CudaDataManagerTest, NoHostStreamedProductionWithoutAPinnedHostBuffer)
{
  // m_Host is pageable; an image without a host buffer has none to write.
  m_Manager->ReleaseDirtyGPUBufferOff();
  m_Manager->GetConstGPUBufferPointer();
  m_Manager->GetCPUBufferPointer(); // the GPU copy stale, its buffer kept
  EXPECT_FALSE(m_Manager->BeginHostStreamedProduction());
  EXPECT_FALSE(m_Manager->IsCPUBufferDirty());
  EXPECT_TRUE(m_Manager->IsGPUBufferDirty());
  EXPECT_EQ(m_Manager->PeekCPUBuffer(), m_Host.data());
  EXPECT_EQ(m_Manager->GetGPUBufferSize(), Bytes());
  auto unmade = CudaDataManager::New();
  unmade->AdoptCPUBuffer(nullptr, Bytes());
  EXPECT_FALSE(unmade->BeginHostStreamedProduction());
  EXPECT_EQ(unmade->PeekCPUBuffer(), nullptr);
  EXPECT_FALSE(unmade->IsCPUBufferDirty());
  EXPECT_EQ(unmade->GetGPUBufferSize(), 0u);
}

TEST_P(CudaDataManagerTest, ConcurrentReadersDownloadOnce)
{
  auto * device = static_cast<float *>(m_Manager->GetGPUBufferPointer());
  std::vector<float> written(m_Host.size(), 4.0f);
  WriteDevice(device, written.data(), Bytes());

  std::vector<std::thread> threads;
  std::vector<float>       seen(16, 0.0f);
  for (size_t t = 0; t < seen.size(); ++t)
  {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i)
      {
        seen[t] = static_cast<const float *>(m_Manager->GetConstCPUBufferPointer())[t];
      }
    });
  }
  for (auto & thread : threads)
  {
    thread.join();
  }
  for (const float v : seen)
  {
    EXPECT_EQ(v, 4.0f);
  }
  EXPECT_TRUE(TransfersAre(m_Manager, 1, 1));
}

TEST_P(CudaDataManagerTest, ResetTransferStatistics)
{
  m_Manager->GetGPUBufferPointer();
  m_Manager->ResetTransferStatistics();
  EXPECT_TRUE(TransfersAre(m_Manager, 0, 0));
  EXPECT_EQ(m_Manager->GetTransferStatistics().HostToDeviceBytes, 0u);
}

TEST_P(CudaDataManagerTest, NothingLeaksWhenTheManagerGoes)
{
  m_Manager->GetGPUBufferPointer();
  EXPECT_EQ(LiveAllocations(), 1u);
  m_Manager = nullptr;
  EXPECT_EQ(LiveAllocations(), 0u);
}

ITK_CUDA_INSTANTIATE_BACKEND_TESTS(CudaDataManagerTest);

// --- host-streamed productions: pinned host memory, so a CUDA device

class CudaHostStreamedProductionTest : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    ITK_CUDA_SKIP_WITHOUT_GPU();
    CUDA_CHECK(cudaMallocHost(&m_Pinned, Bytes));
    std::fill_n(static_cast<float *>(m_Pinned), Pixels, 2.0f);
    m_Manager = CudaDataManager::New();
    m_Manager->AdoptCPUBuffer(m_Pinned, Bytes);
  }
  void
  TearDown() override
  {
    m_Manager = nullptr;
    if (m_Pinned != nullptr)
    {
      CUDA_CHECK(cudaFreeHost(m_Pinned));
    }
  }

  /** What a streamed producer does: every pixel through the device, doubled there, and back. */
  void
  Produce(const itk::CudaHostStreamedProduction & production, size_t pixels)
  {
    std::vector<float> doubled(Pixels);
    std::transform(static_cast<const float *>(production.GetHostBuffer()),
                   static_cast<const float *>(production.GetHostBuffer()) + Pixels,
                   doubled.begin(),
                   [](float v) { return 2.0f * v; });
    CUDA_CHECK(cudaMemcpy(production.GetDeviceBuffer(), doubled.data(), pixels * sizeof(float), cudaMemcpyHostToDevice));
    std::copy_n(doubled.begin(), pixels, static_cast<float *>(production.GetHostBuffer()));
  }

  static constexpr size_t  Pixels = 4096;
  static constexpr size_t  Bytes = Pixels * sizeof(float);
  void *                   m_Pinned{ nullptr };
  CudaDataManager::Pointer m_Manager;
};

TEST_F(CudaHostStreamedProductionTest, CommitMakesBothCopiesCurrentAndCountsTheCopies)
{
  itk::CudaHostStreamedProduction production = m_Manager->BeginHostStreamedProduction();
  ASSERT_TRUE(production);
  EXPECT_EQ(production.GetHostBuffer(), m_Pinned);
  EXPECT_NE(production.GetDeviceBuffer(), nullptr);
  EXPECT_EQ(m_Manager->GetGPUBufferSize(), Bytes);
  EXPECT_TRUE(m_Manager->IsCPUBufferDirty()); // neither copy is current while it runs
  EXPECT_TRUE(m_Manager->IsGPUBufferDirty());
  Produce(production, Pixels);
  itk::CudaTransferStatistics copies;
  copies.HostToDeviceCount = 2;
  copies.HostToDeviceBytes = 2 * Bytes;
  copies.DeviceToHostCount = 1;
  copies.DeviceToHostBytes = Bytes;
  itk::CudaHostStreamedProduction moved = std::move(production);
  EXPECT_FALSE(production);
  moved.Commit(copies);
  EXPECT_FALSE(moved);
  EXPECT_FALSE(m_Manager->IsCPUBufferDirty());
  EXPECT_FALSE(m_Manager->IsGPUBufferDirty());
  const auto statistics = m_Manager->GetTransferStatistics();
  EXPECT_EQ(statistics.HostToDeviceCount, 2u);
  EXPECT_EQ(statistics.HostToDeviceBytes, 2 * Bytes);
  EXPECT_EQ(statistics.DeviceToHostCount, 1u);
  EXPECT_EQ(statistics.DeviceToHostBytes, Bytes);
  EXPECT_TRUE(m_Manager->TakeBothBuffersCurrentByProducer());
  std::vector<float> device(Pixels);
  CUDA_CHECK(cudaMemcpy(device.data(), m_Manager->GetConstGPUBufferPointer(), Bytes, cudaMemcpyDeviceToHost));
  EXPECT_EQ(device, std::vector<float>(Pixels, 4.0f));
  EXPECT_EQ(static_cast<const float *>(m_Manager->GetConstCPUBufferPointer())[Pixels - 1], 4.0f);
  EXPECT_EQ(m_Manager->GetTransferStatistics().HostToDeviceCount, 2u); // nothing copied since
  EXPECT_THROW(moved.Commit(copies), itk::ExceptionObject);
}

TEST_F(CudaHostStreamedProductionTest, AbandonedProductionKeepsWhatLandedOnTheHost)
{
  m_Manager->GetConstGPUBufferPointer(); // both current before
  {
    itk::CudaHostStreamedProduction production = m_Manager->BeginHostStreamedProduction();
    ASSERT_TRUE(production);
    Produce(production, Pixels / 2); // an error after half the chunks
  }
  EXPECT_FALSE(m_Manager->IsCPUBufferDirty());
  EXPECT_TRUE(m_Manager->IsGPUBufferDirty());
  EXPECT_FALSE(m_Manager->TakeBothBuffersCurrentByProducer());
  const auto * host = static_cast<const float *>(m_Manager->GetConstCPUBufferPointer());
  EXPECT_EQ(host[0], 4.0f);
  EXPECT_EQ(host[Pixels - 1], 2.0f);
  m_Manager->ResetTransferStatistics();
  std::vector<float> device(Pixels);
  CUDA_CHECK(cudaMemcpy(device.data(), m_Manager->GetConstGPUBufferPointer(), Bytes, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(TransfersAre(m_Manager, 1, 0)); // the host copy went up again
  EXPECT_EQ(device[Pixels - 1], 2.0f);
  EXPECT_EQ(device[0], 4.0f);
}

// --- faults, on the emulated backend (reproducible everywhere)

class CudaDataManagerFaultTest : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    m_Host.assign(256, 1.5f);
    m_Manager = CudaDataManager::New();
    m_Manager->SetBufferSize(m_Host.size() * sizeof(float));
    m_Manager->SetCPUBufferPointer(m_Host.data());
    m_Manager->SetGPUDirtyFlag(true);
  }

  std::shared_ptr<itk::CudaEmulatedMemoryBackend> m_Backend{ std::make_shared<itk::CudaEmulatedMemoryBackend>(4096) };
  itk::CudaMemoryBackendOverride                  m_Override{ m_Backend };
  std::vector<float>                              m_Host;
  CudaDataManager::Pointer                        m_Manager;
};

TEST_F(CudaDataManagerFaultTest, FailedUploadThrowsAndLeavesAUsableManager)
{
  m_Backend->FailCopyAfter(1);
  const std::string message = ExceptionMessage([&] { m_Manager->GetGPUBufferPointer(); });
  EXPECT_NE(message.find("cudaErrorLaunchFailure"), std::string::npos) << message;
  // The CPU copy still holds the data and the GPU copy is still marked stale.
  EXPECT_FALSE(m_Manager->IsCPUBufferDirty());
  EXPECT_TRUE(m_Manager->IsGPUBufferDirty());
  // The lock was released: the next call works.
  EXPECT_NE(m_Manager->GetGPUBufferPointer(), nullptr);
  EXPECT_TRUE(TransfersAre(m_Manager, 1, 0));
}

TEST_F(CudaDataManagerFaultTest, FailedDownloadKeepsTheGPUCopyAsTheValidOne)
{
  m_Manager->GetGPUBufferPointer();
  m_Backend->FailCopyAfter(1);
  EXPECT_NE(ExceptionMessage([&] { m_Manager->UpdateCPUBuffer(); }).find("cudaErrorLaunchFailure"),
            std::string::npos);
  EXPECT_TRUE(m_Manager->IsCPUBufferDirty());
  EXPECT_FALSE(m_Manager->IsGPUBufferDirty());
  m_Manager->UpdateCPUBuffer();
  EXPECT_FALSE(m_Manager->IsCPUBufferDirty());
}

TEST_F(CudaDataManagerFaultTest, OutOfDeviceMemoryNamesRequestedAndFreeSizes)
{
  auto big = CudaDataManager::New();
  std::vector<char> host(8192);
  big->SetBufferSize(host.size());
  big->SetCPUBufferPointer(host.data());
  big->SetGPUDirtyFlag(true);
  const std::string message = ExceptionMessage([&] { big->GetGPUBufferPointer(); });
  EXPECT_NE(message.find("cannot allocate 8192 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("4096 of 4096 bytes free"), std::string::npos) << message;
  EXPECT_NE(message.find("cudaErrorMemoryAllocation"), std::string::npos) << message;
  EXPECT_EQ(m_Backend->GetNumberOfLiveAllocations(), 0u);
  // The CPU side is untouched and usable.
  EXPECT_FALSE(big->IsCPUBufferDirty());
  EXPECT_EQ(big->GetConstCPUBufferPointer(), host.data());
}

// --- without a device (the CI machine)

TEST(CudaDataManagerWithoutDevice, AskingForTheGPUCopyThrowsClearly)
{
  ITK_CUDA_SKIP_WITH_GPU();
  std::vector<float> host(16, 1.0f);
  auto               manager = CudaDataManager::New();
  manager->SetBufferSize(host.size() * sizeof(float));
  manager->SetCPUBufferPointer(host.data());
  manager->SetGPUDirtyFlag(true);
  const std::string message = ExceptionMessage([&] { manager->GetGPUBufferPointer(); });
  EXPECT_NE(message.find("no CUDA device is available"), std::string::npos) << message;
  EXPECT_FALSE(manager->Update()); // only the CPU copy exists
  EXPECT_EQ(manager->GetConstCPUBufferPointer(), host.data());
}

// --- the ITK_RELEASE_DIRTY_GPU_BUFFERS default

TEST(CudaDataManagerEnvironment, ReleaseDirtyGPUBuffersVariable)
{
  const char * saved = std::getenv("ITK_RELEASE_DIRTY_GPU_BUFFERS");
  const std::string savedValue = saved ? saved : "";
  for (const char * on : { "1", "true", "ON", "yes", "anything" })
  {
    setenv("ITK_RELEASE_DIRTY_GPU_BUFFERS", on, 1);
    EXPECT_TRUE(CudaDataManager::GetReleaseDirtyGPUBufferDefault()) << on;
  }
  for (const char * off : { "0", "false", "Off", "NO" })
  {
    setenv("ITK_RELEASE_DIRTY_GPU_BUFFERS", off, 1);
    EXPECT_FALSE(CudaDataManager::GetReleaseDirtyGPUBufferDefault()) << off;
  }
  unsetenv("ITK_RELEASE_DIRTY_GPU_BUFFERS");
  EXPECT_TRUE(CudaDataManager::GetReleaseDirtyGPUBufferDefault());

  if (saved)
  {
    setenv("ITK_RELEASE_DIRTY_GPU_BUFFERS", savedValue.c_str(), 1);
  }
}
// Run by CTest in a process started with ITK_RELEASE_DIRTY_GPU_BUFFERS set
// (test/CMakeLists.txt), and CUDACOMMON_EXPECT_RELEASE saying what follows.
TEST(CudaDataManagerEnvironment, NewManagersFollowTheProcessSetting)
{
  const char * expected = std::getenv("CUDACOMMON_EXPECT_RELEASE");
  if (expected == nullptr)
  {
    GTEST_SKIP() << "run by CTest with ITK_RELEASE_DIRTY_GPU_BUFFERS set";
  }
  EXPECT_EQ(CudaDataManager::New()->GetReleaseDirtyGPUBuffer(), std::string(expected) == "1");
  using ImageType = itk::CudaImage<float, 2>;
  EXPECT_EQ(ImageType::New()->GetCudaDataManager()->GetReleaseDirtyGPUBuffer(), std::string(expected) == "1");
}
} // namespace
