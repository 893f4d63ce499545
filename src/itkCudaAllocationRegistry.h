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
#ifndef itkCudaAllocationRegistry_h
#define itkCudaAllocationRegistry_h

/** \file itkCudaAllocationRegistry.h
 * \brief Private to the library: the device allocations behind GPUMemPointer,
 * the registry that finds the allocation a pointer lies in, and the holds
 * that keep one alive for a view or a borrowing manager.
 */

#include "itkCudaDataManager.h"
#include "itkCudaMemoryResource.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>

namespace itk
{
namespace CudaDetail
{
/** One device allocation, shared by the GPUMemPointer that made or borrowed
 * it and by every view exported from it (GPUMemPointer::Export()): the memory
 * lives until the last of them lets go. */
struct DeviceAllocation
{
  void *                             Pointer{ nullptr };
  size_t                             Bytes{ 0 };
  int                                Device{ -1 };
  // The stream a stream-ordered allocation was made on (and is freed on);
  // nullptr for memory usable everywhere at once (cudaMalloc).
  cudaStream_t                       Stream{ nullptr };
  bool                               Owned{ false };
  bool                               Freed{ false };
  // A view or another manager held it at some time: work on streams we do
  // not know may have used it, so freeing it waits for the whole device.
  std::atomic<bool>                  EverShared{ false };
  std::shared_ptr<CudaMemoryBackend> Backend;
  // What the memory came from and goes back to (owned memory only).
  std::shared_ptr<CudaMemoryResource> Resource;
  std::shared_ptr<const void>        BorrowedFrom;
  std::atomic<int>                   Exports{ 0 };

  DeviceAllocation() = default;
  DeviceAllocation(const DeviceAllocation &) = delete;
  DeviceAllocation &
  operator=(const DeviceAllocation &) = delete;
  ~DeviceAllocation();

  cudaError_t
  FreeNow() noexcept;
};

// Owned allocations by start address, so that a pointer into one of them
// handed to SetGPUBufferPointer() is recognised and held. The registry mutex
// also orders "am I the last holder?" against look-ups that add a holder.
struct AllocationRegistry
{
  std::mutex                                        Mutex;
  std::map<uintptr_t, std::weak_ptr<DeviceAllocation>> ByAddress;
};

/** The process's registry (itkCudaProcessGlobal.h: shared with every copy of
 * this library in the process, never destroyed). */
AllocationRegistry &
Registry();

/** Make an owned allocation findable by its addresses. */
void
Register(const std::shared_ptr<DeviceAllocation> & allocation);

/** Forget the allocation at `address` once it is gone; the registry's mutex is held. */
void
UnregisterLocked(AllocationRegistry & registry, const void * address);

/** The live owned allocation `pointer` lies in; nullptr for none. */
std::shared_ptr<DeviceAllocation>
FindOwnedAllocation(const void * pointer);

/** A view's hold: keeps the allocation alive and counted as exported. */
std::shared_ptr<const void>
HoldAllocation(std::shared_ptr<DeviceAllocation> allocation);

/** One owner kept alive for two reasons. */
std::shared_ptr<const void>
CombineOwners(std::shared_ptr<const void> first, std::shared_ptr<const void> second);
} // namespace CudaDetail
} // namespace itk

#endif
