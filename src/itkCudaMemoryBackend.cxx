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
#include "itkCudaMemoryBackend.h"
#include "itkCudaResources.h"
#include "itkCudaStagedCopy.h"
#include "itkCudaUtil.h"
#include "itkCudaProcessGlobal.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

namespace itk
{
namespace
{
// The default backend, one per process (itkCudaProcessGlobal.h): every copy
// of this library allocates through the one a test or an application set.
struct DefaultBackend
{
  std::mutex                         Mutex;
  std::shared_ptr<CudaMemoryBackend> Backend{ std::make_shared<CudaRuntimeMemoryBackend>() };
};

DefaultBackend &
TheDefaultBackend()
{
  static DefaultBackend & backend = CudaDetail::ProcessGlobalOf<DefaultBackend>("DefaultMemoryBackend");
  return backend;
}

std::mutex &
DefaultBackendMutex()
{
  return TheDefaultBackend().Mutex;
}

std::shared_ptr<CudaMemoryBackend> &
DefaultBackendSlot()
{
  return TheDefaultBackend().Backend;
}
} // namespace

CudaMemoryBackend::CudaMemoryBackend(std::shared_ptr<CudaMemoryResource> ownResource)
  : m_OwnResource(std::move(ownResource))
  , m_Resource(m_OwnResource)
{}

CudaMemoryBackend::~CudaMemoryBackend() = default;

std::shared_ptr<CudaMemoryResource>
CudaMemoryBackend::GetMemoryResource() const
{
  std::lock_guard<std::mutex> lock(m_ResourceMutex);
  return m_Resource;
}

std::shared_ptr<CudaMemoryResource>
CudaMemoryBackend::SetMemoryResource(std::shared_ptr<CudaMemoryResource> resource)
{
  if (!resource)
  {
    resource = m_OwnResource;
  }
  std::lock_guard<std::mutex> lock(m_ResourceMutex);
  std::swap(m_Resource, resource);
  return resource;
}

std::shared_ptr<CudaMemoryBackend>
CudaMemoryBackend::GetDefault()
{
  std::lock_guard<std::mutex> lock(DefaultBackendMutex());
  return DefaultBackendSlot();
}

std::shared_ptr<CudaMemoryBackend>
CudaMemoryBackend::SetDefault(std::shared_ptr<CudaMemoryBackend> backend)
{
  if (!backend)
  {
    backend = std::make_shared<CudaRuntimeMemoryBackend>();
  }
  std::lock_guard<std::mutex> lock(DefaultBackendMutex());
  std::swap(DefaultBackendSlot(), backend);
  return backend;
}

// ---------------------------------------------------------------------------

CudaRuntimeMemoryBackend::CudaRuntimeMemoryBackend()
  : CudaMemoryBackend(std::make_shared<CudaPoolMemoryResource>())
{}

const char *
CudaRuntimeMemoryBackend::GetName() const
{
  return "CUDA runtime";
}

bool
CudaRuntimeMemoryBackend::IsDeviceAvailable()
{
  return IsCudaAvailable();
}

cudaError_t
CudaRuntimeMemoryBackend::GetCurrentDevice(int * device)
{
  return cudaGetDevice(device);
}

cudaError_t
CudaRuntimeMemoryBackend::GetMemoryInfo(size_t * freeBytes, size_t * totalBytes)
{
  return cudaMemGetInfo(freeBytes, totalBytes);
}

cudaError_t
CudaRuntimeMemoryBackend::SynchronizeDevice(int device) noexcept
{
  const CudaDetail::DeviceScope onDevice(device);
  const cudaError_t             error = onDevice.Status() == cudaSuccess ? cudaDeviceSynchronize() : onDevice.Status();
  if (error != cudaSuccess)
  {
    cudaGetLastError();
  }
  return error;
}

cudaError_t
CudaRuntimeMemoryBackend::GetBytesFrom(const void * pointer, size_t * bytes)
{
  // cuMemGetAddressRange through the runtime: no link to libcuda needed.
  using RangeFunction = CUresult (*)(CUdeviceptr *, size_t *, CUdeviceptr);
  static const RangeFunction range = [] {
    void *                          symbol = nullptr;
    cudaDriverEntryPointQueryResult status;
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &symbol, 12000, cudaEnableDefault, &status) !=
        cudaSuccess)
    {
      cudaGetLastError();
      symbol = nullptr;
    }
    return reinterpret_cast<RangeFunction>(symbol);
  }();
  if (range == nullptr)
  {
    return cudaErrorNotSupported;
  }
  CUdeviceptr base = 0;
  size_t      size = 0;
  const auto  address = reinterpret_cast<CUdeviceptr>(pointer);
  if (range(&base, &size, address) != CUDA_SUCCESS)
  {
    return cudaErrorInvalidValue;
  }
  *bytes = static_cast<size_t>(base + size - address);
  return cudaSuccess;
}

