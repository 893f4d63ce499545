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
#include "itkCudaProcessGlobal.h"
#include "itkOutputWindow.h"

#include <sstream>
#include <utility>

namespace itk
{
namespace CudaDetail
{
AllocationRegistry &
Registry()
{
  // One per process, shared with every copy of this library in it, never
  // destroyed (itkCudaProcessGlobal.h).
  static AllocationRegistry & registry = ProcessGlobalOf<AllocationRegistry>("AllocationRegistry");
  return registry;
}

void
Register(const std::shared_ptr<DeviceAllocation> & allocation)
{
  AllocationRegistry &        registry = Registry();
  std::lock_guard<std::mutex> lock(registry.Mutex);
  registry.ByAddress[reinterpret_cast<uintptr_t>(allocation->Pointer)] = allocation;
}

// The registry's mutex is held; the allocation at `address` is gone.
void
UnregisterLocked(AllocationRegistry & registry, const void * address)
{
  const auto found = registry.ByAddress.find(reinterpret_cast<uintptr_t>(address));
  if (found != registry.ByAddress.end() && found->second.expired())
  {
    registry.ByAddress.erase(found);
  }
}

std::shared_ptr<DeviceAllocation>
FindOwnedAllocation(const void * pointer)
{
  AllocationRegistry &        registry = Registry();
  std::lock_guard<std::mutex> lock(registry.Mutex);
  const auto                  address = reinterpret_cast<uintptr_t>(pointer);
  auto                        next = registry.ByAddress.upper_bound(address);
  if (next == registry.ByAddress.begin())
  {
    return nullptr;
  }
  --next;
  auto allocation = next->second.lock();
  if (allocation && !allocation->Freed && address < next->first + allocation->Bytes)
  {
    return allocation;
  }
  return nullptr;
}

std::shared_ptr<const void>
HoldAllocation(std::shared_ptr<DeviceAllocation> allocation)
{
  if (!allocation)
  {
    return nullptr;
  }
  ++allocation->Exports;
  allocation->EverShared = true;
  DeviceAllocation * raw = allocation.get();
  return std::shared_ptr<const void>(raw, [allocation = std::move(allocation)](const void *) mutable {
    --allocation->Exports;
    allocation.reset();
  });
}

std::shared_ptr<const void>
CombineOwners(std::shared_ptr<const void> first, std::shared_ptr<const void> second)
{
  if (!first)
  {
    return second;
  }
  if (!second)
  {
    return first;
  }
  using Pair = std::pair<std::shared_ptr<const void>, std::shared_ptr<const void>>;
  return std::make_shared<Pair>(std::move(first), std::move(second));
}
cudaError_t
DeviceAllocation::FreeNow() noexcept
{
  cudaError_t error = cudaSuccess;
  if (Owned && !Freed && Pointer != nullptr && Backend && Resource)
  {
    if (EverShared && Stream != nullptr)
    {
      error = Backend->SynchronizeDevice(Device);
    }
    const cudaError_t freed = Resource->Deallocate(Pointer, Bytes, Device, Stream);
    error = error == cudaSuccess ? freed : error;
  }
  Freed = true;
  return error;
}

DeviceAllocation::~DeviceAllocation()
{
  if (!Owned || Freed)
  {
    return;
  }
  {
    AllocationRegistry &        registry = Registry();
    std::lock_guard<std::mutex> lock(registry.Mutex);
    UnregisterLocked(registry, Pointer);
  }
  const cudaError_t error = this->FreeNow();
  if (error != cudaSuccess)
  {
    std::ostringstream message;
    message << "CudaCommon: freeing " << Bytes << " bytes of device memory failed: " << cudaGetErrorName(error)
            << " (" << cudaGetErrorString(error) << ")";
    OutputWindowDisplayWarningText(message.str().c_str());
  }
}
} // namespace CudaDetail
} // namespace itk
