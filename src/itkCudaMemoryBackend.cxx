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

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

namespace itk
{
namespace
{
std::mutex &
DefaultBackendMutex()
{
  static std::mutex mutex;
  return mutex;
}

std::shared_ptr<CudaMemoryBackend> &
DefaultBackendSlot()
{
  static std::shared_ptr<CudaMemoryBackend> backend = std::make_shared<CudaRuntimeMemoryBackend>();
  return backend;
}
} // namespace

CudaMemoryBackend::~CudaMemoryBackend() = default;

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

namespace
{
/** One allocation attempt: from the device's pool in the order of `stream`,
 * or with cudaMalloc; `device` is current. */
cudaError_t
AllocateOnce(void ** pointer, size_t bytes, int device, cudaStream_t stream)
{
  if (stream == nullptr || !CudaDetail::PoolEnabled())
  {
    return cudaMalloc(pointer, bytes);
  }
  cudaMemPool_t     pool = nullptr;
  const cudaError_t error = CudaDetail::GetDevicePool(device, &pool);
  return error != cudaSuccess ? error : cudaMallocFromPoolAsync(pointer, bytes, pool, stream);
}
} // namespace

cudaError_t
CudaRuntimeMemoryBackend::Allocate(void ** pointer, size_t bytes, int device, cudaStream_t stream)
{
  *pointer = nullptr;
  const CudaDetail::DeviceScope onDevice(device);
  if (onDevice.Status() != cudaSuccess)
  {
    return onDevice.Status();
  }
  cudaError_t error = AllocateOnce(pointer, bytes, device, stream);
  if (error == cudaErrorMemoryAllocation && CudaDetail::PoolEnabled())
  {
    // Memory freed on a stream but not yet given back may be what is
    // missing: let the frees run, give the pools' unused memory back, and
    // try once more.
    cudaGetLastError();
    cudaDeviceSynchronize();
    CudaDetail::TrimPools(0);
    error = AllocateOnce(pointer, bytes, device, stream);
    if (error == cudaErrorMemoryAllocation)
    {
      cudaGetLastError();
      CudaDetail::TrimPools(0); // what the failed attempt reserved
    }
  }
  if (error != cudaSuccess)
  {
    *pointer = nullptr;
    cudaGetLastError(); // an allocation failure is not sticky: clear it
  }
  return error;
}

cudaError_t
CudaRuntimeMemoryBackend::Free(void * pointer, int device, cudaStream_t stream) noexcept
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

namespace
{
bool
IsPinnedHostMemory(const void * pointer)
{
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess)
  {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}
} // namespace

cudaError_t
CudaRuntimeMemoryBackend::CopyHostToDeviceAsync(void *       deviceDestination,
                                                const void * hostSource,
                                                size_t       bytes,
                                                cudaStream_t stream,
                                                bool *       hostStillRead)
{
  const bool pinned = IsPinnedHostMemory(hostSource);
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
  if (IsPinnedHostMemory(hostDestination))
  {
    return cudaMemcpyAsync(hostDestination, deviceSource, bytes, cudaMemcpyDeviceToHost, stream);
  }
  return CudaStagedCopyDeviceToHost(hostDestination, deviceSource, bytes, stream);
}

// Large copies from or to pageable memory (buffers we did not allocate) go
// through pinned staging buffers; pinned and small ones go straight through.
cudaError_t
CudaRuntimeMemoryBackend::CopyHostToDevice(void * deviceDestination, const void * hostSource, size_t bytes)
{
  return CudaStagedCopyHostToDevice(deviceDestination, hostSource, bytes);
}

cudaError_t
CudaRuntimeMemoryBackend::CopyDeviceToHost(void * hostDestination, const void * deviceSource, size_t bytes)
{
  return CudaStagedCopyDeviceToHost(hostDestination, deviceSource, bytes);
}

cudaError_t
CudaRuntimeMemoryBackend::CopyDeviceToDevice(void * deviceDestination, const void * deviceSource, size_t bytes)
{
  return cudaMemcpy(deviceDestination, deviceSource, bytes, cudaMemcpyDeviceToDevice);
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

// ---------------------------------------------------------------------------

CudaEmulatedMemoryBackend::CudaEmulatedMemoryBackend(size_t capacityBytes)
  : m_Capacity(capacityBytes)
{}

CudaEmulatedMemoryBackend::~CudaEmulatedMemoryBackend()
{
  for (auto & allocation : m_Allocations)
  {
    std::free(const_cast<void *>(allocation.first));
  }
}

const CudaEmulatedMemoryBackend::Allocation *
CudaEmulatedMemoryBackend::FindAllocationLocked(const void * pointer, size_t * bytesFrom) const
{
  const auto * address = static_cast<const char *>(pointer);
  for (const auto & allocation : m_Allocations)
  {
    const auto * begin = static_cast<const char *>(allocation.first);
    if (address >= begin && address < begin + allocation.second.Bytes)
    {
      *bytesFrom = static_cast<size_t>(begin + allocation.second.Bytes - address);
      return &allocation.second;
    }
  }
  return nullptr;
}

cudaError_t
CudaEmulatedMemoryBackend::GetBytesFrom(const void * pointer, size_t * bytes)
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  return this->FindAllocationLocked(pointer, bytes) != nullptr ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t
CudaEmulatedMemoryBackend::RegisterHost(void * pointer, size_t bytes)
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  if (pointer == nullptr || reinterpret_cast<uintptr_t>(pointer) % 4096 != 0 || m_PinnedHostRanges.count(pointer) != 0)
  {
    return cudaErrorInvalidValue; // cudaHostRegister wants page-aligned memory, registered once
  }
  if (bytes > m_PinnableHostCapacity - m_PinnedHostBytes)
  {
    return cudaErrorMemoryAllocation;
  }
  m_PinnedHostRanges.emplace(pointer, bytes);
  m_PinnedHostBytes += bytes;
  return cudaSuccess;
}

cudaError_t
CudaEmulatedMemoryBackend::UnregisterHost(void * pointer) noexcept
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  const auto                  it = m_PinnedHostRanges.find(pointer);
  if (it == m_PinnedHostRanges.end())
  {
    return cudaErrorHostMemoryNotRegistered;
  }
  m_PinnedHostBytes -= it->second;
  m_PinnedHostRanges.erase(it);
  return cudaSuccess;
}

