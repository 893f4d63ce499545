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
#include "itkCudaAllocationRegistry.h"
#include "itkCudaError.h"

#include <sstream>
#include <utility>

namespace itk
{
GPUMemPointer::~GPUMemPointer()
{
  const cudaError_t error = this->Release();
  if (error != cudaSuccess)
  {
    itkWarningMacro("releasing " << m_BufferSize << " bytes of device memory failed: " << cudaGetErrorName(error)
                                 << " (" << cudaGetErrorString(error) << ")");
  }
}

cudaError_t
GPUMemPointer::Release() noexcept
{
  cudaError_t error = cudaSuccess;
  if (m_Allocation && m_Allocation->Owned)
  {
    // Free now, reporting the error, when nobody else holds the memory;
    // otherwise the last view frees it.
    auto &                      registry = CudaDetail::Registry();
    std::lock_guard<std::mutex> lock(registry.Mutex);
    if (m_Allocation.use_count() == 1)
    {
      error = m_Allocation->FreeNow();
      const void * address = m_Allocation->Pointer;
      m_Allocation.reset(); // freed already: the destructor does nothing
      CudaDetail::UnregisterLocked(registry, address);
    }
  }
  m_Allocation.reset();
  m_Pointer = nullptr;
  m_Owner = false;
  m_Device = -1;
  return error;
}

void
GPUMemPointer::Allocate(size_t bufferSize)
{
  auto backend = CudaMemoryBackend::GetDefault();
  if (!backend->IsDeviceAvailable())
  {
    itkExceptionMacro("cannot allocate " << bufferSize << " bytes of device memory: no CUDA device is available ("
                                         << CudaUnavailableReason() << ")");
  }
  int device = 0;
  CUDA_CHECK(backend->GetCurrentDevice(&device));
  this->Allocate(bufferSize, device);
}

void
GPUMemPointer::Allocate(size_t bufferSize, int device)
{
  this->Allocate(bufferSize, device, nullptr);
}

void
GPUMemPointer::Allocate(size_t bufferSize, int device, cudaStream_t stream)
{
  this->Free();
  auto backend = CudaMemoryBackend::GetDefault();
  if (!backend->IsDeviceAvailable())
  {
    itkExceptionMacro("cannot allocate " << bufferSize << " bytes of device memory: no CUDA device is available ("
                                         << CudaUnavailableReason() << ")");
  }
  auto              resource = backend->GetMemoryResource();
  void *            pointer = nullptr;
  const cudaError_t error = resource->Allocate(&pointer, bufferSize, device, stream);
  if (error != cudaSuccess)
  {
    size_t             freeBytes = 0;
    size_t             totalBytes = 0;
    const bool         known = backend->GetMemoryInfo(&freeBytes, &totalBytes) == cudaSuccess;
    std::ostringstream message;
    message << "cannot allocate " << bufferSize << " bytes on CUDA device " << device << " (" << resource->GetName()
            << "): " << cudaGetErrorName(error) << " (" << cudaGetErrorString(error) << ")";
    if (known)
    {
      message << "; the device has " << freeBytes << " of " << totalBytes << " bytes free";
    }
    itkExceptionMacro(<< message.str());
  }
  auto allocation = std::make_shared<CudaDetail::DeviceAllocation>();
  allocation->Pointer = pointer;
  allocation->Bytes = bufferSize;
  allocation->Device = device;
  allocation->Stream = stream;
  allocation->Owned = true;
  allocation->Backend = std::move(backend);
  allocation->Resource = std::move(resource);
  CudaDetail::Register(allocation);
  m_Allocation = std::move(allocation);
  m_Pointer = pointer;
  m_BufferSize = bufferSize;
  m_Owner = true;
  m_Device = device;
  this->Modified();
}

void
GPUMemPointer::Free()
{
  const size_t      bytes = m_BufferSize;
  const cudaError_t error = this->Release();
  m_BufferSize = 0;
  this->Modified();
  if (error != cudaSuccess)
  {
    itkExceptionMacro("freeing " << bytes << " bytes of device memory failed: " << cudaGetErrorName(error) << " ("
                                 << cudaGetErrorString(error) << ")");
  }
}

void
GPUMemPointer::SetPointer(void * pointer, std::shared_ptr<const void> owner)
{
  if (pointer == m_Pointer && pointer != nullptr)
  {
    if (!m_Owner)
    {
      m_Allocation->BorrowedFrom =
        CudaDetail::CombineOwners(std::move(owner), CudaDetail::HoldAllocation(CudaDetail::FindOwnedAllocation(pointer)));
    }
    return;
  }
  const size_t      bytes = m_BufferSize;
  const cudaError_t error = this->Release();
  if (pointer != nullptr)
  {
    auto allocation = std::make_shared<CudaDetail::DeviceAllocation>();
    allocation->Pointer = pointer;
    allocation->Bytes = bytes;
    // Memory of our own (another image's buffer) is held as a view holds it.
    allocation->BorrowedFrom =
      CudaDetail::CombineOwners(std::move(owner), CudaDetail::HoldAllocation(CudaDetail::FindOwnedAllocation(pointer)));
    m_Allocation = std::move(allocation);
  }
  m_Pointer = pointer;
  m_BufferSize = bytes;
  this->Modified();
  if (error != cudaSuccess)
  {
    itkExceptionMacro("freeing the previous device buffer failed: " << cudaGetErrorName(error));
  }
}

std::shared_ptr<CudaMemoryBackend>
GPUMemPointer::GetBackend() const
{
  return m_Allocation && m_Allocation->Backend ? m_Allocation->Backend : CudaMemoryBackend::GetDefault();
}

std::shared_ptr<CudaMemoryResource>
GPUMemPointer::GetMemoryResource() const
{
  return m_Allocation && m_Owner ? m_Allocation->Resource : nullptr;
}

std::shared_ptr<const void>
GPUMemPointer::Export() const
{
  return m_Pointer != nullptr ? CudaDetail::HoldAllocation(m_Allocation) : nullptr;
}

bool
GPUMemPointer::IsExported() const
{
  return m_Allocation && m_Allocation->Exports.load() > 0;
}

void
GPUMemPointer::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Pointer: " << m_Pointer << std::endl;
  os << indent << "BufferSize: " << m_BufferSize << std::endl;
  os << indent << "Owner: " << (m_Owner ? "yes" : "no (borrowed)") << std::endl;
  os << indent << "BorrowedFrom: " << (m_Allocation && m_Allocation->BorrowedFrom ? "an owner kept alive" : "none")
     << std::endl;
  os << indent << "Device: " << m_Device << std::endl;
  os << indent << "Backend: " << (m_Allocation && m_Allocation->Backend ? m_Allocation->Backend->GetName() : "none")
     << std::endl;
  os << indent << "MemoryResource: "
     << (m_Allocation && m_Allocation->Resource ? m_Allocation->Resource->GetName() : "none") << std::endl;
  os << indent << "Exported views: " << (m_Allocation ? m_Allocation->Exports.load() : 0) << std::endl;
}
} // namespace itk
