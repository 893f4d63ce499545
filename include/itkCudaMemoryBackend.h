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
#include "itkCudaMemoryResource.h"

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
 * \brief The CUDA operations CudaCommon's data managers perform: device
 * queries, streams, host-memory pinning and the copy engine; device memory
 * itself comes from the backend's CudaMemoryResource.
 *
 * Data managers never call the CUDA runtime directly for these: they go
 * through the process-wide backend. CudaRuntimeMemoryBackend (the default)
 * talks to the GPU; the test suite's CudaEmulatedMemoryBackend (in test/, not
 * installed) keeps "device" buffers in host memory so that the
 * synchronisation logic can be exercised, and faults injected, on machines
 * without a GPU.
 *
 * The copy engine knows whether host memory is pinned: a copy from or to
 * pinned memory is one DMA that returns at once, one from or to pageable
 * memory (an itk::Image's buffer) is staged (itkCudaStagedCopy.h).
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

  /** The resource device buffers come from: a CudaPoolMemoryResource
   * unless one was installed. */
  std::shared_ptr<CudaMemoryResource>
  GetMemoryResource() const;
  /** Install `resource` for later allocations (nullptr: the backend's own,
   * the one it started with) and return the previous one. Buffers keep the
   * resource that allocated them. */
  std::shared_ptr<CudaMemoryResource>
  SetMemoryResource(std::shared_ptr<CudaMemoryResource> resource);

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

protected:
  /** `ownResource`: what GetMemoryResource() gives until another is set. */
  explicit CudaMemoryBackend(std::shared_ptr<CudaMemoryResource> ownResource);

private:
  mutable std::mutex                        m_ResourceMutex;
  const std::shared_ptr<CudaMemoryResource> m_OwnResource;
  std::shared_ptr<CudaMemoryResource>       m_Resource;
};

/** \class CudaRuntimeMemoryBackend
 * \brief CudaMemoryBackend on the CUDA runtime API (cudaMemcpyAsync, pooled
 * streams, cudaHostRegister).
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT CudaRuntimeMemoryBackend : public CudaMemoryBackend
{
public:
  /** Device buffers from a CudaPoolMemoryResource. */
  CudaRuntimeMemoryBackend();
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
};

} // namespace itk

#endif
