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

#include <cstring>

namespace
{
using itk::CudaHostMemoryPool;

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

TEST_P(CudaHostMemoryPoolTest, LargeBlocksArePinnedAndReusedFromTheCache)
{
  const auto   before = Pool().GetStatistics();
  const size_t bytes = size_t{ 3 } << 20;
  void *       first = Pool().Allocate(bytes);
  std::memset(first, 0x5A, bytes); // usable memory
  EXPECT_TRUE(Pool().IsPinned(first));
  EXPECT_TRUE(Pool().IsPinned(static_cast<char *>(first) + bytes - 1));
  EXPECT_TRUE(Pool().Owns(first));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
  auto stats = Pool().GetStatistics();
  EXPECT_EQ(stats.PinnedAllocations, before.PinnedAllocations + 1);
  EXPECT_EQ(stats.PinnedBytesInUse, before.PinnedBytesInUse + bytes);

  Pool().Free(first);
  stats = Pool().GetStatistics();
  EXPECT_EQ(stats.CachedBytes, before.CachedBytes + bytes);
  EXPECT_FALSE(Pool().Owns(first));

  void * again = Pool().Allocate(bytes - 4096); // a little smaller fits the cached block
  EXPECT_EQ(again, first);
  stats = Pool().GetStatistics();
  EXPECT_EQ(stats.CacheHits, before.CacheHits + 1);
  EXPECT_EQ(stats.PinnedAllocations, before.PinnedAllocations + 1);
  Pool().Free(again);

  void * larger = Pool().Allocate(2 * bytes); // too large for it: a new block
  EXPECT_NE(larger, first);
  EXPECT_EQ(Pool().GetStatistics().PinnedAllocations, before.PinnedAllocations + 2);
  Pool().Free(larger);
}

TEST_P(CudaHostMemoryPoolTest, CacheStaysUnderItsLimit)
{
  const size_t limit = Pool().GetCacheLimit();
  Pool().SetCacheLimit(size_t{ 4 } << 20);
  void * a = Pool().Allocate(size_t{ 3 } << 20);
  void * b = Pool().Allocate(size_t{ 2 } << 20);
  Pool().Free(a);
  Pool().Free(b); // 5 MiB cached would exceed 4 MiB: the largest goes
  EXPECT_EQ(Pool().GetStatistics().CachedBytes, size_t{ 2 } << 20);
  if (m_Emulated)
  {
    EXPECT_EQ(m_Emulated->GetNumberOfLiveHostAllocations(), 1u);
  }
  Pool().ReleaseCache();
  EXPECT_EQ(Pool().GetStatistics().CachedBytes, 0u);
  if (m_Emulated)
  {
    EXPECT_EQ(m_Emulated->GetNumberOfLiveHostAllocations(), 0u);
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

TEST_P(CudaHostMemoryPoolTest, LargeCudaImagesLiveInPinnedMemoryAndReuseIt)
{
  using ImageType = itk::CudaImage<float, 3>;
  const auto before = Pool().GetStatistics();
  const void * buffer = nullptr;
  {
    auto image = ImageType::New();
    image->SetRegions(ImageType::SizeType{ { 64, 64, 64 } }); // 1 MiB
    image->Allocate();
    buffer = image->GetBufferPointer();
    EXPECT_TRUE(Pool().IsPinned(buffer));
    image->FillBuffer(2.0f);
  }
  auto again = ImageType::New();
  again->SetRegions(ImageType::SizeType{ { 64, 64, 64 } });
  again->Allocate(true);
  EXPECT_EQ(again->GetBufferPointer(), buffer); // from the cache
  EXPECT_EQ(again->GetBufferPointer()[12345], 0.0f); // and initialised as asked
  EXPECT_EQ(Pool().GetStatistics().CacheHits, before.CacheHits + 1);

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
  backend->SetHostCapacity(size_t{ 1 } << 20);
  auto &       pool = CudaHostMemoryPool::GetInstance();
  const auto   before = pool.GetStatistics();
  void *       block = pool.Allocate(size_t{ 2 } << 20);
  EXPECT_FALSE(pool.IsPinned(block));
  std::memset(block, 1, size_t{ 2 } << 20);
  EXPECT_EQ(pool.GetStatistics().PinnedFallbacks, before.PinnedFallbacks + 1);
  pool.Free(block);
  EXPECT_EQ(backend->GetNumberOfLiveHostAllocations(), 0u);
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
