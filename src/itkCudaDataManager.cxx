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
#include "itkCudaEnvironment.h"
#include "itkCudaResources.h"

#include <utility>

// The public calls of CudaDataManager: each takes the state's lock once and
// runs one transition (itkCudaDataManagerTransitions.cxx).
namespace itk
{
bool
CudaDataManager::GetReleaseDirtyGPUBufferDefault()
{
  return CudaDetail::EnvironmentSwitch("ITK_RELEASE_DIRTY_GPU_BUFFERS", true);
}

bool
CudaDataManager::GetConstCPUAccessReadOnlyDefault()
{
  return CudaDetail::EnvironmentSwitch("ITK_CUDA_CONST_CPU_ACCESS_READ_ONLY", false);
}

CudaDataManager::CudaDataManager()
  : m_State(std::make_shared<SharedState>(ProcessReleaseDirtyGPUBufferDefault(),
                                          ProcessConstCPUAccessReadOnlyDefault()))
{}

bool
CudaDataManager::ProcessReleaseDirtyGPUBufferDefault()
{
  // Read once: managers are made for every image, getenv is a linear scan.
  static const bool value = GetReleaseDirtyGPUBufferDefault();
  return value;
}

bool
CudaDataManager::ProcessConstCPUAccessReadOnlyDefault()
{
  static const bool value = GetConstCPUAccessReadOnlyDefault();
  return value;
}

CudaDataManager::~CudaDataManager() = default;

ModifiedTimeType
CudaDataManager::GetSynchronizationTime(const SharedState & state)
{
  return state.SynchronizationTime.GetMTime();
}

void
CudaDataManager::SetBufferSize(size_t num)
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  if (state->BufferSize != num)
  {
    state->BufferSize = num;
    if (state->OwnsGPUBuffer())
    {
      state->BeforeFree();
      state->GPUBuffer->Free(); // a view keeps the old memory alive
    }
    this->Modified();
  }
}

size_t
CudaDataManager::GetBufferSize() const
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  return state->BufferSize;
}

void
CudaDataManager::SetBufferFlag(int flags)
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  state->BufferFlag = flags;
}

void
CudaDataManager::SetCPUBufferPointer(void * ptr)
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  state->WaitForUpload();
  state->CPUBuffer = ptr;
  state->CPUBufferPending = false;
  this->Modified();
}

void
CudaDataManager::AdoptCPUBuffer(void * buffer, size_t bytes)
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  state->WaitForUpload();
  if (state->BufferSize != bytes && state->OwnsGPUBuffer())
  {
    state->BeforeFree();
    state->GPUBuffer->Free();
  }
  state->BufferSize = bytes;
  state->CPUBuffer = buffer;
  state->CPUBufferPending = buffer == nullptr && bytes > 0;
  state->Valid = HostValid;
  this->ReleaseStaleGPUBufferLocked(*state);
}

void
CudaDataManager::SetGPUBufferPointer(void * ptr)
{
  this->SetGPUBufferPointer(ptr, nullptr);
}

void
CudaDataManager::SetGPUBufferPointer(void * ptr, std::shared_ptr<const void> owner)
{
  if (ptr == nullptr)
  {
    itkExceptionMacro("SetGPUBufferPointer expects a device pointer to " << this->GetBufferSize()
                                                                           << " bytes, got a null pointer");
  }
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  if (state->BufferSize == 0)
  {
    itkExceptionMacro("SetGPUBufferPointer: set the buffer size (the image's regions) before adopting a device "
                      "pointer");
  }
  this->AdoptGPUBufferLocked(*state, ptr, std::move(owner));
  this->Modified();
}

void
CudaDataManager::AdoptGPUBuffer(void * pointer, size_t bytes, std::shared_ptr<const void> owner)
{
  if (pointer == nullptr || bytes == 0)
  {
    itkExceptionMacro("AdoptGPUBuffer expects device memory holding the data, got " << pointer << " and " << bytes
                                                                                      << " bytes");
  }
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  const size_t  previousBytes = state->BufferSize;
  state->BufferSize = bytes; // checked against the allocation below
  try
  {
    this->AdoptGPUBufferLocked(*state, pointer, std::move(owner));
  }
  catch (...)
  {
    state->BufferSize = previousBytes;
    throw;
  }
  state->WaitForUpload(); // the host buffer is let go
  state->CPUBuffer = nullptr;
  state->CPUBufferPending = false; // DeviceValid: the host fast paths stop anyway
  state->Valid = DeviceValid;
  this->Modified();
}

