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
#include "itkCudaHostMemoryPool.h"
#include "itkCudaImage.h"
#include "itkCudaTestUtilities.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

namespace
{
using itk::CudaHostMemoryPool;

// The pool keeps the pinned blocks images give back for the life of the
// process (the driver unpins them at exit). compute-sanitizer's leak check
// counts what is still pinned when the process ends, whichever test cached
// it: the suite empties the cache after its last test.
class ReleasePinnedCacheAfterTheSuite : public ::testing::Environment
{
public:
  void
  TearDown() override
  {
    CudaHostMemoryPool::GetInstance().ReleaseCache();
  }
};
[[maybe_unused]] const ::testing::Environment * const releasePinnedCache =
  ::testing::AddGlobalTestEnvironment(new ReleasePinnedCacheAfterTheSuite);

// The pool is process-wide: each test looks at differences of its statistics
// and leaves the cache empty.
class CudaHostMemoryPoolTest : public itk::CudaTest::BackendTest
{
protected:
  void
  TearDown() override
  {
    Pool().ReleaseCache();
    BackendTest::TearDown();
  }
  static CudaHostMemoryPool &
  Pool()
  {
    return CudaHostMemoryPool::GetInstance();
  }
};

/** The copies a large block may have before the pool pins it (CudaHostPinning::OnReuse). */
constexpr unsigned int CopiesBeforePinning = 3;
/** A block the pool pins only once reused, and one it pins when allocated. */
constexpr size_t Large = CudaHostMemoryPool::PinAtAllocationBelow;
constexpr size_t Small = CudaHostMemoryPool::PinAtAllocationBelow / 4;

TEST_P(CudaHostMemoryPoolTest, LargeBlocksArePageableAndReusedFromTheCache)
{
  const auto   before = Pool().GetStatistics();
  const size_t bytes = Large + (size_t{ 1 } << 20);
  void *       first = Pool().Allocate(bytes);
  std::memset(first, 0x5A, bytes); // usable memory
  EXPECT_FALSE(Pool().IsPinned(first)); // not copied yet: not worth pinning
  EXPECT_TRUE(Pool().Owns(first));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 4096, 0u); // page-aligned, as pinning wants
  auto stats = Pool().GetStatistics();
  EXPECT_EQ(stats.PinnedAllocations, before.PinnedAllocations);
  EXPECT_EQ(stats.PageableBytesInUse, before.PageableBytesInUse + bytes);

  Pool().Free(first);
  stats = Pool().GetStatistics();
  EXPECT_EQ(stats.CachedBytes, before.CachedBytes + bytes); // kept: its pages are faulted in
  EXPECT_EQ(stats.CachedPinnedBytes, before.CachedPinnedBytes);
  EXPECT_FALSE(Pool().Owns(first));

  void * again = Pool().Allocate(bytes - 4096); // a little smaller fits the cached block
  EXPECT_EQ(again, first);
  EXPECT_EQ(static_cast<unsigned char *>(again)[bytes / 2], 0x5A); // the same pages
  stats = Pool().GetStatistics();
  EXPECT_EQ(stats.CacheHits, before.CacheHits + 1);
  EXPECT_EQ(stats.PinnedAllocations, before.PinnedAllocations);
  Pool().Free(again);

  void * larger = Pool().Allocate(2 * bytes); // too large for it: a new block
  EXPECT_NE(larger, first);
  Pool().Free(larger);
  EXPECT_EQ(Pool().GetStatistics().CachedBytes, before.CachedBytes + 3 * bytes);
  Pool().ReleaseCache();
  EXPECT_EQ(Pool().GetStatistics().CachedBytes, 0u);
}

TEST_P(CudaHostMemoryPoolTest, SmallerBlocksArePinnedWhenAllocated)
{
  const auto before = Pool().GetStatistics();
  void *     block = Pool().Allocate(Small);
  EXPECT_TRUE(Pool().IsPinned(block));
  EXPECT_EQ(Pool().GetStatistics().PinnedAllocations, before.PinnedAllocations + 1);
  EXPECT_EQ(Pool().GetStatistics().PinnedBytesInUse, before.PinnedBytesInUse + Small);
  Pool().Free(block);
  void * again = Pool().Allocate(Small);
  EXPECT_EQ(again, block); // from the cache, still pinned
  EXPECT_TRUE(Pool().IsPinned(again));
  EXPECT_EQ(Pool().GetStatistics().PinnedAllocations, before.PinnedAllocations + 1);
  Pool().Free(again);
}

