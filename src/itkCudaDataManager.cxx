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
#include "itkCudaDataManager.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

namespace itk
{
// ---------------------------------------------------------------------------
// GPUMemPointer

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
  if (m_Owner && m_Pointer != nullptr && m_Backend)
  {
    error = m_Backend->Free(m_Pointer, m_Device);
  }
  m_Pointer = nullptr;
  m_Owner = false;
  m_Device = -1;
  m_Backend.reset();
  m_BorrowedFrom.reset();
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
  this->Free();
  auto backend = CudaMemoryBackend::GetDefault();
  if (!backend->IsDeviceAvailable())
  {
    itkExceptionMacro("cannot allocate " << bufferSize << " bytes of device memory: no CUDA device is available ("
                                         << CudaUnavailableReason() << ")");
  }
  void *            pointer = nullptr;
  const cudaError_t error = backend->Allocate(&pointer, bufferSize, device);
  if (error != cudaSuccess)
  {
    size_t freeBytes = 0;
    size_t totalBytes = 0;
    const bool   known = backend->GetMemoryInfo(&freeBytes, &totalBytes) == cudaSuccess;
    std::ostringstream message;
    message << "cannot allocate " << bufferSize << " bytes on CUDA device " << device << ": " << cudaGetErrorName(error)
            << " (" << cudaGetErrorString(error) << ")";
    if (known)
    {
      message << "; the device has " << freeBytes << " of " << totalBytes << " bytes free";
    }
    itkExceptionMacro(<< message.str());
  }
  m_Pointer = pointer;
  m_BufferSize = bufferSize;
  m_Owner = true;
  m_Device = device;
  m_Backend = std::move(backend);
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
  if (pointer == m_Pointer)
  {
    if (!m_Owner)
    {
      m_BorrowedFrom = std::move(owner);
    }
    return;
  }
  const size_t bytes = m_BufferSize;
  const cudaError_t error = this->Release();
  m_Pointer = pointer;
  m_BorrowedFrom = std::move(owner);
  m_BufferSize = bytes;
  this->Modified();
  if (error != cudaSuccess)
  {
    itkExceptionMacro("freeing the previous device buffer failed: " << cudaGetErrorName(error));
  }
}

void
GPUMemPointer::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Pointer: " << m_Pointer << std::endl;
  os << indent << "BufferSize: " << m_BufferSize << std::endl;
  os << indent << "Owner: " << (m_Owner ? "yes" : "no (borrowed)") << std::endl;
  os << indent << "BorrowedFrom: " << (m_BorrowedFrom ? "an owner kept alive" : "none") << std::endl;
  os << indent << "Device: " << m_Device << std::endl;
  os << indent << "Backend: " << (m_Backend ? m_Backend->GetName() : "none") << std::endl;
}

// ---------------------------------------------------------------------------
// CudaDataManager

struct CudaDataManager::SharedState
{
  mutable std::mutex Mutex;
  size_t             BufferSize{ 0 };
  void *             CPUBuffer{ nullptr };
  // Read without the lock on the fast paths of const CPU access.
  std::atomic<bool>      CPUDirty{ false };
  std::atomic<bool>      GPUDirty{ true }; // nothing on the GPU yet
  GPUMemPointer::Pointer GPUBuffer; // made on first use: most images never reach a GPU
  int                    BufferFlag{ 0 };
  CudaTransferStatistics Statistics;
  TimeStamp              SynchronizationTime;
  // The stream this buffer's copies (and our filters' kernels) are queued on.
  cudaStream_t                       Stream{ nullptr };
  std::shared_ptr<CudaMemoryBackend> StreamBackend;
  // An upload from the pinned CPU buffer may still be reading it.
  bool UploadPending{ false };
  // Device of the GPU copy; -1: the default device, chosen at first use.
  int Device{ -1 };

  int
  ResolveDevice()
  {
    if (Device < 0)
    {
      Device = CudaGetDefaultDevice();
    }
    return Device;
  }

