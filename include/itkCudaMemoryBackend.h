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
#ifndef itkCudaMemoryBackend_h
#define itkCudaMemoryBackend_h

#include "itkCudaError.h"

#include <atomic>
#include <cstdint>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace itk
{
/** \class CudaMemoryBackend
 * \brief The device-memory operations CudaCommon's data managers perform.
 *
 * Data managers never call the CUDA runtime directly for memory: they go
 * through the process-wide backend. CudaRuntimeMemoryBackend (the default)
 * talks to the GPU; the test suite's CudaEmulatedMemoryBackend (in test/, not
 * installed) keeps "device" buffers in host memory so that the
 * synchronisation logic can be exercised, and faults injected, on machines
 * without a GPU.
 *
 * Every operation returns a CUDA status instead of throwing; callers turn
 * failures into itk::ExceptionObject with CUDA_CHECK.
 * Implementations must be safe to call from several threads at once.
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT CudaMemoryBackend
{
public:
  virtual ~CudaMemoryBackend();

  /** Short name for messages, e.g. "CUDA runtime". */
  virtual const char *
  GetName() const = 0;

  /** True when device buffers can be allocated. */
  virtual bool
  IsDeviceAvailable() = 0;

  /** The calling thread's current device (0 when emulated). */
  virtual cudaError_t
  GetCurrentDevice(int * device) = 0;

  /** How many devices there are (1 when emulated). */
  virtual cudaError_t
  GetDeviceCount(int * count) = 0;

  /** The device a device pointer belongs to. */
  virtual cudaError_t
  GetPointerDevice(const void * pointer, int * device) = 0;

  /** Free and total memory of the current device, in bytes. */
  virtual cudaError_t
  GetMemoryInfo(size_t * freeBytes, size_t * totalBytes) = 0;

  /** Allocate `bytes` on `device`; the caller's current device is unchanged.
   * With a `stream` the allocation is stream-ordered: usable at once by work
   * queued on `stream` (and, for a blocking stream, on the legacy default
   * stream), by other streams once they are ordered after it. The runtime
   * backend takes it from the device's memory pool (itkCudaMemoryPool.h),
   * which trims its unused memory and tries once more before it reports
   * cudaErrorMemoryAllocation. Without a stream (nullptr) the memory is
   * usable everywhere at once, as cudaMalloc's. */
  virtual cudaError_t
  Allocate(void ** pointer, size_t bytes, int device, cudaStream_t stream) = 0;
  cudaError_t
  Allocate(void ** pointer, size_t bytes, int device)
  {
    return this->Allocate(pointer, bytes, device, nullptr);
  }

  /** Release a pointer that Allocate() returned for the same device and
   * `stream`: a stream-ordered allocation is freed once the work queued on
   * `stream` so far has run (work on other streams that uses the memory must
   * be ordered before: see SynchronizeDevice()); one without a stream at
   * once, as cudaFree. */
  virtual cudaError_t
  Free(void * pointer, int device, cudaStream_t stream) noexcept = 0;
  cudaError_t
  Free(void * pointer, int device) noexcept
  {
    return this->Free(pointer, device, nullptr);
  }

  /** Wait until all work queued on `device` has finished, e.g. before
   * freeing memory that views may have handed to streams we do not know. */
  virtual cudaError_t
  SynchronizeDevice(int device) noexcept = 0;

  /** How many bytes of the device allocation containing `pointer` lie at and
   * after it (*bytes), e.g. to check that an external buffer is large enough.
   * An error when `pointer` is not in a device allocation. */
  virtual cudaError_t
  GetBytesFrom(const void * pointer, size_t * bytes) = 0;

  /** Page-lock ("pin") `bytes` of page-aligned host memory from `pointer`,
   * so that every device copies it at full PCIe speed; UnregisterHost()
   * before the memory is freed. Pinning faults the pages in and locks them:
   * it costs about as much as touching the memory (see docs/performance.md). */
  virtual cudaError_t
  RegisterHost(void * pointer, size_t bytes) = 0;
  virtual cudaError_t
  UnregisterHost(void * pointer) noexcept = 0;

  /** A stream for a buffer's copies and kernels, which the caller never
   * destroys. The runtime backend hands out the device's pooled streams in
   * turn (images share them, so a small image creates none): non-blocking
   * streams unless CudaPooledStreamsAreBlocking(); the data managers order
   * them with the legacy default stream where code may launch there. */
  virtual cudaError_t
  AcquireStream(cudaStream_t * stream, int device) = 0;
  virtual cudaError_t
  SynchronizeStream(cudaStream_t stream) = 0;

  /** Queue a copy on `stream`, after the work queued there so far and
   * ordered with no other stream. From pinned host memory it returns at once
   * (the host buffer must not change until the stream has run it); from
   * pageable memory the host buffer may change once it returns.
   * `hostStillRead`, when given, is set to whether the copy may still read
   * the host buffer after the call returns (pinned memory). */
  virtual cudaError_t
  CopyHostToDeviceAsync(void *       deviceDestination,
                        const void * hostSource,
                        size_t       bytes,
                        cudaStream_t stream,
                        bool *       hostStillRead = nullptr) = 0;
  /** Queue a copy on `stream`; complete once the stream is synchronised. */
  virtual cudaError_t
  CopyDeviceToHostAsync(void * hostDestination, const void * deviceSource, size_t bytes, cudaStream_t stream) = 0;

  /** Copies; complete (as seen by later host reads and later device work on
   * the legacy default stream) when they return. */
  virtual cudaError_t
  CopyHostToDevice(void * deviceDestination, const void * hostSource, size_t bytes) = 0;
  virtual cudaError_t
  CopyDeviceToHost(void * hostDestination, const void * deviceSource, size_t bytes) = 0;
  virtual cudaError_t
  CopyDeviceToDevice(void * deviceDestination, const void * deviceSource, size_t bytes) = 0;

  /** Queue a copy between two devices' memory on `stream` (a stream of
   * either device); complete once the stream is synchronised. Direct over
   * NVLink or PCIe where the devices can reach each other (peer access is
   * then enabled between them, for the whole process), staged by the driver
   * otherwise. */
  virtual cudaError_t
  CopyPeerAsync(void *       destination,
                int          destinationDevice,
                const void * source,
                int          sourceDevice,
                size_t       bytes,
                cudaStream_t stream) = 0;

  /** The backend new device buffers use; CudaRuntimeMemoryBackend unless a
   * test installed another one. */
  static std::shared_ptr<CudaMemoryBackend>
  GetDefault();

  /** Install `backend` (nullptr restores the CUDA runtime backend) and return
   * the previous one. Buffers keep the backend that allocated them, so
   * swapping while buffers live is safe. */
  static std::shared_ptr<CudaMemoryBackend>
  SetDefault(std::shared_ptr<CudaMemoryBackend> backend);
};

/** \class CudaRuntimeMemoryBackend
 * \brief CudaMemoryBackend on the CUDA runtime API (cudaMalloc, cudaMemcpy).
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT CudaRuntimeMemoryBackend : public CudaMemoryBackend
{
public:
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
  using CudaMemoryBackend::Allocate;
  using CudaMemoryBackend::Free;
  cudaError_t
  Allocate(void ** pointer, size_t bytes, int device, cudaStream_t stream) override;
  cudaError_t
  Free(void * pointer, int device, cudaStream_t stream) noexcept override;
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
  CopyHostToDevice(void * deviceDestination, const void * hostSource, size_t bytes) override;
  cudaError_t
  CopyDeviceToHost(void * hostDestination, const void * deviceSource, size_t bytes) override;
  cudaError_t
  CopyDeviceToDevice(void * deviceDestination, const void * deviceSource, size_t bytes) override;
  cudaError_t
  CopyPeerAsync(void *       destination,
                int          destinationDevice,
                const void * source,
                int          sourceDevice,
                size_t       bytes,
                cudaStream_t stream) override;
};

} // namespace itk

#endif