cudaError_t
CudaRuntimeMemoryBackend::RegisterHost(void * pointer, size_t bytes)
{
  const cudaError_t error = cudaHostRegister(pointer, bytes, cudaHostRegisterPortable);
  if (error != cudaSuccess)
  {
    cudaGetLastError(); // not sticky: clear it
  }
  return error;
}

cudaError_t
CudaRuntimeMemoryBackend::UnregisterHost(void * pointer) noexcept
{
  const cudaError_t error = cudaHostUnregister(pointer);
  if (error != cudaSuccess)
  {
    cudaGetLastError();
  }
  return error;
}

cudaError_t
CudaRuntimeMemoryBackend::AcquireStream(cudaStream_t * stream, int device)
{
  return CudaDetail::AcquirePooledStream(device, stream);
}

cudaError_t
CudaRuntimeMemoryBackend::GetDeviceCount(int * count)
{
  return cudaGetDeviceCount(count);
}

cudaError_t
CudaRuntimeMemoryBackend::GetPointerDevice(const void * pointer, int * device)
{
  cudaPointerAttributes attributes{};
  const cudaError_t     error = cudaPointerGetAttributes(&attributes, pointer);
  if (error != cudaSuccess)
  {
    cudaGetLastError();
    return error;
  }
  if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged)
  {
    return cudaErrorInvalidValue;
  }
  *device = attributes.device;
  return cudaSuccess;
}

cudaError_t
CudaRuntimeMemoryBackend::SynchronizeStream(cudaStream_t stream)
{
  return cudaStreamSynchronize(stream);
}


cudaError_t
CudaRuntimeMemoryBackend::CopyHostToDeviceAsync(void *       deviceDestination,
                                                const void * hostSource,
                                                size_t       bytes,
                                                cudaStream_t stream,
                                                bool *       hostStillRead)
{
  const bool pinned = CudaIsPinnedHostMemory(hostSource);
  if (hostStillRead != nullptr)
  {
    *hostStillRead = pinned;
  }
  if (pinned)
  {
    return cudaMemcpyAsync(deviceDestination, hostSource, bytes, cudaMemcpyHostToDevice, stream);
  }
  // Pageable: staged (or buffered by the driver when small), ordered after
  // the work queued on `stream` and on no other stream.
  return CudaStagedCopyHostToDevice(deviceDestination, hostSource, bytes, stream);
}

cudaError_t
CudaRuntimeMemoryBackend::CopyDeviceToHostAsync(void *       hostDestination,
                                                const void * deviceSource,
                                                size_t       bytes,
                                                cudaStream_t stream)
{
  if (CudaIsPinnedHostMemory(hostDestination))
  {
    return cudaMemcpyAsync(hostDestination, deviceSource, bytes, cudaMemcpyDeviceToHost, stream);
  }
  return CudaStagedCopyDeviceToHost(hostDestination, deviceSource, bytes, stream);
}

cudaError_t
CudaRuntimeMemoryBackend::CopyPeerAsync(void *       destination,
                                        int          destinationDevice,
                                        const void * source,
                                        int          sourceDevice,
                                        size_t       bytes,
                                        cudaStream_t stream)
{
  if (destinationDevice != sourceDevice && destinationDevice >= 0 && sourceDevice >= 0 && destinationDevice < 64 &&
      sourceDevice < 64)
  {
    // Without peer access the driver stages the copy through host memory.
    // The pools' memory is mapped for the peer too, once per pair.
    static std::atomic<bool> granted[64][64] = {};
    if (CudaEnablePeerAccess(destinationDevice, sourceDevice) && !granted[destinationDevice][sourceDevice].exchange(true))
    {
      CudaDetail::GrantPeerAccess(destinationDevice, sourceDevice);
      CudaDetail::GrantPeerAccess(sourceDevice, destinationDevice);
    }
  }
  return cudaMemcpyPeerAsync(destination, destinationDevice, source, sourceDevice, bytes, stream);
}

} // namespace itk
