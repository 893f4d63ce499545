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
#ifndef itkCudaEmulatedMemoryBackend_h
#define itkCudaEmulatedMemoryBackend_h

// The test suite's memory backend (not installed): "device" buffers in host
// memory, live-allocation counts, a fixed capacity and fault injection, so
// that the data managers' logic runs, and fails on purpose, without a GPU.
// Compiled into the GoogleTest driver and into the Python extension (for
// its tests of the export paths on machines without a GPU).

#include "itkCudaMemoryBackend.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace itk
{
/** \class CudaEmulatedMemoryBackend
 * \brief A CudaMemoryBackend whose "device" is host memory, for tests; its
 * own memory resource allocates there.
 *
 * It keeps count of live allocations and bytes (so tests can prove nothing
 * leaked), pretends to have a fixed amount of device memory (so tests can
 * exhaust it), and can fail the Nth allocation or copy with a chosen CUDA
 * error (fault injection). Copies run before the call returns.
 * \ingroup CudaCommon
 */
class CudaEmulatedMemoryBackend : public CudaMemoryBackend
{
public:
  explicit CudaEmulatedMemoryBackend(size_t capacityBytes = size_t{ 1 } << 30);
  ~CudaEmulatedMemoryBackend() override;

  const char *
  GetName() const override;
  bool
  IsDeviceAvailable() override;
  cudaError_t
  GetCurrentDevice(int * device) override;
  cudaError_t
  GetDeviceCount(int * count) override;
  cudaError_t
  GetPointerDevice(const void * pointer, int * device) override;
  cudaError_t
  GetMemoryInfo(size_t * freeBytes, size_t * totalBytes) override;
  cudaError_t
  SynchronizeDevice(int device) noexcept override;
  cudaError_t
  GetBytesFrom(const void * pointer, size_t * bytes) override;
  cudaError_t
  RegisterHost(void * pointer, size_t bytes) override;
  cudaError_t
  UnregisterHost(void * pointer) noexcept override;
  cudaError_t
  AcquireStream(cudaStream_t * stream, int device) override;
  cudaError_t
  SynchronizeStream(cudaStream_t stream) override;
  cudaError_t
  CopyHostToDeviceAsync(void *       deviceDestination,
                        const void * hostSource,
                        size_t       bytes,
                        cudaStream_t stream,
                        bool *       hostStillRead = nullptr) override;
  cudaError_t
  CopyDeviceToHostAsync(void * hostDestination, const void * deviceSource, size_t bytes, cudaStream_t stream) override;
  cudaError_t
  CopyPeerAsync(void *       destination,
                int          destinationDevice,
                const void * source,
                int          sourceDevice,
                size_t       bytes,
                cudaStream_t stream) override;

  /** Registered ("pinned") host ranges and their total size. */
  size_t
  GetNumberOfPinnedHostRanges() const;
  size_t
  GetPinnedHostBytes() const;

  /** Pretend to have `count` devices (default 1) sharing the capacity given
   * to the constructor; allocations remember their device. */
  void
  SetNumberOfDevices(int count);

  /** Pretend that at most this much host memory can be pinned at once
   * (default: unlimited). */
  void
  SetPinnableHostCapacity(size_t bytes);

  /** Live allocations and their total size. */
  size_t
  GetNumberOfLiveAllocations() const;
  size_t
  GetLiveBytes() const;

  /** True when `pointer` lies inside a live emulated allocation. */
  bool
  IsDevicePointer(const void * pointer) const;

  /** Make the `n`-th allocation from now (1 = the next one) fail with
   * `error`; 0 disables. Likewise for copies of any direction. */
  void
  FailAllocationAfter(unsigned int n, cudaError_t error = cudaErrorMemoryAllocation);
  void
  FailCopyAfter(unsigned int n, cudaError_t error = cudaErrorLaunchFailure);

private:
  class Resource;
  cudaError_t
  AllocateEmulated(void ** pointer, size_t bytes, int device);
  cudaError_t
  FreeEmulated(void * pointer) noexcept;

  struct Allocation
  {
    size_t Bytes;
    int    Device;
  };
  /** The live allocation containing `pointer` (and how many of its bytes lie
   * at and after it), or nullptr; m_Mutex held. */
  const Allocation *
  FindAllocationLocked(const void * pointer, size_t * bytesFrom) const;
  bool
  CopyShouldFail(cudaError_t * error);
  cudaError_t
  CheckRange(const void * devicePointer, size_t bytes) const;

  mutable std::mutex                      m_Mutex;
  size_t                                  m_Capacity;
  size_t                                  m_LiveBytes{ 0 };
  std::unordered_map<const void *, Allocation> m_Allocations;
  int                                     m_NumberOfDevices{ 1 };
  std::unordered_map<const void *, size_t> m_PinnedHostRanges;
  size_t                                  m_PinnableHostCapacity{ SIZE_MAX };
  size_t                                  m_PinnedHostBytes{ 0 };
  unsigned int                            m_AllocationCountdown{ 0 };
  cudaError_t                             m_AllocationError{ cudaSuccess };
  unsigned int                            m_CopyCountdown{ 0 };
  cudaError_t                             m_CopyError{ cudaSuccess };
};

/** Installs a backend for the lifetime of the object and restores the
 * previous one afterwards (tests). */
class CudaMemoryBackendOverride
{
public:
  explicit CudaMemoryBackendOverride(std::shared_ptr<CudaMemoryBackend> backend);
  ~CudaMemoryBackendOverride();
  CudaMemoryBackendOverride(const CudaMemoryBackendOverride &) = delete;
  CudaMemoryBackendOverride &
  operator=(const CudaMemoryBackendOverride &) = delete;

private:
  std::shared_ptr<CudaMemoryBackend> m_Previous;
};
} // namespace itk

#endif