size_t
CudaEmulatedMemoryBackend::GetNumberOfPinnedHostRanges() const
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  return m_PinnedHostRanges.size();
}

size_t
CudaEmulatedMemoryBackend::GetPinnedHostBytes() const
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  return m_PinnedHostBytes;
}

void
CudaEmulatedMemoryBackend::SetPinnableHostCapacity(size_t bytes)
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  m_PinnableHostCapacity = bytes;
}

const char *
CudaEmulatedMemoryBackend::GetName() const
{
  return "emulated (host memory)";
}

bool
CudaEmulatedMemoryBackend::IsDeviceAvailable()
{
  return true;
}

cudaError_t
CudaEmulatedMemoryBackend::GetCurrentDevice(int * device)
{
  *device = 0;
  return cudaSuccess;
}

cudaError_t
CudaEmulatedMemoryBackend::GetMemoryInfo(size_t * freeBytes, size_t * totalBytes)
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  *freeBytes = m_Capacity - m_LiveBytes;
  *totalBytes = m_Capacity;
  return cudaSuccess;
}

cudaError_t
CudaEmulatedMemoryBackend::Allocate(void ** pointer, size_t bytes, int device, cudaStream_t)
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  *pointer = nullptr;
  if (device < 0 || device >= m_NumberOfDevices)
  {
    return cudaErrorInvalidDevice;
  }
  if (m_AllocationCountdown > 0 && --m_AllocationCountdown == 0)
  {
    return m_AllocationError;
  }
  if (bytes > m_Capacity - m_LiveBytes)
  {
    return cudaErrorMemoryAllocation;
  }
  // 256-byte aligned, as cudaMalloc's blocks are.
  void * memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256 + (bytes == 0 ? 256 : 0));
  if (memory == nullptr)
  {
    return cudaErrorMemoryAllocation;
  }
  m_Allocations.emplace(memory, Allocation{ bytes, device });
  m_LiveBytes += bytes;
  *pointer = memory;
  return cudaSuccess;
}

cudaError_t
CudaEmulatedMemoryBackend::SynchronizeDevice(int) noexcept
{
  return cudaSuccess; // copies are synchronous: nothing is ever in flight
}

cudaError_t
CudaEmulatedMemoryBackend::Free(void * pointer, int, cudaStream_t) noexcept
{
  if (pointer == nullptr)
  {
    return cudaSuccess;
  }
  std::lock_guard<std::mutex> lock(m_Mutex);
  const auto it = m_Allocations.find(pointer);
  if (it == m_Allocations.end())
  {
    return cudaErrorInvalidValue;
  }
  m_LiveBytes -= it->second.Bytes;
  m_Allocations.erase(it);
  std::free(pointer);
  return cudaSuccess;
}

bool
CudaEmulatedMemoryBackend::CopyShouldFail(cudaError_t * error)
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  if (m_CopyCountdown > 0 && --m_CopyCountdown == 0)
  {
    *error = m_CopyError;
    return true;
  }
  return false;
}

cudaError_t
CudaEmulatedMemoryBackend::CheckRange(const void * devicePointer, size_t bytes) const
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  const auto * address = static_cast<const char *>(devicePointer);
  for (const auto & allocation : m_Allocations)
  {
    const auto * begin = static_cast<const char *>(allocation.first);
    if (address >= begin && address + bytes <= begin + allocation.second.Bytes)
    {
      return cudaSuccess;
    }
  }
  return cudaErrorInvalidValue;
}

cudaError_t
CudaEmulatedMemoryBackend::GetDeviceCount(int * count)
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  *count = m_NumberOfDevices;
  return cudaSuccess;
}

void
CudaEmulatedMemoryBackend::SetNumberOfDevices(int count)
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  m_NumberOfDevices = std::max(1, count);
}