  SharedState() = default;
  SharedState(const SharedState &) = delete;
  SharedState &
  operator=(const SharedState &) = delete;
  ~SharedState()
  {
    if (StreamBackend)
    {
      // The CPU buffer is freed after us: let pending copies finish first.
      StreamBackend->SynchronizeStream(Stream);
      StreamBackend->DestroyStream(Stream);
    }
  }

  cudaStream_t
  GetStream()
  {
    if (!StreamBackend)
    {
      auto backend = CudaMemoryBackend::GetDefault();
      CUDA_CHECK(backend->CreateStream(&Stream, ResolveDevice()));
      StreamBackend = std::move(backend);
    }
    return Stream;
  }

  /** Before the host writes or gives up the CPU buffer. */
  void
  WaitForUpload()
  {
    if (UploadPending)
    {
      UploadPending = false;
      CUDA_CHECK(StreamBackend->SynchronizeStream(Stream));
    }
  }

  bool
  HasGPUBuffer() const
  {
    return GPUBuffer && GPUBuffer->GetPointer() != nullptr;
  }
  GPUMemPointer &
  Buffer()
  {
    if (!GPUBuffer)
    {
      GPUBuffer = GPUMemPointer::New();
    }
    return *GPUBuffer;
  }
  bool
  OwnsGPUBuffer() const
  {
    return GPUBuffer && GPUBuffer->IsOwner();
  }
  // Recorded whenever both copies become equal (a transfer, or flags set by
  // hand): an image modified later was written on the CPU behind the flags.
  void
  Touch()
  {
    SynchronizationTime.Modified();
  }
};

namespace
{
bool
ParseReleaseDirtyGPUBuffers(const char * value)
{
  if (value == nullptr)
  {
    return true;
  }
  std::string text(value);
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return !(text == "0" || text == "false" || text == "off" || text == "no");
}
} // namespace

bool
CudaDataManager::GetReleaseDirtyGPUBufferDefault()
{
  return ParseReleaseDirtyGPUBuffers(std::getenv("ITK_RELEASE_DIRTY_GPU_BUFFERS"));
}

CudaDataManager::CudaDataManager()
  : m_State(std::make_shared<SharedState>())
  , m_ReleaseDirtyGPUBuffer(ProcessReleaseDirtyGPUBufferDefault())
{}

bool
CudaDataManager::ProcessReleaseDirtyGPUBufferDefault()
{
  // Read once: managers are made for every image, getenv is a linear scan.
  static const bool value = GetReleaseDirtyGPUBufferDefault();
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
  LockType lock(state->Mutex);
  if (state->BufferSize != num)
  {
    state->BufferSize = num;
    if (state->OwnsGPUBuffer())
    {
      state->GPUBuffer->Free();
    }
    this->Modified();
  }
}

size_t
CudaDataManager::GetBufferSize() const
{
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  return state->BufferSize;
}

void
CudaDataManager::SetBufferFlag(int flags)
{
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  state->BufferFlag = flags;
}

void
CudaDataManager::SetCPUBufferPointer(void * ptr)
{
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  state->WaitForUpload();
  state->CPUBuffer = ptr;
  this->Modified();
}

void
CudaDataManager::AdoptCPUBuffer(void * buffer, size_t bytes)
{
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  state->WaitForUpload();
  if (state->BufferSize != bytes && state->OwnsGPUBuffer())
  {
    state->GPUBuffer->Free();
  }
  state->BufferSize = bytes;
  state->CPUBuffer = buffer;
  state->CPUDirty = false;
  this->MarkGPUBufferStaleLocked(*state);
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
  LockType lock(state->Mutex);
  if (state->BufferSize == 0)
  {
    itkExceptionMacro("SetGPUBufferPointer: set the buffer size (the image's regions) before adopting a device "
                      "pointer");
  }
  // Where the backend can tell, the external allocation must hold the buffer.
  size_t available = 0;
  const cudaError_t rangeStatus = CudaMemoryBackend::GetDefault()->GetBytesFrom(ptr, &available);
  if (rangeStatus == cudaSuccess && available < state->BufferSize)
  {
    itkExceptionMacro("SetGPUBufferPointer: the device allocation at " << ptr << " holds " << available
                                                                       << " bytes from there, the buffer needs "
                                                                       << state->BufferSize);
  }
  if (rangeStatus == cudaErrorInvalidValue)
  {
    itkExceptionMacro("SetGPUBufferPointer: " << ptr << " is not in a device allocation");
  }
  int pointerDevice = -1;
  if (CudaMemoryBackend::GetDefault()->GetPointerDevice(ptr, &pointerDevice) == cudaSuccess &&
      pointerDevice != state->ResolveDevice())
  {
    this->ReleaseStreamLocked(*state); // its stream belonged to the old device
    state->Device = pointerDevice;
  }
  state->Buffer().SetPointer(ptr, std::move(owner));
  state->Buffer().SetBufferSize(state->BufferSize);
  state->Touch();
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
  LockType lock(state->Mutex);
  return state->HasGPUBuffer() ? state->GPUBuffer->GetBufferSize() : 0;
}

