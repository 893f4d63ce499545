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
#ifndef itkCudaStagedCopy_h
#define itkCudaStagedCopy_h

/** \file itkCudaStagedCopy.h
 * \brief Fast copies between pageable host memory and device memory.
 *
 * cudaMemcpy from or to pageable memory (a buffer the CUDA runtime did not
 * allocate, such as an itk::Image's) runs at a fraction of the bus speed: the
 * driver stages it through a small pinned buffer with one host thread. These
 * functions stage large copies themselves: the copy is cut into chunks that go
 * through a ring of pinned buffers, the host side of each chunk is copied by
 * several threads of a persistent pool, and the DMA of one chunk overlaps the
 * host copy of the next.
 *
 * A staging lane holds CudaStagedCopyStagingBuffers pinned buffers (as large
 * as the largest chunk it staged so far, a power of two from
 * CudaStagedCopyThresholdBytes to CudaStagedCopyMaximumChunkBytes: a process
 * that copies small images pins little), a stream and a few events. A device makes
 * a lane on its first staged copy, and a second one for a copy made while the
 * first is busy; a lane serves both directions, and lanes are kept until the
 * process exits (a failed copy releases its lane's buffers and the next copy
 * makes new ones). The worker threads (at most 15) start with the first
 * staged copy or prefault and stay.
 * \ingroup CudaCommon
 */

#include "CudaCommonExport.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace itk
{
/** Copies smaller than this go straight to cudaMemcpy: staging them would cost
 * more in synchronisation than it saves. */
inline constexpr size_t CudaStagedCopyThresholdBytes = size_t{ 1 } << 20;

/** The largest chunk, which is also the size of each pinned staging buffer.
 * Copies shorter than 4 of these are cut into about 4 chunks (of at least
 * CudaStagedCopyThresholdBytes) so that they overlap too. */
inline constexpr size_t CudaStagedCopyMaximumChunkBytes = size_t{ 8 } << 20;

/** Pinned staging buffers per device and direction: the host fills (or
 * drains) one while the DMA of the others is in flight. */
inline constexpr unsigned int CudaStagedCopyStagingBuffers = 3;

/** Copy `bytes` from host memory to device memory.
 *
 * The guarantees are cudaMemcpy's: when the function returns cudaSuccess,
 * later host writes to `pageableHost` do not affect the copy, work enqueued
 * afterwards on the legacy default stream (or on a stream that synchronises
 * with it) sees the data, and work enqueued before the call there is finished
 * before the destination is written. A staged copy has moreover landed on the
 * device when the function returns.
 *
 * Copies of at least CudaStagedCopyThresholdBytes from pageable memory to
 * memory from cudaMalloc are staged, ordered against the legacy default stream
 * of the destination's device; every other copy (small ones, pinned or managed
 * memory, or when the pinned buffers cannot be allocated) is one cudaMemcpy.
 * Safe to call from several threads at once; the caller's current device is
 * unchanged.
 *
 * \return cudaSuccess, or the CUDA error that stopped the copy (the
 * destination's contents are then unspecified); never throws. Callers turn a
 * failure into itk::ExceptionObject with CUDA_CHECK. Zero bytes is a no-op
 * that succeeds; null pointers with a non-zero size give
 * cudaErrorInvalidValue. */
CudaCommon_EXPORT cudaError_t
CudaStagedCopyHostToDevice(void * device, const void * pageableHost, size_t bytes) noexcept;

/** Copy `bytes` from device memory to host memory: the mirror of
 * CudaStagedCopyHostToDevice(). When the function returns cudaSuccess the
 * host buffer holds the data, including what work enqueued before the call
 * on the legacy default stream of the source's device wrote. */
CudaCommon_EXPORT cudaError_t
CudaStagedCopyDeviceToHost(void * pageableHost, const void * device, size_t bytes) noexcept;

/** The same two copies, ordered after the work queued so far on `stream` (a
 * stream of the device memory's device) instead of the legacy default
 * stream, so that they wait for nothing else (work of other streams, other
 * images). When an upload returns, later host writes to `pageableHost` do
 * not affect it and work queued afterwards on `stream` sees the data (a
 * staged one has landed); when a download returns, the host buffer holds
 * the data. */
CudaCommon_EXPORT cudaError_t
CudaStagedCopyHostToDevice(void * device, const void * pageableHost, size_t bytes, cudaStream_t stream) noexcept;
CudaCommon_EXPORT cudaError_t
CudaStagedCopyDeviceToHost(void * pageableHost, const void * device, size_t bytes, cudaStream_t stream) noexcept;

/** Fault in the pages of `bytes` of host memory from `pointer` (page-aligned)
 * for writing, in parallel on the staged copy's threads, without changing
 * their contents: a copy into (or from) memory no one touched yet would fault
 * its pages one at a time in the copying threads; faulting them first, many
 * 2 MiB pieces at once, is several times faster (docs/performance.md, "First
 * use"). Does nothing on kernels without MADV_POPULATE_WRITE (before Linux
 * 5.14). Never throws. */
CudaCommon_EXPORT void
CudaPrefaultHostMemory(void * pointer, size_t bytes) noexcept;

/** \brief How many copies took which path since the process started.
 * \ingroup CudaCommon */
struct CudaStagedCopyStatistics
{
  /** Copies that went through the pinned staging buffers. */
  uint64_t StagedHostToDeviceCopies{ 0 };
  uint64_t StagedDeviceToHostCopies{ 0 };
  /** Chunks of those copies, both directions together. */
  uint64_t StagedChunks{ 0 };
  /** Copies handed to cudaMemcpy unchanged (small, pinned or managed memory,
   * or staging unavailable). */
  uint64_t DirectCopies{ 0 };
};

/** Counters of the copies made by the two functions above (all threads). */
CudaCommon_EXPORT CudaStagedCopyStatistics
CudaGetStagedCopyStatistics() noexcept;
} // namespace itk

#endif
