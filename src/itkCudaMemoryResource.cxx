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
#include "itkCudaMemoryResource.h"
#include "itkCudaResources.h"

namespace itk
{
CudaMemoryResource::~CudaMemoryResource() = default;

namespace
{
/** One attempt on the current device (`device`): from its pool in the order
 * of `stream`, or with cudaMalloc. */
cudaError_t
AllocateFromPoolOnce(void ** pointer, size_t bytes, int device, cudaStream_t stream)
{
  if (stream == nullptr || !CudaDetail::PoolEnabled())
  {
    return cudaMalloc(pointer, bytes);
  }
  cudaMemPool_t     pool = nullptr;
  const cudaError_t error = CudaDetail::GetDevicePool(device, &pool);
  return error != cudaSuccess ? error : cudaMallocFromPoolAsync(pointer, bytes, pool, stream);
}

/** A failed allocation leaves no sticky error and no pointer behind. */
cudaError_t
Settle(void ** pointer, cudaError_t error) noexcept
{
  if (error != cudaSuccess)
  {
    *pointer = nullptr;
    cudaGetLastError();
  }
  return error;
}
} // namespace

const char *
CudaPoolMemoryResource::GetName() const
{
  return "stream-ordered pool";
}

cudaError_t
CudaPoolMemoryResource::Allocate(void ** pointer, size_t bytes, int device, cudaStream_t stream)
{
  *pointer = nullptr;
  const CudaDetail::DeviceScope onDevice(device);
  if (onDevice.Status() != cudaSuccess)
  {
    return onDevice.Status();
  }
  cudaError_t error = AllocateFromPoolOnce(pointer, bytes, device, stream);
  if (error == cudaErrorMemoryAllocation && CudaDetail::PoolEnabled())
  {
    // Memory freed on a stream but not yet given back may be what is
    // missing: let the frees run, give the pools' unused memory back, and
    // try once more.
    cudaGetLastError();
    cudaDeviceSynchronize();
    CudaDetail::TrimPools(0);
    error = AllocateFromPoolOnce(pointer, bytes, device, stream);
    if (error == cudaErrorMemoryAllocation)
    {
      cudaGetLastError();
      CudaDetail::TrimPools(0); // what the failed attempt reserved
    }
  }
  return Settle(pointer, error);
}

cudaError_t
CudaPoolMemoryResource::Deallocate(void * pointer, size_t, int device, cudaStream_t stream) noexcept
{
  const CudaDetail::DeviceScope onDevice(device);
  if (onDevice.Status() != cudaSuccess)
  {
    return onDevice.Status();
  }
  // Allocate() took the pool exactly when it had a stream and the pool is on.
  const cudaError_t error =
    stream != nullptr && CudaDetail::PoolEnabled() ? cudaFreeAsync(pointer, stream) : cudaFree(pointer);
  if (error != cudaSuccess)
  {
    cudaGetLastError();
  }
  return error;
}

const char *
CudaSynchronousMemoryResource::GetName() const
{
  return "cudaMalloc";
}

cudaError_t
CudaSynchronousMemoryResource::Allocate(void ** pointer, size_t bytes, int device, cudaStream_t)
{
  *pointer = nullptr;
  const CudaDetail::DeviceScope onDevice(device);
  return Settle(pointer, onDevice.Status() != cudaSuccess ? onDevice.Status() : cudaMalloc(pointer, bytes));
}

cudaError_t
CudaSynchronousMemoryResource::Deallocate(void * pointer, size_t, int device, cudaStream_t) noexcept
{
  const CudaDetail::DeviceScope onDevice(device);
  const cudaError_t             error = onDevice.Status() != cudaSuccess ? onDevice.Status() : cudaFree(pointer);
  if (error != cudaSuccess)
  {
    cudaGetLastError();
  }
  return error;
}
} // namespace itk