void
CudaDataManager::SetCPUDirtyFlag(bool isDirty)
{
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  state->CPUDirty = isDirty;
  state->Touch();
}

void
CudaDataManager::SetGPUDirtyFlag(bool isDirty)
{
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  state->WaitForUpload();
  state->GPUDirty = isDirty;
  state->Touch();
}

bool
CudaDataManager::IsCPUBufferDirty() const
{
  return m_State->CPUDirty.load();
}

bool
CudaDataManager::IsGPUBufferDirty() const
{
  return m_State->GPUDirty.load();
}

void
CudaDataManager::UpdateCPUBufferLocked(SharedState & state)
{
  if (!state.CPUDirty)
  {
    return;
  }
  if (!state.HasGPUBuffer())
  {
    itkExceptionMacro("the CPU copy is marked stale but there is no GPU copy to read it from: "
                      "the data of this buffer of "
                      << state.BufferSize << " bytes is lost (flags set by hand?)");
  }
  if (state.CPUBuffer == nullptr && state.BufferSize > 0)
  {
    state.CPUBuffer = this->AllocateCPUBufferForDownload();
    if (state.CPUBuffer == nullptr)
    {
      itkExceptionMacro("the GPU copy of " << state.BufferSize
                                           << " bytes must be copied to the CPU, but there is no CPU buffer");
    }
  }
  if (state.BufferSize > 0)
  {
    const auto   backend = state.GPUBuffer->GetBackend();
    cudaStream_t stream = state.GetStream();
    CUDA_CHECK(backend->CopyDeviceToHostAsync(state.CPUBuffer, state.GPUBuffer->GetPointer(), state.BufferSize, stream));
    CUDA_CHECK(backend->SynchronizeStream(stream)); // the host reads next
    state.UploadPending = false;
    ++state.Statistics.DeviceToHostCount;
    state.Statistics.DeviceToHostBytes += state.BufferSize;
  }
  state.CPUDirty = false;
  state.Touch();
}

void
CudaDataManager::AllocateGPUBufferLocked(SharedState & state)
{
  if (state.HasGPUBuffer() && state.GPUBuffer->GetBufferSize() == state.BufferSize)
  {
    return;
  }
  if (state.CPUDirty)
  {
    itkExceptionMacro("the GPU copy is the only current copy but its buffer is gone; the data is lost "
                      "(flags set by hand?)");
  }
  state.Buffer().Allocate(state.BufferSize, state.ResolveDevice());
  // A new device buffer holds garbage until the CPU copy is uploaded.
  state.GPUDirty = true;
}

