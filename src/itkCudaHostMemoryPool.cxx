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

#include <cstdlib>
#include <new>
#include <string>

namespace itk
{
namespace
{
constexpr size_t alignment = 64;

size_t
CacheLimitFromEnvironment()
{
  const char * value = std::getenv("ITK_CUDA_HOST_CACHE_MB");
  if (value != nullptr)
  {
    char *                   end = nullptr;
    const unsigned long long megabytes = std::strtoull(value, &end, 10);
    if (end != value && *end == '\0')
    {
      return static_cast<size_t>(megabytes) << 20;
    }
  }
  return size_t{ 2048 } << 20;
}
} // namespace

CudaHostMemoryPool &
CudaHostMemoryPool::GetInstance()
{
  // Never destroyed: images released during static destruction may still
  // return their blocks. The driver reclaims pinned memory at exit.
  static auto * pool = new CudaHostMemoryPool;
  return *pool;
}

CudaHostMemoryPool::CudaHostMemoryPool()
  : m_CacheLimit(CacheLimitFromEnvironment())
{}

CudaHostMemoryPool::~CudaHostMemoryPool()
{
  this->ReleaseCache();
}

void *
CudaHostMemoryPool::AllocatePageable(size_t bytes)
{
  const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void *       pointer = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  if (pointer == nullptr)
  {
    throw std::bad_alloc();
  }
  return pointer;
}

void *
CudaHostMemoryPool::Allocate(size_t bytes)
{
  std::shared_ptr<CudaMemoryBackend> backend;
  {
    std::lock_guard<std::mutex> lock(m_Mutex);
    if (bytes >= m_PinnedThreshold)
    {
      // Reuse a cached block of this size, or at most a quarter larger.
      auto it = m_Cache.lower_bound(bytes);
      if (it != m_Cache.end() && it->first <= bytes + bytes / 4)
      {
        void * pointer = it->second.first;
        Block  block = std::move(it->second.second);
        m_Cache.erase(it);
        m_Statistics.CachedBytes -= block.Bytes;
        m_Statistics.PinnedBytesInUse += block.Bytes;
        ++m_Statistics.CacheHits;
        m_Live.emplace(pointer, std::move(block));
        return pointer;
      }
      backend = CudaMemoryBackend::GetDefault();
    }
  }
  if (backend && backend->IsDeviceAvailable())
  {
    void * pointer = nullptr;
    if (backend->AllocateHost(&pointer, bytes) != cudaSuccess)
    {
      // Out of pinned memory: give the cache back and try once more.
      {
        std::lock_guard<std::mutex> lock(m_Mutex);
        this->TrimCacheLocked(0);
      }
      if (backend->AllocateHost(&pointer, bytes) != cudaSuccess)
      {
        pointer = nullptr;
      }
    }
    std::lock_guard<std::mutex> lock(m_Mutex);
    if (pointer != nullptr)
    {
      m_Live.emplace(pointer, Block{ bytes, true, backend });
      m_Statistics.PinnedBytesInUse += bytes;
      ++m_Statistics.PinnedAllocations;
      return pointer;
    }
    ++m_Statistics.PinnedFallbacks;
  }
  void *                      pointer = this->AllocatePageable(bytes);
  std::lock_guard<std::mutex> lock(m_Mutex);
  m_Live.emplace(pointer, Block{ bytes, false, nullptr });
  m_Statistics.PageableBytesInUse += bytes;
  return pointer;
}

void
CudaHostMemoryPool::Free(void * pointer) noexcept
{
  if (pointer == nullptr)
  {
    return;
  }
  std::lock_guard<std::mutex> lock(m_Mutex);
  const auto                  it = m_Live.find(pointer);
  if (it == m_Live.end())
  {
    return; // not ours: never free what we did not allocate
  }
  Block block = std::move(it->second);
  m_Live.erase(it);
  if (!block.Pinned)
  {
    m_Statistics.PageableBytesInUse -= block.Bytes;
    std::free(pointer);
    return;
  }
  m_Statistics.PinnedBytesInUse -= block.Bytes;
  m_Statistics.CachedBytes += block.Bytes;
  const size_t bytes = block.Bytes;
  m_Cache.emplace(bytes, std::make_pair(pointer, std::move(block)));
  this->TrimCacheLocked(m_CacheLimit);
}

void
CudaHostMemoryPool::TrimCacheLocked(size_t limit) noexcept
{
  // Largest blocks first: they pin the most memory.
  while (m_Statistics.CachedBytes > limit && !m_Cache.empty())
  {
    auto   it = std::prev(m_Cache.end());
    void * pointer = it->second.first;
    Block  block = std::move(it->second.second);
    m_Cache.erase(it);
    m_Statistics.CachedBytes -= block.Bytes;
    if (block.Backend)
    {
      block.Backend->FreeHost(pointer); // at exit the runtime may be gone: nothing to do about it
    }
  }
}

bool
CudaHostMemoryPool::Owns(const void * pointer) const
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  return m_Live.count(pointer) != 0;
}

bool
CudaHostMemoryPool::IsPinned(const void * pointer) const
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  const auto * address = static_cast<const char *>(pointer);
  for (const auto & live : m_Live)
  {
    const auto * begin = static_cast<const char *>(live.first);
    if (live.second.Pinned && address >= begin && address < begin + live.second.Bytes)
    {
      return true;
    }
  }
  return false;
}

void
CudaHostMemoryPool::SetCacheLimit(size_t bytes)
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  m_CacheLimit = bytes;
  this->TrimCacheLocked(m_CacheLimit);
}

size_t
CudaHostMemoryPool::GetCacheLimit() const
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  return m_CacheLimit;
}

void
CudaHostMemoryPool::SetPinnedThreshold(size_t bytes)
{
  m_PinnedThreshold = bytes;
}

size_t
CudaHostMemoryPool::GetPinnedThreshold() const
{
  return m_PinnedThreshold;
}

void
CudaHostMemoryPool::ReleaseCache() noexcept
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  this->TrimCacheLocked(0);
}

auto
CudaHostMemoryPool::GetStatistics() const -> Statistics
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  return m_Statistics;
}
} // namespace itk