void
CudaDataManager::SetGPUBufferPointer(uint64_t address)
{
  this->SetGPUBufferPointer(reinterpret_cast<void *>(static_cast<uintptr_t>(address)));
}

size_t
CudaDataManager::GetGPUBufferSize() const
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  return state->HasGPUBuffer() ? state->GPUBuffer->GetBufferSize() : 0;
}

void
CudaDataManager::SetCPUDirtyFlag(bool isDirty)
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  state->Valid = static_cast<uint8_t>(isDirty ? (state->Valid & DeviceValid) : (state->Valid | HostValid));
  state->Touch();
}

void
CudaDataManager::SetGPUDirtyFlag(bool isDirty)
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  state->WaitForUpload();
  state->Valid = static_cast<uint8_t>(isDirty ? (state->Valid & HostValid) : (state->Valid | DeviceValid));
  state->Touch();
}

bool
CudaDataManager::IsCPUBufferDirty() const
{
  return !m_State->HostCurrent();
}

bool
CudaDataManager::IsGPUBufferDirty() const
{
  return !m_State->DeviceCurrent();
}

void
CudaDataManager::UpdateCPUBuffer()
{
  SharedState * state = m_State.get();
  if (state->HostCurrent() && !state->CPUBufferPending)
  {
    return;
  }
  LockType lock(state->Mutex);
  this->AcquireCPULocked(*state, Access::Read, false);
}

void
CudaDataManager::UpdateCPUBufferForConstAccess()
{
  SharedState * state = m_State.get();
  if (state->ConstCPUAccessReadOnly)
  {
    this->UpdateCPUBuffer();
    return;
  }
  if (state->Valid == HostValid && !state->CPUBufferPending)
  {
    return; // already in the requested state: the fast path of ITK's iterators
  }
  LockType lock(state->Mutex);
  this->AcquireCPULocked(*state, Access::Write, false);
}

void
CudaDataManager::UpdateGPUBuffer()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  this->AcquireGPULocked(*state, Access::Read);
  state->HandToLegacy();
}

bool
CudaDataManager::Update()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  if (state->Valid == NoneValid)
  {
    itkExceptionMacro("both the CPU and the GPU copies are marked stale; no copy holds the data");
  }
  this->AcquireCPULocked(*state, Access::Read, false);
  if (!CudaMemoryBackend::GetDefault()->IsDeviceAvailable() && !state->HasGPUBuffer())
  {
    return false;
  }
  if (state->BufferSize > 0)
  {
    this->AcquireGPULocked(*state, Access::Read);
  }
  return true;
}

void
CudaDataManager::SetCPUBufferDirty()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  this->AcquireGPULocked(*state, Access::Write);
  state->HandToLegacy(); // the caller writes through a pointer it holds
}

void
CudaDataManager::SetGPUBufferDirty()
{
  SharedState * state = m_State.get();
  if (state->Valid == HostValid && !state->StaleBufferKept && !state->CPUBufferPending)
  {
    return; // already in the requested state: the fast path of CPU writes
  }
  LockType lock(state->Mutex);
  this->AcquireCPULocked(*state, Access::Write, true);
}

void *
CudaDataManager::GetGPUBufferPointer()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  this->AcquireGPULocked(*state, Access::Write);
  state->HandToLegacy();
  return state->GPUBuffer->GetPointer();
}

const void *
CudaDataManager::GetConstGPUBufferPointer()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  this->AcquireGPULocked(*state, Access::Read);
  state->HandToLegacy();
  return state->GPUBuffer->GetPointer();
}

void *
CudaDataManager::GetGPUBufferPointerForOverwrite()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  this->AcquireGPULocked(*state, Access::Overwrite);
  state->HandToLegacy();
  return state->GPUBuffer->GetPointer();
}

