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
/** When CudaHostMemoryPool pins (page-locks) a large block.
 * \ingroup CudaCommon */
enum class CudaHostPinning
{
  /** A block of CudaHostMemoryPool::PinAtAllocationBelow bytes or more is
   * pinned once it has been copied to or from a device three times, over
   * its whole life in the pool (a block handed from the cache to a new image
   * keeps its count): by then staging would have cost more than pinning. A
   * large buffer copied once or twice (a one-shot pipeline's input or
   * result) is never pinned. Smaller blocks are pinned when allocated: for
   * them a staged copy's fixed cost exceeds pinning's. */
  OnReuse,
  /** Every block is pinned when it is allocated: the fastest copies from the
   * first one, at the price of pinning memory that may be copied only once.
   * (ITKCudaCommon 2.x pinned nothing: its buffers were itk::Image's.) */
  Always,
  /** No block is ever pinned: copies go through the staging buffers. */
  Never
};

/** \class CudaHostMemoryPool
 * \brief Host memory for CudaImage pixel buffers: pinned where that pays,
 * from a cache.
 *
 * Copies between the GPU and pinned (page-locked) host memory run at full
 * PCIe speed (55 GB/s on the H200), from pageable memory through the staged
 * copy at about 40 GB/s. But pinning new memory costs far more than one copy
 * (0.2-0.4 ms per MiB: 512 MiB take 120-200 ms, against ~10 ms for the copy),
 * so by default a block is pinned only once it has been copied three times
 * (CudaHostPinning::OnReuse), and freed blocks are kept in a cache, pinned
 * or not, up to a byte limit, and reused for later allocations of about the
 * same size: their pages are already faulted in, and they keep their pinning
 * and their count of copies.
 *
 * - Blocks smaller than the pinned threshold (default 64 KiB) are ordinary
 *   aligned host memory: small images make no CUDA call at all.
 * - Larger blocks are mapped pages (page-aligned; transparent huge pages
 *   asked for from 2 MiB), pinned by registering them with the CUDA runtime.
 *   Without a device they are never pinned nor cached.
 * - When pinning fails (out of page-locked memory), the cache is emptied and
 *   pinning retried; if it still fails, the block stays pageable (counted in
 *   Statistics::PinnedFallbacks): slower copies, never a failure.
 * - The cache limit defaults to ITK_CUDA_HOST_CACHE_MB (MiB; default 2048);
 *   the policy to ITK_CUDA_HOST_PINNING (`reuse`, `always` or `never`;
 *   default `reuse`).
 *
 * Thread-safe. Blocks remember the memory backend that pinned them.
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT CudaHostMemoryPool
{
public:
  struct Statistics
  {
    size_t   PinnedBytesInUse{ 0 };    ///< pinned blocks handed out
    size_t   PageableBytesInUse{ 0 };  ///< pageable blocks handed out
    size_t   CachedBytes{ 0 };         ///< blocks kept for reuse, pinned or not
    size_t   CachedPinnedBytes{ 0 };   ///< the pinned part of CachedBytes
    uint64_t CacheHits{ 0 };           ///< allocations served from the cache
    uint64_t PinnedAllocations{ 0 };   ///< blocks pinned through the backend
    uint64_t PinnedFallbacks{ 0 };     ///< blocks whose pinning failed (they stay pageable)
  };

  /** Under CudaHostPinning::OnReuse, blocks smaller than this are pinned
   * when allocated. Measured on the H200 (docs/performance.md): pinning new
   * memory costs about 0.2 ms per MiB, a staged copy about 1 ms more than a
   * pinned one whatever its size (chunk synchronisation, the staging lane's
   * first use); RTK's first FDK run (4 and 8 MiB images) took 44 ms with
   * every buffer staged and 31 ms with every buffer pinned. */
  static constexpr size_t PinAtAllocationBelow = size_t{ 16 } << 20;

  /** The process-wide pool. */
  static CudaHostMemoryPool &
  GetInstance();

  /** At least `bytes` bytes, 64-byte aligned.
   * \throws std::bad_alloc only when pageable memory is exhausted too. */
  void *
  Allocate(size_t bytes);

  /** Return a block from Allocate() (large blocks go to the cache). */
  void
  Free(void * pointer) noexcept;

  /** Called before a copy between the block starting at `pointer` and a
   * device. The first copy of a new block faults its pages in first, in
   * parallel (CudaPrefaultHostMemory(): a download into memory no one
   * touched would fault them one at a time). Under CudaHostPinning::OnReuse
   * the fourth copy of a block pins it first. Does nothing for memory that
   * is not a live block of this pool. Never throws: a block that cannot be
   * pinned is copied pageable. */
  void
  PrepareForTransfer(const void * pointer) noexcept;

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

  /** Applies to pinning decisions from now on; pinned blocks stay pinned. */
  void
  SetPinning(CudaHostPinning pinning);
  CudaHostPinning
  GetPinning() const;

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
    size_t                             Bytes{ 0 };       ///< usable bytes (the size first asked for)
    size_t                             MappedBytes{ 0 }; ///< 0: a small block from std::aligned_alloc
    bool                               Pinned{ false };
    bool                               PinFailed{ false };   ///< do not try again
    bool                               Pinning{ false };     ///< a thread is pinning it now
    bool                               Fresh{ false };       ///< mapped, maybe never touched
    unsigned int                       Transfers{ 0 };       ///< copies to or from a device, over its life
    std::shared_ptr<CudaMemoryBackend> Backend;              ///< that pins it; null without a device
  };

  void
  TrimCacheLocked(size_t limit) noexcept;
  /** Pin a block that no other thread touches meanwhile (out of m_Cache, or
   * marked Pinning); the pool's mutex must not be held: pinning a large block
   * takes milliseconds. Updates the statistics. */
  void
  Pin(void * pointer, Block & block) noexcept;
  void
  Release(void * pointer, const Block & block) noexcept;

  mutable std::mutex                              m_Mutex;
  std::unordered_map<const void *, Block>         m_Live;
  std::multimap<size_t, std::pair<void *, Block>> m_Cache; // by size
  size_t                                          m_CacheLimit;
  std::atomic<size_t>                             m_PinnedThreshold{ size_t{ 64 } << 10 };
  std::atomic<CudaHostPinning>                    m_Pinning;
  Statistics                                      m_Statistics;
};
} // namespace itk

#endif
