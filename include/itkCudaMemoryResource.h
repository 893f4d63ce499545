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
#ifndef itkCudaMemoryResource_h
#define itkCudaMemoryResource_h

#include "CudaCommonExport.h"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace itk
{
/** \class CudaMemoryResource
 * \brief Where device buffers come from: allocate and deallocate, per device,
 * in the order of a stream.
 *
 * The data managers (GPUMemPointer, CudaDataManager) take their device memory
 * from the memory resource of the process's CudaMemoryBackend
 * (CudaMemoryBackend::GetMemoryResource()); copies, streams and device
 * queries are the backend's. A resource of your own (a tracking or limiting
 * adaptor around the default, an arena) is installed with
 * CudaMemoryBackend::GetDefault()->SetMemoryResource(); buffers keep the
 * resource that allocated them and are given back to it.
 *
 * Every operation returns a CUDA status instead of throwing; the data
 * managers turn a failure into itk::ExceptionObject naming the sizes.
 * Implementations must be safe to call from several threads at once.
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT CudaMemoryResource
{
public:
  virtual ~CudaMemoryResource();

  /** Short name for messages, e.g. "stream-ordered pool". */
  virtual const char *
  GetName() const = 0;

  /** Allocate `bytes` on `device`; the caller's current device is unchanged.
   * With a `stream` the allocation may be stream-ordered: usable at once by
   * work queued on `stream` (and, for a blocking stream, on the legacy
   * default stream), by other streams once they are ordered after it.
   * Without a stream (nullptr) the memory is usable everywhere at once, as
   * cudaMalloc's. On failure *pointer is nullptr and the error is not left
   * sticky in the runtime (cudaGetLastError() cleared). */
  virtual cudaError_t
  Allocate(void ** pointer, size_t bytes, int device, cudaStream_t stream) = 0;

  /** Give back a pointer that Allocate() returned, with the same `bytes`,
   * `device` and `stream`. A stream-ordered allocation is released once the
   * work queued on `stream` so far has run: work of other streams that uses
   * the memory must be ordered before that point by the caller. */
  virtual cudaError_t
  Deallocate(void * pointer, size_t bytes, int device, cudaStream_t stream) noexcept = 0;
};

/** \class CudaPoolMemoryResource
 * \brief The default resource: the device's stream-ordered memory pool.
 *
 * An allocation with a stream comes from CudaCommon's pool of that device
 * (cudaMallocFromPoolAsync; itkCudaMemoryPool.h for its release threshold,
 * size cap, trimming and environment variables), one without a stream from
 * cudaMalloc. When the pool cannot serve an allocation, the frees queued so
 * far are let run, the pools trimmed and the allocation tried once more.
 * With the pools off (ITK_CUDA_MEMORY_POOL=0, or a driver without memory
 * pools) every allocation is cudaMalloc's, as in ITKCudaCommon 2.x.
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT CudaPoolMemoryResource : public CudaMemoryResource
{
public:
  const char *
  GetName() const override;
  cudaError_t
  Allocate(void ** pointer, size_t bytes, int device, cudaStream_t stream) override;
  cudaError_t
  Deallocate(void * pointer, size_t bytes, int device, cudaStream_t stream) noexcept override;
};

/** \class CudaSynchronousMemoryResource
 * \brief cudaMalloc and cudaFree whatever the stream: no pool, memory usable
 * everywhere at once, and a free that waits for the device (e.g. for tools
 * that do not follow stream-ordered allocations, or to compare).
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT CudaSynchronousMemoryResource : public CudaMemoryResource
{
public:
  const char *
  GetName() const override;
  cudaError_t
  Allocate(void ** pointer, size_t bytes, int device, cudaStream_t stream) override;
  cudaError_t
  Deallocate(void * pointer, size_t bytes, int device, cudaStream_t stream) noexcept override;
};
} // namespace itk

#endif