void *
CudaDataManager::GetGPUBufferPointerPtr()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  this->AcquireGPULocked(*state, Access::Write);
  state->HandToLegacy();
  return state->GPUBuffer->GetPointerPtr();
}

void *
CudaDataManager::GetCPUBufferPointer()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  this->AcquireCPULocked(*state, Access::Write, true);
  return state->CPUBuffer;
}

const void *
CudaDataManager::GetConstCPUBufferPointer()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  this->AcquireCPULocked(*state, Access::Read, false);
  return state->CPUBuffer;
}

void *
CudaDataManager::GetCPUBufferPointerForOverwrite()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  this->AcquireCPULocked(*state, Access::Overwrite, true);
  return state->CPUBuffer;
}

const void *
CudaDataManager::PeekCPUBuffer() const
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  return state->CPUBuffer;
}

CudaGPUBufferExport
CudaDataManager::ExportGPUBuffer(bool writable)
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  this->AcquireGPULocked(*state, writable ? Access::Write : Access::Read);
  CudaGPUBufferExport view;
  view.Pointer = state->GPUBuffer->GetPointer();
  view.Bytes = state->BufferSize;
  view.Device = state->ResolveDevice();
  view.Stream = state->HandToLegacyForView();
  view.Hold = state->GPUBuffer->Export();
  return view;
}

bool
CudaDataManager::IsGPUBufferExported() const
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  return state->GPUBufferExported();
}

void
CudaDataManager::Allocate()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  if (state->BufferSize == 0)
  {
    itkExceptionMacro("cannot allocate the GPU buffer: the buffer size is 0");
  }
  this->AllocateGPUBufferLocked(*state);
}

void
CudaDataManager::Free()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  if (!state->HasGPUBuffer())
  {
    return;
  }
  this->AcquireCPULocked(*state, Access::Read, false);
  state->BeforeFree();
  state->GPUBuffer->Free(); // a view keeps the memory alive
  state->Valid = static_cast<uint8_t>(state->Valid & HostValid);
  state->StaleBufferKept = false;
}

void
CudaDataManager::Initialize()
{
  m_State = std::make_shared<SharedState>(ProcessReleaseDirtyGPUBufferDefault(), ProcessConstCPUAccessReadOnlyDefault());
  this->Modified();
}

void
CudaDataManager::Graft(const CudaDataManager * data)
{
  if (data == nullptr || data == this)
  {
    return;
  }
  m_State = data->m_State;
  this->Modified();
}

void
CudaDataManager::SetDevice(int device)
{
  int        count = 0;
  const auto backend = CudaMemoryBackend::GetDefault();
  if (backend->IsDeviceAvailable())
  {
    CUDA_CHECK(backend->GetDeviceCount(&count));
  }
  if (device < 0 || device >= count)
  {
    itkExceptionMacro("invalid CUDA device " << device << ": expected an index in [0, " << count << ")");
  }
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  if (device == state->ResolveDevice())
  {
    return;
  }
  if (state->GPUBufferExported())
  {
    itkExceptionMacro("cannot move the image from CUDA device "
                      << state->ResolveDevice() << " to " << device
                      << ": a view holds its device buffer (exported through __cuda_array_interface__, DLPack, "
                         "ExportGPUBuffer() or borrowed by another image) and would no longer see the image; "
                         "release the views first, or use device "
                      << state->ResolveDevice());
  }
  if (state->HasGPUBuffer() && state->DeviceCurrent())
  {
    this->MoveGPUBufferLocked(*state, device);
  }
  else if (state->HasGPUBuffer())
  {
    state->BeforeFree();
    state->GPUBuffer->Free(); // stale: nothing to keep
    state->StaleBufferKept = false;
  }
  this->ReleaseStreamLocked(*state);
  state->Device = device;
}

int
CudaDataManager::GetDevice() const
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  return state->ResolveDevice();
}

cudaStream_t
CudaDataManager::GetStream()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  return state->QueueStream(); // the caller queues work on it
}

bool
CudaDataManager::SharesBuffersWith(const CudaDataManager * other) const
{
  return other != nullptr && m_State == other->m_State;
}

