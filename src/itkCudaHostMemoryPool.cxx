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
#include "itkCudaEnvironment.h"
#include "itkCudaStagedCopy.h"
#include "itkCudaProcessGlobal.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <new>
#include <string>

namespace itk
{
namespace
{
constexpr size_t smallAlignment = 64;
constexpr size_t hugePage = size_t{ 2 } << 20;

/** Under CudaHostPinning::OnReuse a large block is pinned before its copy number
 * CopiesBeforePinning + 1, counted over its whole life in the pool (every
 * image that had it). Measured on the H200 (docs/performance.md, "First
 * use"): pinning 512 MiB of touched pages takes ~11 ms, and each copy from
 * pinned memory saves ~3.7 ms over the staged copy; after 3 staged copies
 * the pinning would have paid for itself (the ski-rental rule: never more
 * than twice the cost of the better choice made in hindsight). */
constexpr unsigned int CopiesBeforePinning = 3;

size_t
CacheLimitFromEnvironment()
{
  uint64_t megabytes = 2048;
  CudaDetail::EnvironmentNumber("ITK_CUDA_HOST_CACHE_MB", &megabytes);
  return static_cast<size_t>(megabytes) << 20;
}

CudaHostPinning
PinningFromEnvironment()
{
  const std::string text = CudaDetail::EnvironmentWord("ITK_CUDA_HOST_PINNING");
  if (text == "always")
  {
    return CudaHostPinning::Always;
  }
  if (text == "never")
  {
    return CudaHostPinning::Never;
  }
  if (!text.empty() && text != "reuse")
  {
    std::cerr << "CudaCommon: ITK_CUDA_HOST_PINNING='" << CudaDetail::EnvironmentText("ITK_CUDA_HOST_PINNING")
              << "' is not one of reuse, always, never; using reuse\n";
  }
  return CudaHostPinning::OnReuse;
}

size_t
PageSize()
{
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

/** Fresh anonymous pages for `bytes` (at least one page); *mapped: what to
 * munmap. From 2 MiB on the block starts on a 2 MiB boundary and asks for
 * transparent huge pages: a first touch then faults 2 MiB at a time, several
 * times faster than 4 KiB pages. Null when the system is out of memory. */
void *
MapPages(size_t bytes, size_t * mapped)
{
  const size_t page = PageSize();
  const size_t length = (std::max<size_t>(bytes, 1) + page - 1) / page * page;
  const bool   huge = length >= hugePage;
  const size_t reserve = huge ? length + hugePage : length;
  void *       base = mmap(nullptr, reserve, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED)
  {
    return nullptr;
  }
  char * begin = static_cast<char *>(base);
  if (huge)
  {
    // Trim the reservation to a 2 MiB-aligned range of `length` bytes.
    const uintptr_t address = reinterpret_cast<uintptr_t>(begin);
    char *          aligned = begin + ((hugePage - address % hugePage) % hugePage);
    if (aligned > begin)
    {
      munmap(begin, static_cast<size_t>(aligned - begin));
    }
    char * const end = begin + reserve;
    if (end > aligned + length)
    {
      munmap(aligned + length, static_cast<size_t>(end - (aligned + length)));
    }
    begin = aligned;
#ifdef MADV_HUGEPAGE
    madvise(begin, length, MADV_HUGEPAGE); // advice only: without THP the block simply has small pages
#endif
  }
  *mapped = length;
  return begin;
}
} // namespace

CudaHostMemoryPool &
CudaHostMemoryPool::GetInstance()
{
  // One per process (a block returns to the pool it came from whichever copy
  // of this library releases it), never destroyed: images released during
  // static destruction may still return their blocks. The driver unpins at
  // exit.
  static CudaHostMemoryPool & pool = *static_cast<CudaHostMemoryPool *>(CudaDetail::ProcessGlobal(
    "HostMemoryPool", sizeof(CudaHostMemoryPool), []() -> void * { return new CudaHostMemoryPool; }));
  return pool;
}

CudaHostMemoryPool::CudaHostMemoryPool()
  : m_CacheLimit(CacheLimitFromEnvironment())
  , m_Pinning(PinningFromEnvironment())
{}

CudaHostMemoryPool::~CudaHostMemoryPool()
{
  this->ReleaseCache();
}

void *
CudaHostMemoryPool::Allocate(size_t bytes)
{
  if (bytes < m_PinnedThreshold)
  {
    const size_t rounded = (bytes + smallAlignment - 1) / smallAlignment * smallAlignment;
    void *       pointer = std::aligned_alloc(smallAlignment, rounded == 0 ? smallAlignment : rounded);
    if (pointer == nullptr)
    {
      throw std::bad_alloc();
    }
    Block small;
    small.Bytes = bytes; // MappedBytes 0: from std::aligned_alloc
    std::lock_guard<std::mutex> lock(m_Mutex);
    m_Live.emplace(pointer, std::move(small));
    m_Statistics.PageableBytesInUse += bytes;
    return pointer;
  }

  void * pointer = nullptr;
  Block  block;
  bool   fromCache = false;
  {
    // Reuse a cached block of this size, or at most a quarter larger.
    std::lock_guard<std::mutex> lock(m_Mutex);
    auto                        it = m_Cache.lower_bound(bytes);
    if (it != m_Cache.end() && it->first <= bytes + bytes / 4)
    {
      pointer = it->second.first;
      block = std::move(it->second.second);
      m_Cache.erase(it);
      m_Statistics.CachedBytes -= block.Bytes;
      if (block.Pinned)
      {
        m_Statistics.CachedPinnedBytes -= block.Bytes;
      }
      ++m_Statistics.CacheHits;
      fromCache = true;
    }
  }
  if (!fromCache)
  {
    pointer = MapPages(bytes, &block.MappedBytes);
    if (pointer == nullptr)
    {
      // Out of memory: give the cache back and try once more.
      this->ReleaseCache();
      pointer = MapPages(bytes, &block.MappedBytes);
      if (pointer == nullptr)
      {
        throw std::bad_alloc();
      }
    }
    block.Bytes = bytes;
    block.Fresh = true;
    auto backend = CudaMemoryBackend::GetDefault();
    if (backend && backend->IsDeviceAvailable())
    {
      block.Backend = std::move(backend);
    }
  }
  const CudaHostPinning pinning = m_Pinning;
  if (pinning == CudaHostPinning::Always || (pinning == CudaHostPinning::OnReuse && bytes < PinAtAllocationBelow))
  {
    this->Pin(pointer, block); // not yet visible to other threads
  }
  std::lock_guard<std::mutex> lock(m_Mutex);
  (block.Pinned ? m_Statistics.PinnedBytesInUse : m_Statistics.PageableBytesInUse) += block.Bytes;
  m_Live.emplace(pointer, std::move(block));
  return pointer;
}

void
CudaHostMemoryPool::Pin(void * pointer, Block & block) noexcept
{
  if (block.Pinned || block.PinFailed || !block.Backend)
  {
    return;
  }
  const size_t bytes = block.MappedBytes;
  bool         pinned = block.Backend->RegisterHost(pointer, bytes) == cudaSuccess;
  if (!pinned)
  {
    // Out of page-locked memory: give the cached pinned blocks back, once.
    this->ReleaseCache();
    pinned = block.Backend->RegisterHost(pointer, bytes) == cudaSuccess;
  }
  block.Pinned = pinned;
  block.PinFailed = !pinned;
  block.Fresh = block.Fresh && !pinned; // pinning faulted the pages in
  std::lock_guard<std::mutex> lock(m_Mutex);
  ++(pinned ? m_Statistics.PinnedAllocations : m_Statistics.PinnedFallbacks);
}

void
CudaHostMemoryPool::PrepareForTransfer(const void * pointer) noexcept
{
  void * start = nullptr;
  Block  pinning;
  {
    std::lock_guard<std::mutex> lock(m_Mutex);
    const auto                  it = m_Live.find(pointer);
    if (it == m_Live.end() || it->second.MappedBytes == 0)
    {
      return;
    }
    Block & block = it->second;
    ++block.Transfers;
    start = const_cast<void *>(it->first);
    pinning.MappedBytes = block.MappedBytes;
    if (block.Fresh)
    {
      block.Fresh = false; // prefaulted below
    }
    else if (block.Transfers > CopiesBeforePinning && !block.Pinned && !block.PinFailed && !block.Pinning && block.Backend &&
             m_Pinning.load() == CudaHostPinning::OnReuse)
    {
      block.Pinning = true; // pinned below
      pinning.Backend = block.Backend;
    }
    else
    {
      return;
    }
  }
  if (!pinning.Backend)
  {
    // The first copy of a new block: the caller holds the block, so it lives.
    CudaPrefaultHostMemory(start, pinning.MappedBytes);
    return;
  }
  this->Pin(start, pinning);
  std::unique_lock<std::mutex> lock(m_Mutex);
  const auto                   it = m_Live.find(start);
  if (it == m_Live.end())
  {
    // Freed while being pinned, against the contract (the copy that asked for
    // it was still to come): Free() left the block to us.
    lock.unlock();
    this->Release(start, pinning);
    return;
  }
  Block & block = it->second;
  block.Pinning = false;
  block.Pinned = pinning.Pinned;
  block.PinFailed = pinning.PinFailed;
  if (block.Pinned)
  {
    m_Statistics.PageableBytesInUse -= block.Bytes;
    m_Statistics.PinnedBytesInUse += block.Bytes;
  }
}

void
CudaHostMemoryPool::Release(void * pointer, const Block & block) noexcept
{
  if (block.MappedBytes == 0)
  {
    std::free(pointer);
    return;
  }
  if (block.Pinned)
  {
    block.Backend->UnregisterHost(pointer); // at exit the runtime may be gone: nothing to do about it
  }
  munmap(pointer, block.MappedBytes);
}

void
CudaHostMemoryPool::Free(void * pointer) noexcept
{
  if (pointer == nullptr)
  {
    return;
  }
  Block block;
  {
    std::lock_guard<std::mutex> lock(m_Mutex);
    const auto                  it = m_Live.find(pointer);
    if (it == m_Live.end())
    {
      return; // not ours: never free what we did not allocate
    }
    block = std::move(it->second);
    m_Live.erase(it);
    (block.Pinned ? m_Statistics.PinnedBytesInUse : m_Statistics.PageableBytesInUse) -= block.Bytes;
    // Large blocks of a machine with a device are kept: their pages are
    // faulted in (and maybe pinned), which a fresh block would pay for again.
    if (block.MappedBytes != 0 && block.Backend && !block.Pinning)
    {
      m_Statistics.CachedBytes += block.Bytes;
      if (block.Pinned)
      {
        m_Statistics.CachedPinnedBytes += block.Bytes;
      }
      const size_t bytes = block.Bytes;
      m_Cache.emplace(bytes, std::make_pair(pointer, std::move(block)));
      this->TrimCacheLocked(m_CacheLimit);
      return;
    }
    if (block.Pinning)
    {
      return; // PrepareForTransfer() finds it gone and releases it
    }
  }
  this->Release(pointer, block);
}

void
CudaHostMemoryPool::TrimCacheLocked(size_t limit) noexcept
{
  // Largest blocks first: they hold the most memory.
  while (m_Statistics.CachedBytes > limit && !m_Cache.empty())
  {
    auto   it = std::prev(m_Cache.end());
    void * pointer = it->second.first;
    Block  block = std::move(it->second.second);
    m_Cache.erase(it);
    m_Statistics.CachedBytes -= block.Bytes;
    if (block.Pinned)
    {
      m_Statistics.CachedPinnedBytes -= block.Bytes;
    }
    this->Release(pointer, block);
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
CudaHostMemoryPool::SetPinning(CudaHostPinning pinning)
{
  m_Pinning = pinning;
}

CudaHostPinning
CudaHostMemoryPool::GetPinning() const
{
  return m_Pinning;
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