void
CudaDataManager::UpdateGPUBufferLocked(SharedState & state)
{
  if (state.BufferSize == 0)
  {
    itkExceptionMacro("cannot make the GPU copy current: the buffer size is 0 (image not allocated?)");
  }
  if (!CudaMemoryBackend::GetDefault()->IsDeviceAvailable() && !state.HasGPUBuffer())
  {
    itkExceptionMacro("cannot make the GPU copy current: no CUDA device is available (" << CudaUnavailableReason()
                                                                                        << ")");
  }
  this->AllocateGPUBufferLocked(state);
  if (!state.CPUDirty && !state.GPUDirty && this->CPUBufferModifiedExternally(state))
  {
    state.GPUDirty = true;
  }
  if (!state.GPUDirty)
  {
    return;
  }
  if (state.CPUDirty)
  {
    itkExceptionMacro("both the CPU and the GPU copies are marked stale; no copy holds the data");
  }
  if (state.CPUBuffer == nullptr)
  {
    itkExceptionMacro("the CPU copy of " << state.BufferSize
                                         << " bytes must be copied to the GPU, but there is no CPU buffer");
  }
  // Queued on the buffer's stream: the host goes on while pinned data moves.
  CUDA_CHECK(state.GPUBuffer->GetBackend()->CopyHostToDeviceAsync(state.GPUBuffer->GetPointer(), state.CPUBuffer,
                                                                  state.BufferSize, state.GetStream()));
  state.UploadPending = true;
  ++state.Statistics.HostToDeviceCount;
  state.Statistics.HostToDeviceBytes += state.BufferSize;
  state.GPUDirty = false;
  state.Touch();
}

void
CudaDataManager::MarkGPUBufferStaleLocked(SharedState & state)
{
  state.WaitForUpload(); // the caller is about to write the CPU buffer
  state.GPUDirty = true;
  if (m_ReleaseDirtyGPUBuffer && state.OwnsGPUBuffer())
  {
    state.GPUBuffer->Free();
  }
}

void
CudaDataManager::UpdateCPUBuffer()
{
  SharedState * state = m_State.get();
  if (!state->CPUDirty)
  {
    return;
  }
  LockType lock(state->Mutex);
  this->UpdateCPUBufferLocked(*state);
}

void
CudaDataManager::UpdateGPUBuffer()
{
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  this->UpdateGPUBufferLocked(*state);
}

bool
CudaDataManager::Update()
{
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  if (state->CPUDirty && state->GPUDirty)
  {
    itkExceptionMacro("both the CPU and the GPU copies are marked stale; no copy holds the data");
  }
  this->UpdateCPUBufferLocked(*state);
  if (!CudaMemoryBackend::GetDefault()->IsDeviceAvailable() && !state->HasGPUBuffer())
  {
    return false;
  }
  if (state->BufferSize > 0)
  {
    this->UpdateGPUBufferLocked(*state);
  }
  return true;
}

void
CudaDataManager::SetCPUBufferDirty()
{
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  this->UpdateGPUBufferLocked(*state);
  state->CPUDirty = true;
}

void
CudaDataManager::SetGPUBufferDirty()
{
  SharedState * state = m_State.get();
  if (state->GPUDirty && !state->CPUDirty)
  {
    return; // already in the requested state: the fast path of CPU writes
  }
  LockType lock(state->Mutex);
  this->UpdateCPUBufferLocked(*state);
  this->MarkGPUBufferStaleLocked(*state);
}

void *
CudaDataManager::GetGPUBufferPointer()
{
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  this->UpdateGPUBufferLocked(*state);
  state->CPUDirty = true;
  return state->GPUBuffer->GetPointer();
}

const void *
CudaDataManager::GetConstGPUBufferPointer()
{
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  this->UpdateGPUBufferLocked(*state);
  return state->GPUBuffer->GetPointer();
}

void *
CudaDataManager::GetGPUBufferPointerForOverwrite()
{
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  if (state->BufferSize == 0)
  {
    itkExceptionMacro("cannot provide a GPU buffer: the buffer size is 0 (image not allocated?)");
  }
  if (!state->HasGPUBuffer() && !CudaMemoryBackend::GetDefault()->IsDeviceAvailable())
  {
    itkExceptionMacro("cannot provide a GPU buffer: no CUDA device is available (" << CudaUnavailableReason() << ")");
  }
  this->AllocateGPUBufferLocked(*state);
  state->GPUDirty = false;
  state->CPUDirty = true;
  return state->GPUBuffer->GetPointer();
}

void *
CudaDataManager::GetGPUBufferPointerPtr()
{
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  this->UpdateGPUBufferLocked(*state);
  state->CPUDirty = true;
  return state->GPUBuffer->GetPointerPtr();
}

void *
CudaDataManager::GetCPUBufferPointer()
{
  this->SetGPUBufferDirty();
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  return state->CPUBuffer;
}