void
CudaDataManager::SetReleaseDirtyGPUBuffer(bool release)
{
  if (m_State->ReleaseDirtyGPUBuffer.exchange(release) != release)
  {
    this->Modified();
  }
}

bool
CudaDataManager::GetReleaseDirtyGPUBuffer() const
{
  return m_State->ReleaseDirtyGPUBuffer;
}

void
CudaDataManager::SetConstCPUAccessReadOnly(bool readOnly)
{
  if (m_State->ConstCPUAccessReadOnly.exchange(readOnly) != readOnly)
  {
    this->Modified();
  }
}

bool
CudaDataManager::GetConstCPUAccessReadOnly() const
{
  return m_State->ConstCPUAccessReadOnly;
}

CudaTransferStatistics
CudaDataManager::GetTransferStatistics() const
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  return state->Statistics;
}

void
CudaDataManager::SetBothBuffersCurrentByProducer()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  state->Valid = BothValid;
  state->ProducedBoth = true;
  state->Touch();
}

bool
CudaDataManager::TakeBothBuffersCurrentByProducer()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  const bool    produced = state->ProducedBoth && state->Valid == BothValid;
  state->ProducedBoth = false;
  if (produced)
  {
    state->Touch(); // after the pipeline's Modified(): no CPU write since
  }
  return produced;
}

void
CudaDataManager::RecordTransfers(uint64_t hostToDeviceBytes, uint64_t deviceToHostBytes)
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  CudaTransferStatistics added;
  added.HostToDeviceCount = hostToDeviceBytes > 0 ? 1 : 0;
  added.HostToDeviceBytes = hostToDeviceBytes;
  added.DeviceToHostCount = deviceToHostBytes > 0 ? 1 : 0;
  added.DeviceToHostBytes = deviceToHostBytes;
  CudaDetail::CountTransfers(state->Statistics, added);
}

void
CudaDataManager::ResetTransferStatistics()
{
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  state->Statistics = CudaTransferStatistics{};
}

void
CudaDataManager::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  SharedState * state = m_State.get();
  LockType      lock(state->Mutex);
  os << indent << "BufferSize: " << state->BufferSize << std::endl;
  os << indent << "BufferFlag: " << state->BufferFlag << std::endl;
  os << indent << "CPUBuffer: " << state->CPUBuffer << std::endl;
  if (state->GPUBuffer)
  {
    os << indent << "GPUBuffer: " << state->GPUBuffer->GetPointer() << " (" << state->GPUBuffer->GetBufferSize()
       << " bytes, ";
    const auto resource = state->GPUBuffer->GetMemoryResource();
    if (resource)
    {
      os << "owned, from " << resource->GetName();
    }
    else
    {
      os << (state->GPUBuffer->IsOwner() ? "owned" : "borrowed");
    }
    os << (state->GPUBuffer->IsExported() ? ", held by views" : "") << ")" << std::endl;
  }
  else
  {
    os << indent << "GPUBuffer: none" << std::endl;
  }
  os << indent << "Coherence: " << CudaDetail::ValidityName(state->Valid) << std::endl;
  os << indent << "IsCPUBufferDirty: " << !state->HostCurrent() << std::endl;
  os << indent << "IsGPUBufferDirty: " << !state->DeviceCurrent() << std::endl;
  os << indent << "ReleaseDirtyGPUBuffer: " << state->ReleaseDirtyGPUBuffer << std::endl;
  os << indent << "ConstCPUAccessReadOnly: " << state->ConstCPUAccessReadOnly << std::endl;
  os << indent << "Shared with other managers: " << (m_State.use_count() > 1 ? "yes" : "no") << std::endl;
  os << indent << "Transfers host->device: " << state->Statistics.HostToDeviceCount << " ("
     << state->Statistics.HostToDeviceBytes << " bytes), device->host: " << state->Statistics.DeviceToHostCount << " ("
     << state->Statistics.DeviceToHostBytes << " bytes), device->device: " << state->Statistics.PeerCount << " ("
     << state->Statistics.PeerBytes << " bytes)" << std::endl;
}
} // namespace itk
