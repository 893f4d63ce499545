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
#include "itkCudaEmulatedMemoryBackend.h"

#include <cstdlib>
#include <cstring>

namespace itk
{
/** The emulated "device" memory: the backend's own resource, which keeps
 * its allocations in the backend's tables (and never outlives it in tests:
 * every buffer holds both). */
class CudaEmulatedMemoryBackend::Resource final : public CudaMemoryResource
{
public:
  explicit Resource(CudaEmulatedMemoryBackend * backend)
    : m_Backend(backend)
  {}
  const char *
  GetName() const override
  {
    return "emulated device memory";
  }
  cudaError_t
  Allocate(void ** pointer, size_t bytes, int device, cudaStream_t) override
  {
    return m_Backend->AllocateEmulated(pointer, bytes, device);
  }
  cudaError_t
  Deallocate(void * pointer, size_t, int, cudaStream_t) noexcept override
  {
    return m_Backend->FreeEmulated(pointer);
  }

private:
  CudaEmulatedMemoryBackend * m_Backend;
};

CudaEmulatedMemoryBackend::CudaEmulatedMemoryBackend(size_t capacityBytes)
  : CudaMemoryBackend(std::make_shared<Resource>(this))
  , m_Capacity(capacityBytes)
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
CudaEmulatedMemoryBackend::AllocateEmulated(void ** pointer, size_t bytes, int device)
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
CudaEmulatedMemoryBackend::FreeEmulated(void * pointer) noexcept
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

// Copies run before the call returns: nothing is ever in flight.
cudaError_t
CudaEmulatedMemoryBackend::CopyHostToDeviceAsync(void *       deviceDestination,
                                                 const void * hostSource,
                                                 size_t       bytes,
                                                 cudaStream_t,
                                                 bool * hostStillRead)
{
  if (hostStillRead != nullptr)
  {
    *hostStillRead = false;
  }
  cudaError_t error = cudaSuccess;
  if (this->CopyShouldFail(&error) || (error = this->CheckRange(deviceDestination, bytes)) != cudaSuccess)
  {
    return error;
  }
  std::memcpy(deviceDestination, hostSource, bytes);
  return cudaSuccess;
}

cudaError_t
CudaEmulatedMemoryBackend::CopyDeviceToHostAsync(void *       hostDestination,
                                                 const void * deviceSource,
                                                 size_t       bytes,
                                                 cudaStream_t)
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
  if (this->CopyShouldFail(&error) || (error = this->CheckRange(source, bytes)) != cudaSuccess ||
      (error = this->CheckRange(destination, bytes)) != cudaSuccess)
  {
    return error;
  }
  std::memmove(destination, source, bytes);
  return cudaSuccess;
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