TEST_P(CudaHostMemoryPoolTest, ABlockIsPinnedBeforeItsFourthCopyCountedOverItsLife)
{
  const auto   before = Pool().GetStatistics();
  const size_t bytes = Large;
  void *       block = Pool().Allocate(bytes);
  for (unsigned int copy = 1; copy < CopiesBeforePinning; ++copy)
  {
    Pool().PrepareForTransfer(block); // a one-shot copy goes through the staging buffers
    EXPECT_FALSE(Pool().IsPinned(block)) << "copy " << copy;
  }
  Pool().Free(block);
  void * reused = Pool().Allocate(bytes); // another image gets the block, and its count
  ASSERT_EQ(reused, block);
  Pool().PrepareForTransfer(reused);
  EXPECT_FALSE(Pool().IsPinned(reused));
  Pool().PrepareForTransfer(reused);
  EXPECT_TRUE(Pool().IsPinned(reused));
  EXPECT_TRUE(Pool().IsPinned(static_cast<char *>(reused) + bytes - 1));
  auto stats = Pool().GetStatistics();
  EXPECT_EQ(stats.PinnedAllocations, before.PinnedAllocations + 1);
  EXPECT_EQ(stats.PinnedBytesInUse, before.PinnedBytesInUse + bytes);
  EXPECT_EQ(stats.PageableBytesInUse, before.PageableBytesInUse);
  Pool().PrepareForTransfer(reused); // pinned once
  EXPECT_EQ(Pool().GetStatistics().PinnedAllocations, before.PinnedAllocations + 1);
  int notOurs = 0;
  Pool().PrepareForTransfer(&notOurs); // ignored
  Pool().PrepareForTransfer(static_cast<char *>(reused) + 64); // not the start of a block: ignored
  Pool().Free(reused);
  stats = Pool().GetStatistics();
  EXPECT_EQ(stats.CachedPinnedBytes, before.CachedPinnedBytes + bytes); // cached, still pinned
  if (m_Emulated)
  {
    EXPECT_EQ(m_Emulated->GetNumberOfPinnedHostRanges(), 1u);
  }
  void * pinned = Pool().Allocate(bytes);
  EXPECT_TRUE(Pool().IsPinned(pinned)); // from the cache, pinned at once
  Pool().Free(pinned);
  Pool().ReleaseCache();
  if (m_Emulated)
  {
    EXPECT_EQ(m_Emulated->GetNumberOfPinnedHostRanges(), 0u); // unpinned when released
  }
}

TEST_P(CudaHostMemoryPoolTest, PinningPolicies)
{
  const itk::CudaHostPinning policy = Pool().GetPinning();
  const size_t               bytes = size_t{ 1 } << 20;

  Pool().SetPinning(itk::CudaHostPinning::Always);
  void * always = Pool().Allocate(Large);
  EXPECT_TRUE(Pool().IsPinned(always));
  Pool().Free(always);
  Pool().ReleaseCache();

  Pool().SetPinning(itk::CudaHostPinning::Never);
  void * never = Pool().Allocate(bytes); // small, yet not pinned
  for (unsigned int copy = 0; copy <= CopiesBeforePinning; ++copy)
  {
    Pool().PrepareForTransfer(never);
  }
  EXPECT_FALSE(Pool().IsPinned(never));
  Pool().Free(never);
  void * reused = Pool().Allocate(bytes);
  EXPECT_EQ(reused, never); // still cached
  EXPECT_FALSE(Pool().IsPinned(reused));
  Pool().Free(reused);

  Pool().SetPinning(policy);
  EXPECT_EQ(Pool().GetPinning(), policy);
}

