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
#include "itkCudaDataManagerState.h"
#include "itkCudaHostMemoryPool.h"
#include "itkCudaResources.h"

#include <utility>

// The transitions of the coherence state machine (docs/coherence.md): each
// runs with the state's mutex held, taken once by the public call that runs
// it (itkCudaDataManager.cxx).
namespace itk
{
void
CudaDataManager::ObserveCPUBufferLocked(SharedState & state)
{
  const CPUBufferObservation seen = this->ObserveCPUBuffer();
  if (seen.Buffer != nullptr && state.CPUBuffer != nullptr && seen.Buffer != state.CPUBuffer &&
      seen.Bytes == state.BufferSize)
  {
    // The owner re-pointed its buffer (ImportImageContainer::SetImportPointer):
    // the new memory holds the data from now on.
    state.WaitForUpload();
    state.CPUBuffer = seen.Buffer;
    state.Valid = HostValid;
    return;
  }
  if (state.Valid == BothValid && seen.MTime > state.SynchronizationTime.GetMTime())
  {
    state.Valid = HostValid; // written on the CPU behind the flags, then Modified()
  }
}

void
CudaDataManager::AllocatePendingCPUBufferLocked(SharedState & state)
{
  if (state.CPUBuffer == nullptr && state.BufferSize > 0)
  {
    state.CPUBuffer = this->AllocateCPUBufferForDownload();
  }
  state.CPUBufferPending = state.CPUBuffer == nullptr && state.BufferSize > 0;
}

void
CudaDataManager::DownloadLocked(SharedState & state)
{
  if (!state.HasGPUBuffer())
  {
    itkExceptionMacro("the CPU copy is marked stale but there is no GPU copy to read it from: "
                      "the data of this buffer of "
                      << state.BufferSize << " bytes is lost (flags set by hand?)");
  }
  if (!state.DeviceCurrent())
  {
    itkExceptionMacro("both the CPU and the GPU copies are marked stale; no copy holds the data");
  }
  this->AllocatePendingCPUBufferLocked(state);
  if (state.CPUBuffer == nullptr && state.BufferSize > 0)
  {
    itkExceptionMacro("the GPU copy of " << state.BufferSize
                                         << " bytes must be copied to the CPU, but there is no CPU buffer");
  }
  if (state.BufferSize > 0)
  {
    const auto   backend = state.GPUBuffer->GetBackend();
    cudaStream_t stream = state.QueueStream();
    CudaHostMemoryPool::GetInstance().PrepareForTransfer(state.CPUBuffer); // pins a buffer copied again
    CUDA_CHECK(backend->CopyDeviceToHostAsync(state.CPUBuffer, state.GPUBuffer->GetPointer(), state.BufferSize, stream));
    CUDA_CHECK(backend->SynchronizeStream(stream)); // the host reads next
    state.UploadPending = false;
    CudaTransferStatistics added;
    added.DeviceToHostCount = 1;
    added.DeviceToHostBytes = state.BufferSize;
    CudaDetail::CountTransfers(state.Statistics, added);
  }
  state.Valid = BothValid;
  state.Touch();
}

void
CudaDataManager::AcquireCPULocked(SharedState & state, Access access, bool releaseStaleGPUBuffer)
{
  this->ObserveCPUBufferLocked(state);
  if (access == Access::Overwrite || state.HostCurrent())
  {
    this->AllocatePendingCPUBufferLocked(state); // first host use of a buffer made on the GPU side
  }
  else
  {
    this->DownloadLocked(state);
  }
  if (access == Access::Read)
  {
    return;
  }
  state.WaitForUpload(); // the caller is about to write the CPU buffer
  state.Valid = HostValid;
  if (releaseStaleGPUBuffer)
  {
    this->ReleaseStaleGPUBufferLocked(state);
  }
  else if (state.OwnsGPUBuffer() && state.ReleaseDirtyGPUBuffer)
  {
    state.StaleBufferKept = true;
  }
}

void
CudaDataManager::ReleaseStaleGPUBufferLocked(SharedState & state)
{
  state.StaleBufferKept = false;
  // A buffer a view holds stays: the next GPU use refreshes it in place.
  if (state.ReleaseDirtyGPUBuffer && state.OwnsGPUBuffer() && !state.GPUBuffer->IsExported())
  {
    state.BeforeFree();
    state.GPUBuffer->Free();
  }
}

bool
CudaDataManager::AllocateGPUBufferLocked(SharedState & state)
{
  if (state.HasGPUBuffer() && state.GPUBuffer->GetBufferSize() == state.BufferSize)
  {
    return false;
  }
  // Stream-ordered: a buffer freed and allocated again on the stream (an
  // output reallocated by the next Update()) costs no device synchronisation.
  cudaStream_t stream = state.QueueStream(); // the old buffer, if any, is freed there
  state.Buffer().Allocate(state.BufferSize, state.ResolveDevice(), stream);
  // A new device buffer holds garbage until the CPU copy is uploaded.
  state.Valid = static_cast<uint8_t>(state.Valid & HostValid);
  return true;
}

void
CudaDataManager::AcquireGPULocked(SharedState & state, Access access)
{
  if (state.BufferSize == 0)
  {
    itkExceptionMacro("cannot make the GPU copy current: the buffer size is 0 (image not allocated?)");
  }
  if (!state.HasGPUBuffer() && !CudaMemoryBackend::GetDefault()->IsDeviceAvailable())
  {
    itkExceptionMacro("cannot make the GPU copy current: no CUDA device is available (" << CudaUnavailableReason()
                                                                                        << ")");
  }
  this->ObserveCPUBufferLocked(state);
  if (state.CPUBufferPending && state.CPUBuffer == nullptr && !state.DeviceCurrent())
  {
    // A host buffer still to be made (an image Allocate() only sized) holds
    // no data: nothing goes up and none is made, as for an overwrite (what
    // ITKCudaCommon 2.x did with an image Allocate() left stale on both sides).
    access = Access::Overwrite;
  }
  const bool replacesBuffer = !state.HasGPUBuffer() || state.GPUBuffer->GetBufferSize() != state.BufferSize;
  if (access != Access::Overwrite && replacesBuffer && !state.HostCurrent())
  {
    itkExceptionMacro("the GPU copy is the only current copy but its buffer is gone; the data is lost "
                      "(flags set by hand?)");
  }
  bool queued = this->AllocateGPUBufferLocked(state);
  state.StaleBufferKept = false;
  if (access == Access::Overwrite)
  {
    state.Valid = DeviceValid;
    state.ReadyForScope(queued);
    return;
  }
  if (!state.DeviceCurrent())
  {
    if (!state.HostCurrent())
    {
      itkExceptionMacro("both the CPU and the GPU copies are marked stale; no copy holds the data");
    }
    this->AllocatePendingCPUBufferLocked(state);
    if (state.CPUBuffer == nullptr)
    {
      itkExceptionMacro("the CPU copy of " << state.BufferSize
                                           << " bytes must be copied to the GPU, but there is no CPU buffer");
    }
    // Queued on the buffer's stream: the host goes on while pinned data moves.
    CudaHostMemoryPool::GetInstance().PrepareForTransfer(state.CPUBuffer); // pins a buffer copied again
    bool hostStillRead = true;
    CUDA_CHECK(state.GPUBuffer->GetBackend()->CopyHostToDeviceAsync(
      state.GPUBuffer->GetPointer(), state.CPUBuffer, state.BufferSize, state.QueueStream(), &hostStillRead));
    state.UploadPending = state.UploadPending || hostStillRead;
    CudaTransferStatistics added;
    added.HostToDeviceCount = 1;
    added.HostToDeviceBytes = state.BufferSize;
    CudaDetail::CountTransfers(state.Statistics, added);
    state.Valid = BothValid;
    state.Touch();
    queued = true;
  }
  if (access == Access::Write)
  {
    state.Valid = DeviceValid;
  }
  state.ReadyForScope(queued);
}

void
CudaDataManager::AdoptGPUBufferLocked(SharedState & state, void * pointer, std::shared_ptr<const void> owner)
{
  // Where the backend can tell, the external allocation must hold the buffer.
  size_t            available = 0;
  const auto        backend = CudaMemoryBackend::GetDefault();
  const cudaError_t rangeStatus = backend->GetBytesFrom(pointer, &available);
  if (rangeStatus == cudaSuccess && available < state.BufferSize)
  {
    itkExceptionMacro("the device allocation at " << pointer << " holds " << available
                                                  << " bytes from there, the buffer needs " << state.BufferSize);
  }
  if (rangeStatus == cudaErrorInvalidValue)
  {
    itkExceptionMacro(<< pointer << " is not in a device allocation");
  }
  int pointerDevice = -1;
  if (backend->GetPointerDevice(pointer, &pointerDevice) == cudaSuccess && pointerDevice != state.ResolveDevice())
  {
    this->ReleaseStreamLocked(state); // its stream belonged to the old device
    state.Device = pointerDevice;
  }
  state.BeforeFree(); // an owned buffer it replaces
  state.Buffer().SetPointer(pointer, std::move(owner));
  state.Buffer().SetBufferSize(state.BufferSize);
  state.LegacyMayUse = true; // written by code we do not know, maybe on the legacy stream
  state.StaleBufferKept = false;
  state.Touch();
}

void
CudaDataManager::ReleaseStreamLocked(SharedState & state)
{
  if (state.StreamBackend)
  {
    // The next stream (of another device) is not ordered after this one:
    // let the work queued here finish. The stream stays in its pool.
    state.WaitForUpload();
    CUDA_CHECK(state.StreamBackend->SynchronizeStream(state.Stream));
    state.StreamBackend.reset();
    state.Stream = nullptr;
  }
}

void
CudaDataManager::MoveGPUBufferLocked(SharedState & state, int device)
{
  const int from = state.ResolveDevice();
  auto      moved = GPUMemPointer::New();
  moved->Allocate(state.BufferSize, device); // throws, leaving the image where it was
  // After the pending work on the old buffer (queued on its stream).
  cudaStream_t stream = state.QueueStream();
  const auto   backend = moved->GetBackend();
  CUDA_CHECK(backend->CopyPeerAsync(moved->GetPointer(), device, state.GPUBuffer->GetPointer(), from,
                                    state.BufferSize, stream));
  CUDA_CHECK(state.StreamBackend->SynchronizeStream(stream));
  state.UploadPending = false;
  state.GPUBuffer = moved; // frees an owned old buffer, forgets a borrowed one
  CudaTransferStatistics added;
  added.PeerCount = 1;
  added.PeerBytes = state.BufferSize;
  CudaDetail::CountTransfers(state.Statistics, added);
}

CudaHostStreamedProduction
CudaDataManager::BeginHostStreamedProduction()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  this->ObserveCPUBufferLocked(*state); // a re-pointed host buffer is the one written
  if (!CudaIsPinnedHostMemory(state->CPUBuffer))
  {
    return {};
  }
  state->WaitForUpload(); // the chunks come down into the host buffer
  this->AcquireGPULocked(*state, Access::Overwrite);
  state->HandToLegacy(); // as GetGPUBufferPointerForOverwrite(): the caller holds the pointer
  state->Valid = NoneValid;
  state->ProducedBoth = false;
  return CudaHostStreamedProduction(this, state->CPUBuffer, state->GPUBuffer->GetPointer());
}

