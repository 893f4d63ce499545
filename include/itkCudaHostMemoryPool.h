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
#ifndef itkCudaHostMemoryPool_h
#define itkCudaHostMemoryPool_h

#include "itkCudaMemoryBackend.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace itk
{
/** \class CudaHostMemoryPool
 * \brief Host memory for CudaImage pixel buffers: pinned, from a cache.
 *
 * Copies between the GPU and pinned (page-locked) host memory run at full
 * PCIe speed; from ordinary pageable memory they are several times slower.
 * But pinning is expensive (cudaHostAlloc of 512 MiB takes ~180 ms), so
 * freed pinned blocks are kept in a cache, up to a byte limit, and reused for
 * later allocations of about the same size.
 *
 * - Blocks smaller than the pinned threshold (default 64 KiB), and every
 *   block when no device is available, are ordinary aligned host memory:
 *   small images make no CUDA call at all.
 * - When pinned memory runs out, the cache is emptied and the allocation
 *   retried; if it still fails, the block is pageable (counted in
 *   Statistics::PinnedFallbacks): slower copies, never a failure.
 * - The cache limit defaults to ITK_CUDA_HOST_CACHE_MB (MiB; default 2048).
 *
 * Thread-safe. Blocks remember the memory backend that made them.
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT CudaHostMemoryPool
{
public:
  struct Statistics
  {
    size_t   PinnedBytesInUse{ 0 };   ///< pinned blocks handed out
    size_t   PageableBytesInUse{ 0 }; ///< pageable blocks handed out
    size_t   CachedBytes{ 0 };        ///< pinned blocks kept for reuse
    uint64_t CacheHits{ 0 };          ///< pinned allocations served from the cache
    uint64_t PinnedAllocations{ 0 };  ///< pinned allocations made through the backend
    uint64_t PinnedFallbacks{ 0 };    ///< pinned requests served with pageable memory
  };

  /** The process-wide pool. */
  static CudaHostMemoryPool &
  GetInstance();

  /** At least `bytes` bytes, 64-byte aligned.
   * \throws std::bad_alloc only when pageable memory is exhausted too. */
  void *
  Allocate(size_t bytes);

  /** Return a block from Allocate() (pinned blocks go to the cache). */
  void
  Free(void * pointer) noexcept;

  /** True when `pointer` is the start of a live block of this pool. */
  bool
  Owns(const void * pointer) const;

  /** True when `pointer` lies in a live pinned block of this pool. */
  bool
  IsPinned(const void * pointer) const;

  void
  SetCacheLimit(size_t bytes);
  size_t
  GetCacheLimit() const;

  void
  SetPinnedThreshold(size_t bytes);
  size_t
  GetPinnedThreshold() const;

  /** Free every cached block now. */
  void
  ReleaseCache() noexcept;

  Statistics
  GetStatistics() const;

  CudaHostMemoryPool();
  ~CudaHostMemoryPool();
  CudaHostMemoryPool(const CudaHostMemoryPool &) = delete;
  CudaHostMemoryPool &
  operator=(const CudaHostMemoryPool &) = delete;

private:
  struct Block
  {
    size_t                             Bytes{ 0 };
    bool                               Pinned{ false };
    std::shared_ptr<CudaMemoryBackend> Backend;
  };

  void
  TrimCacheLocked(size_t limit) noexcept;
  void *
  AllocatePageable(size_t bytes);

  mutable std::mutex                         m_Mutex;
  std::unordered_map<const void *, Block>    m_Live;
  std::multimap<size_t, std::pair<void *, Block>> m_Cache; // by size
  size_t                                     m_CacheLimit;
  std::atomic<size_t>                        m_PinnedThreshold{ size_t{ 64 } << 10 };
  Statistics                                 m_Statistics;
};
} // namespace itk

#endif