TEST_P(CudaHostMemoryPoolTest, CacheStaysUnderItsLimit)
{
  const size_t limit = Pool().GetCacheLimit();
  Pool().SetCacheLimit(size_t{ 4 } << 20);
  const itk::CudaHostPinning policy = Pool().GetPinning();
  Pool().SetPinning(itk::CudaHostPinning::Always);
  void * a = Pool().Allocate(size_t{ 3 } << 20);
  void * b = Pool().Allocate(size_t{ 2 } << 20);
  Pool().SetPinning(policy);
  Pool().Free(a);
  Pool().Free(b); // 5 MiB cached would exceed 4 MiB: the largest goes
  EXPECT_EQ(Pool().GetStatistics().CachedBytes, size_t{ 2 } << 20);
  if (m_Emulated)
  {
    EXPECT_EQ(m_Emulated->GetNumberOfPinnedHostRanges(), 1u); // the block that went was unpinned
  }
  Pool().ReleaseCache();
  EXPECT_EQ(Pool().GetStatistics().CachedBytes, 0u);
  if (m_Emulated)
  {
    EXPECT_EQ(m_Emulated->GetNumberOfPinnedHostRanges(), 0u);
  }
  Pool().SetCacheLimit(limit);
}

TEST_P(CudaHostMemoryPoolTest, SmallBlocksArePageable)
{
  void * small = Pool().Allocate(1024);
  EXPECT_FALSE(Pool().IsPinned(small));
  EXPECT_TRUE(Pool().Owns(small));
  Pool().Free(small);
  int notOurs = 0;
  Pool().Free(&notOurs); // ignored: never free what we did not allocate
}

TEST_P(CudaHostMemoryPoolTest, LargeCudaImagesArePinnedWhenTheirBufferIsCopiedAgain)
{
  using ImageType = itk::CudaImage<float, 3>;
  const auto   before = Pool().GetStatistics();
  const void * buffer = nullptr;
  {
    auto image = ImageType::New();
    image->SetRegions(ImageType::SizeType{ { 256, 128, 128 } }); // 16 MiB: pinned only once reused
    image->Allocate();
    buffer = image->GetBufferPointer();
    EXPECT_FALSE(Pool().IsPinned(buffer));
    image->FillBuffer(2.0f);
    itk::CudaDataManager * manager = image->GetCudaDataManager();
    for (unsigned int round = 0; round < 2; ++round)
    {
      manager->GetGPUBufferPointer();                      // an upload (a GPU write follows)
      EXPECT_EQ(image->GetPixel({ { 1, 2, 3 } }), 2.0f);   // a download
      EXPECT_EQ(Pool().IsPinned(buffer), round == 1) << "round " << round; // pinned before the 4th copy
    }
    EXPECT_EQ(manager->GetTransferStatistics().HostToDeviceCount, 2u);
    EXPECT_EQ(manager->GetTransferStatistics().DeviceToHostCount, 2u);
    EXPECT_EQ(Pool().GetStatistics().PinnedAllocations, before.PinnedAllocations + 1);
  }
  auto again = ImageType::New();
  again->SetRegions(ImageType::SizeType{ { 256, 128, 128 } });
  again->Allocate(true);
  EXPECT_EQ(again->GetBufferPointer(), buffer); // from the cache, pinned
  EXPECT_TRUE(Pool().IsPinned(buffer));
  EXPECT_EQ(again->GetBufferPointer()[12345], 0.0f); // and initialised as asked
  EXPECT_EQ(Pool().GetStatistics().CacheHits, before.CacheHits + 1);
  EXPECT_EQ(Pool().GetStatistics().PinnedAllocations, before.PinnedAllocations + 1);

  auto small = ImageType::New();
  small->SetRegions(ImageType::SizeType{ { 4, 4, 4 } });
  small->Allocate();
  EXPECT_FALSE(Pool().IsPinned(small->GetBufferPointer()));
}

ITK_CUDA_INSTANTIATE_BACKEND_TESTS(CudaHostMemoryPoolTest);