void
CudaDataManager::EndHostStreamedProduction(const CudaTransferStatistics * committed) noexcept
{
  SharedState *               state = m_State.get();
  std::lock_guard<std::mutex> lock(state->Mutex);
  if (committed == nullptr)
  {
    state->Valid = HostValid; // what landed, and elsewhere what the host held
    state->Touch();
    return;
  }
  state->Valid = BothValid;
  state->ProducedBoth = true;
  state->Touch();
  CudaDetail::CountTransfers(state->Statistics, *committed);
}

CudaHostStreamedProduction::CudaHostStreamedProduction(CudaDataManager * manager, void * host, void * device)
  : m_Manager(manager)
  , m_HostBuffer(host)
  , m_DeviceBuffer(device)
{}

CudaHostStreamedProduction::CudaHostStreamedProduction(CudaHostStreamedProduction && other) noexcept
  : m_Manager(std::move(other.m_Manager))
  , m_HostBuffer(std::exchange(other.m_HostBuffer, nullptr))
  , m_DeviceBuffer(std::exchange(other.m_DeviceBuffer, nullptr))
{
  other.m_Manager = nullptr;
}

CudaHostStreamedProduction &
CudaHostStreamedProduction::operator=(CudaHostStreamedProduction && other) noexcept
{
  if (this != &other)
  {
    this->Abandon();
    m_Manager = std::move(other.m_Manager);
    other.m_Manager = nullptr;
    m_HostBuffer = std::exchange(other.m_HostBuffer, nullptr);
    m_DeviceBuffer = std::exchange(other.m_DeviceBuffer, nullptr);
  }
  return *this;
}

CudaHostStreamedProduction::~CudaHostStreamedProduction()
{
  this->Abandon();
}

void
CudaHostStreamedProduction::Commit(const CudaTransferStatistics & copies)
{
  if (!m_Manager)
  {
    itkGenericExceptionMacro("CudaHostStreamedProduction::Commit: the production is empty or has ended");
  }
  m_Manager->EndHostStreamedProduction(&copies);
  m_Manager = nullptr;
}

void
CudaHostStreamedProduction::Abandon() noexcept
{
  if (m_Manager)
  {
    m_Manager->EndHostStreamedProduction(nullptr);
    m_Manager = nullptr;
  }
}
} // namespace itk