const void *
CudaDataManager::GetConstCPUBufferPointer()
{
  this->UpdateCPUBuffer();
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  return state->CPUBuffer;
}

void
CudaDataManager::Allocate()
{
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
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
  LockType lock(state->Mutex);
  if (!state->HasGPUBuffer())
  {
    return;
  }
  this->UpdateCPUBufferLocked(*state);
  state->GPUBuffer->Free();
  state->GPUDirty = true;
}

void
CudaDataManager::Initialize()
{
  m_State = std::make_shared<SharedState>();
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
CudaDataManager::ReleaseStreamLocked(SharedState & state)
{
  if (state.StreamBackend)
  {
    state.WaitForUpload();
    CUDA_CHECK(state.StreamBackend->SynchronizeStream(state.Stream));
    state.StreamBackend->DestroyStream(state.Stream);
    state.StreamBackend.reset();
    state.Stream = nullptr;
  }
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
  if (state->HasGPUBuffer() && !state->GPUDirty)
  {
    this->MoveGPUBufferLocked(*state, device);
  }
  else if (state->HasGPUBuffer())
  {
    state->GPUBuffer->Free(); // stale: nothing to keep
  }
  this->ReleaseStreamLocked(*state);
  state->Device = device;
}

void
CudaDataManager::MoveGPUBufferLocked(SharedState & state, int device)
{
  const int from = state.ResolveDevice();
  auto      moved = GPUMemPointer::New();
  moved->Allocate(state.BufferSize, device); // throws, leaving the image where it was
  // After the pending work on the old buffer (queued on its stream).
  cudaStream_t stream = state.GetStream();
  const auto   backend = moved->GetBackend();
  CUDA_CHECK(backend->CopyPeerAsync(moved->GetPointer(), device, state.GPUBuffer->GetPointer(), from,
                                    state.BufferSize, stream));
  CUDA_CHECK(state.StreamBackend->SynchronizeStream(stream));
  state.UploadPending = false;
  state.GPUBuffer = moved; // frees an owned old buffer, forgets a borrowed one
  ++state.Statistics.PeerCount;
  state.Statistics.PeerBytes += state.BufferSize;
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
  return state->GetStream();
}

bool
CudaDataManager::SharesBuffersWith(const CudaDataManager * other) const
{
  return other != nullptr && m_State == other->m_State;
}

CudaTransferStatistics
CudaDataManager::GetTransferStatistics() const
{
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  return state->Statistics;
}

void
CudaDataManager::ResetTransferStatistics()
{
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  state->Statistics = CudaTransferStatistics{};
}

void
CudaDataManager::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  SharedState * state = m_State.get();
  LockType lock(state->Mutex);
  os << indent << "BufferSize: " << state->BufferSize << std::endl;
  os << indent << "BufferFlag: " << state->BufferFlag << std::endl;
  os << indent << "CPUBuffer: " << state->CPUBuffer << std::endl;
  if (state->GPUBuffer)
  {
    os << indent << "GPUBuffer: " << state->GPUBuffer->GetPointer() << " (" << state->GPUBuffer->GetBufferSize()
       << " bytes, " << (state->GPUBuffer->IsOwner() ? "owned" : "borrowed") << ")" << std::endl;
  }
  else
  {
    os << indent << "GPUBuffer: none" << std::endl;
  }
  os << indent << "IsCPUBufferDirty: " << state->CPUDirty << std::endl;
  os << indent << "IsGPUBufferDirty: " << state->GPUDirty << std::endl;
  os << indent << "ReleaseDirtyGPUBuffer: " << m_ReleaseDirtyGPUBuffer << std::endl;
  os << indent << "Shared with other managers: " << (m_State.use_count() > 1 ? "yes" : "no") << std::endl;
  os << indent << "Transfers host->device: " << state->Statistics.HostToDeviceCount << " ("
     << state->Statistics.HostToDeviceBytes << " bytes), device->host: " << state->Statistics.DeviceToHostCount << " ("
     << state->Statistics.DeviceToHostBytes << " bytes), device->device: " << state->Statistics.PeerCount << " ("
     << state->Statistics.PeerBytes << " bytes)" << std::endl;
}
} // namespace itk