TEST(CudaHostMemoryPoolFaults, RunningOutOfPinnedMemoryFallsBackToPageable)
{
  auto                           backend = std::make_shared<itk::CudaEmulatedMemoryBackend>();
  itk::CudaMemoryBackendOverride use(backend);
  backend->SetPinnableHostCapacity(size_t{ 3 } << 20);
  auto & pool = CudaHostMemoryPool::GetInstance();
  pool.ReleaseCache(); // blocks cached by earlier tests in this process were pinned by another backend
  const auto before = pool.GetStatistics();
  const auto policy = pool.GetPinning();
  pool.SetPinning(itk::CudaHostPinning::Always);
  void * cached = pool.Allocate(size_t{ 2 } << 20); // pinned, then cached: 2 of the 3 MiB
  EXPECT_TRUE(pool.IsPinned(cached));
  pool.Free(cached);
  void * block = pool.Allocate(size_t{ 3 } << 20); // too large for the cached one
  pool.SetPinning(policy);
  EXPECT_TRUE(pool.IsPinned(block)); // the cache was given back to make room
  EXPECT_EQ(pool.GetStatistics().CachedBytes, 0u);
  void * other = pool.Allocate(size_t{ 2 } << 20); // small: pinned now, but the capacity is taken
  EXPECT_FALSE(pool.IsPinned(other));
  std::memset(other, 1, size_t{ 2 } << 20);
  EXPECT_EQ(pool.GetStatistics().PinnedFallbacks, before.PinnedFallbacks + 1);
  for (unsigned int copy = 0; copy <= CopiesBeforePinning; ++copy)
  {
    pool.PrepareForTransfer(other); // not tried again
  }
  EXPECT_EQ(pool.GetStatistics().PinnedFallbacks, before.PinnedFallbacks + 1);
  pool.Free(other);
  pool.Free(block);
  pool.ReleaseCache();
  EXPECT_EQ(backend->GetNumberOfPinnedHostRanges(), 0u);
  EXPECT_EQ(backend->GetPinnedHostBytes(), 0u);
}

// ITK_CUDA_HOST_PINNING is read when a pool is made: a pool of this test's
// own, on the emulated backend (the same on machines with and without a GPU).
TEST(CudaHostMemoryPoolEnvironment, PinningVariable)
{
  auto                           backend = std::make_shared<itk::CudaEmulatedMemoryBackend>();
  itk::CudaMemoryBackendOverride use(backend);
  const char *                   saved = std::getenv("ITK_CUDA_HOST_PINNING");
  const std::string              restore = saved != nullptr ? saved : "";
  const std::pair<const char *, itk::CudaHostPinning> settings[] = {
    { "always", itk::CudaHostPinning::Always }, { "NEVER", itk::CudaHostPinning::Never },
    { "Reuse", itk::CudaHostPinning::OnReuse }, { "", itk::CudaHostPinning::OnReuse },
    { "sometimes", itk::CudaHostPinning::OnReuse } // with a warning
  };
  for (const auto & setting : settings)
  {
    setenv("ITK_CUDA_HOST_PINNING", setting.first, 1);
    CudaHostMemoryPool pool;
    EXPECT_EQ(pool.GetPinning(), setting.second) << "'" << setting.first << "'";
    void * block = pool.Allocate(size_t{ 1 } << 20); // small: pinned at once unless never
    EXPECT_EQ(pool.IsPinned(block), setting.second != itk::CudaHostPinning::Never) << "'" << setting.first << "'";
    pool.Free(block);
    pool.ReleaseCache();
  }
  unsetenv("ITK_CUDA_HOST_PINNING");
  EXPECT_EQ(CudaHostMemoryPool().GetPinning(), itk::CudaHostPinning::OnReuse);
  if (saved != nullptr)
  {
    setenv("ITK_CUDA_HOST_PINNING", restore.c_str(), 1);
  }
  EXPECT_EQ(backend->GetNumberOfPinnedHostRanges(), 0u);
}

TEST(CudaHostMemoryPoolWithoutDevice, EverythingIsPageable)
{
  ITK_CUDA_SKIP_WITH_GPU();
  auto & pool = CudaHostMemoryPool::GetInstance();
  void * block = pool.Allocate(size_t{ 8 } << 20);
  EXPECT_FALSE(pool.IsPinned(block));
  pool.Free(block);
}
} // namespace