cudaError_t
CudaEmulatedMemoryBackend::GetPointerDevice(const void * pointer, int * device)
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  size_t             bytes = 0;
  const Allocation * allocation = this->FindAllocationLocked(pointer, &bytes);
  if (allocation == nullptr)
  {
    return cudaErrorInvalidValue;
  }
  *device = allocation->Device;
  return cudaSuccess;
}

cudaError_t
CudaEmulatedMemoryBackend::AcquireStream(cudaStream_t * stream, int)
{
  *stream = nullptr; // copies are synchronous: nothing to order
  return cudaSuccess;
}

cudaError_t
CudaEmulatedMemoryBackend::SynchronizeStream(cudaStream_t)
{
  return cudaSuccess;
}

cudaError_t
CudaEmulatedMemoryBackend::CopyHostToDeviceAsync(void *       deviceDestination,
                                                 const void * hostSource,
                                                 size_t       bytes,
                                                 cudaStream_t,
                                                 bool * hostStillRead)
{
  if (hostStillRead != nullptr)
  {
    *hostStillRead = false; // copied before the call returns
  }
  return this->CopyHostToDevice(deviceDestination, hostSource, bytes);
}

cudaError_t
CudaEmulatedMemoryBackend::CopyDeviceToHostAsync(void *       hostDestination,
                                                 const void * deviceSource,
                                                 size_t       bytes,
                                                 cudaStream_t)
{
  return this->CopyDeviceToHost(hostDestination, deviceSource, bytes);
}

cudaError_t
CudaEmulatedMemoryBackend::CopyHostToDevice(void * deviceDestination, const void * hostSource, size_t bytes)
{
  cudaError_t error = cudaSuccess;
  if (this->CopyShouldFail(&error) || (error = this->CheckRange(deviceDestination, bytes)) != cudaSuccess)
  {
    return error;
  }
  std::memcpy(deviceDestination, hostSource, bytes);
  return cudaSuccess;
}

cudaError_t
CudaEmulatedMemoryBackend::CopyDeviceToHost(void * hostDestination, const void * deviceSource, size_t bytes)
{
  cudaError_t error = cudaSuccess;
  if (this->CopyShouldFail(&error) || (error = this->CheckRange(deviceSource, bytes)) != cudaSuccess)
  {
    return error;
  }
  std::memcpy(hostDestination, deviceSource, bytes);
  return cudaSuccess;
}

cudaError_t
CudaEmulatedMemoryBackend::CopyDeviceToDevice(void * deviceDestination, const void * deviceSource, size_t bytes)
{
  cudaError_t error = cudaSuccess;
  if (this->CopyShouldFail(&error) || (error = this->CheckRange(deviceSource, bytes)) != cudaSuccess ||
      (error = this->CheckRange(deviceDestination, bytes)) != cudaSuccess)
  {
    return error;
  }
  std::memmove(deviceDestination, deviceSource, bytes);
  return cudaSuccess;
}

cudaError_t
CudaEmulatedMemoryBackend::CopyPeerAsync(void *       destination,
                                         int          destinationDevice,
                                         const void * source,
                                         int          sourceDevice,
                                         size_t       bytes,
                                         cudaStream_t)
{
  int destinationOwner = -1;
  int sourceOwner = -1;
  cudaError_t error = cudaSuccess;
  if ((error = this->GetPointerDevice(destination, &destinationOwner)) != cudaSuccess ||
      (error = this->GetPointerDevice(source, &sourceOwner)) != cudaSuccess)
  {
    return error;
  }
  if (destinationOwner != destinationDevice || sourceOwner != sourceDevice)
  {
    return cudaErrorInvalidDevice; // as the runtime would, for a pointer of another device
  }
  return this->CopyDeviceToDevice(destination, source, bytes);
}

size_t
CudaEmulatedMemoryBackend::GetNumberOfLiveAllocations() const
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  return m_Allocations.size();
}

size_t
CudaEmulatedMemoryBackend::GetLiveBytes() const
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  return m_LiveBytes;
}

bool
CudaEmulatedMemoryBackend::IsDevicePointer(const void * pointer) const
{
  return this->CheckRange(pointer, 0) == cudaSuccess;
}

void
CudaEmulatedMemoryBackend::FailAllocationAfter(unsigned int n, cudaError_t error)
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  m_AllocationCountdown = n;
  m_AllocationError = error;
}

void
CudaEmulatedMemoryBackend::FailCopyAfter(unsigned int n, cudaError_t error)
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  m_CopyCountdown = n;
  m_CopyError = error;
}

// ---------------------------------------------------------------------------

CudaMemoryBackendOverride::CudaMemoryBackendOverride(std::shared_ptr<CudaMemoryBackend> backend)
  : m_Previous(CudaMemoryBackend::SetDefault(std::move(backend)))
{}

CudaMemoryBackendOverride::~CudaMemoryBackendOverride()
{
  CudaMemoryBackend::SetDefault(std::move(m_Previous));
}
} // namespace itk
