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
#include "itkCudaHostMemoryPool.h"
#include "itkCudaResources.h"
#include "itkCudaProcessGlobal.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <utility>
#include <cctype>
#include <cstdlib>
#include <string>

namespace itk
{
// ---------------------------------------------------------------------------
// Device allocations and the views that hold them

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

namespace
{
// Owned allocations by start address, so that a pointer into one of them
// handed to SetGPUBufferPointer() is recognised and held. The registry mutex
// also orders "am I the last holder?" against look-ups that add a holder.
struct AllocationRegistry
{
  std::mutex                                        Mutex;
  std::map<uintptr_t, std::weak_ptr<DeviceAllocation>> ByAddress;
};

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

/** A view's hold: keeps the allocation alive and counted as exported. */
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

/** One owner kept alive for two reasons. */
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
} // namespace

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

// ---------------------------------------------------------------------------
// CudaDataManager

// The coherence state machine (drawn in docs/coherence.md). Which copies hold
// the data is one atomic value, so that the lock-free fast paths never see a
// torn pair of flags:
//   HostValid   CPU current, GPU stale: a new or adopted buffer, a CPU write
//   DeviceValid GPU current, CPU stale: a GPU write
//   BothValid   both current: after a transfer
//   NoneValid   no copy holds data: only through the 2.x flag setters
// Every transition below runs with the state's mutex held, and is one of
// AcquireCPULocked / AcquireGPULocked (Read, Write, Overwrite), an adoption
// (AdoptCPUBuffer, SetGPUBufferPointer), a flag setter, or a device move.
namespace
{
enum Validity : uint8_t
{
  NoneValid = 0,
  HostValid = 1,
  DeviceValid = 2,
  BothValid = 3
};

const char *
ValidityName(uint8_t valid)
{
  switch (valid)
  {
    case HostValid:
      return "CPU copy current, GPU copy stale";
    case DeviceValid:
      return "GPU copy current, CPU copy stale";
    case BothValid:
      return "both copies current";
    default:
      return "no copy current";
  }
}

bool
ParseSwitch(const char * value, bool unset)
{
  if (value == nullptr)
  {
    return unset;
  }
  std::string text(value);
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  if (text == "0" || text == "false" || text == "off" || text == "no")
  {
    return false;
  }
  if (text == "1" || text == "true" || text == "on" || text == "yes")
  {
    return true;
  }
  return unset;
}
} // namespace

struct CudaDataManager::SharedState
{
  mutable std::mutex Mutex;
  size_t             BufferSize{ 0 };
  void *             CPUBuffer{ nullptr };
  // Read without the lock on the fast paths of CPU access.
  std::atomic<uint8_t> Valid{ HostValid }; // nothing on the GPU yet
  // The GPU copy went stale through a const CPU access, which keeps its
  // buffer; the next CPU write applies the release policy.
  std::atomic<bool> StaleBufferKept{ false };
  // The host buffer is made when the host first needs it (AdoptCPUBuffer()
  // without memory): the lock-free fast paths must not return without it.
  std::atomic<bool>      CPUBufferPending{ false };
  GPUMemPointer::Pointer GPUBuffer; // made on first use: most images never reach a GPU
  int                    BufferFlag{ 0 };
  CudaTransferStatistics Statistics;
  // SetBothBuffersCurrentByProducer() was called and not yet taken.
  bool                   ProducedBoth{ false };
  TimeStamp              SynchronizationTime;
  // The stream this buffer's copies (and our filters' kernels) are queued
  // on: one of the device's pooled streams, never destroyed by us.
  cudaStream_t                       Stream{ nullptr };
  std::shared_ptr<CudaMemoryBackend> StreamBackend;
  // Stream is a CUDA stream (not an emulated backend's handle), which can be
  // ordered with others by events.
  bool RuntimeStream{ false };
  // The legacy default stream may use the buffer: a device pointer was
  // handed to code that may launch there (ITKCudaCommon 2.x filters, RTK,
  // consumers of an exported view), or the memory came from outside. The
  // stream waits for the legacy stream before its next copy, free or hand-out.
  bool LegacyMayUse{ false };
  // Work for the buffer was queued on the stream since the legacy stream
  // last waited for it.
  bool QueuedForLegacy{ false };
  // An upload from the pinned CPU buffer may still be reading it.
  bool UploadPending{ false };
  // Device of the GPU copy; -1: the default device, chosen at first use.
  int Device{ -1 };
  // Policies: properties of the buffer, so shared by grafted managers.
  std::atomic<bool> ReleaseDirtyGPUBuffer;
  std::atomic<bool> ConstCPUAccessReadOnly;

  SharedState(bool release, bool constReadOnly)
    : ReleaseDirtyGPUBuffer(release)
    , ConstCPUAccessReadOnly(constReadOnly)
  {}
  SharedState(const SharedState &) = delete;
  SharedState &
  operator=(const SharedState &) = delete;
  ~SharedState()
  {
    if (StreamBackend && RuntimeStream)
    {
      // The device buffer is freed on the stream: after the work that may
      // still use it elsewhere.
      cudaError_t               error = cudaSuccess;
      CudaStreamOrderingScope * scope = CudaStreamOrderingScope::GetCurrent();
      if (LegacyMayUse && !QueuedForLegacy && (scope == nullptr || !scope->HasUsed(Stream)) && OwnsGPUBuffer() &&
          HasGPUBuffer())
      {
        // All the buffer's work on its stream came before the legacy
        // stream's last wait for it: freed on the legacy stream, after that
        // stream's work too, it needs no event.
        const auto allocation = CudaDetail::FindOwnedAllocation(GPUBuffer->GetPointer());
        if (allocation && allocation->Pointer == GPUBuffer->GetPointer() && allocation->Stream == Stream)
        {
          allocation->Stream = cudaStreamLegacy;
          LegacyMayUse = false;
        }
      }
      if (LegacyMayUse)
      {
        error = CudaDetail::StreamWaitForStream(Stream, cudaStreamLegacy, Device);
      }
      if (error == cudaSuccess && scope != nullptr && scope->HasUsed(Stream))
      {
        error = CudaDetail::StreamWaitForStream(Stream, scope->GetStream());
      }
      CudaDetail::WarnReleaseFailed("a device buffer (ordering its free)", error);
    }
    if (StreamBackend && UploadPending)
    {
      // The CPU buffer is freed after us: an upload from it must finish
      // first. Everything else queued on the stream (kernels, and the
      // stream-ordered free of the device buffer) runs on without us.
      StreamBackend->SynchronizeStream(Stream);
    }
  }

  int
  ResolveDevice()
  {
    if (Device < 0)
    {
      Device = CudaGetDefaultDevice();
    }
    return Device;
  }

  cudaStream_t
  GetStream()
  {
    if (!StreamBackend)
    {
      auto backend = CudaMemoryBackend::GetDefault();
      CUDA_CHECK(backend->AcquireStream(&Stream, ResolveDevice()));
      RuntimeStream = dynamic_cast<CudaRuntimeMemoryBackend *>(backend.get()) != nullptr;
      StreamBackend = std::move(backend);
    }
    return Stream;
  }

  /** The stream after work on the legacy default stream that may use the
   * buffer; true when it had to wait. */
  bool
  FollowLegacy()
  {
    this->GetStream();
    if (!RuntimeStream || !LegacyMayUse)
    {
      return false;
    }
    CUDA_CHECK(CudaDetail::StreamWaitForStream(Stream, cudaStreamLegacy, ResolveDevice()));
    LegacyMayUse = false;
    return true;
  }

  /** The stream, for queuing a copy, an allocation or a free of the buffer:
   * after legacy-stream work that may use the buffer and, inside the thread's
   * CudaStreamOrderingScope once it used the buffer, after the scope's work. */
  cudaStream_t
  QueueStream()
  {
    this->FollowLegacy();
    CudaStreamOrderingScope * scope = CudaStreamOrderingScope::GetCurrent();
    if (scope != nullptr && RuntimeStream && scope->HasUsed(Stream))
    {
      CudaStreamWaitFor(Stream, scope->GetStream());
    }
    QueuedForLegacy = true;
    return Stream;
  }

  /** Before an owned device buffer is freed or replaced (freed on the stream). */
  void
  BeforeFree()
  {
    if (OwnsGPUBuffer() && HasGPUBuffer())
    {
      this->QueueStream();
    }
  }

  /** After making the device buffer current: inside a scope, the pointer is
   * handed to work on the scope's stream, which must follow what is queued
   * here (`queued`: this call queued an allocation or a copy). */
  void
  ReadyForScope(bool queued)
  {
    CudaStreamOrderingScope * scope = CudaStreamOrderingScope::GetCurrent();
    if (scope == nullptr)
    {
      return;
    }
    const bool followed = this->FollowLegacy(); // a borrowed buffer gets its stream here
    if (RuntimeStream && (queued || followed || !scope->HasUsed(Stream)))
    {
      scope->WaitFor(Stream);
      QueuedForLegacy = true; // the scope's end orders the stream after its work
    }
  }

  /** The buffer's work goes to the legacy default stream (of `device`, or
   * the current device's for -1): that stream waits for the work queued for
   * the buffer since the last hand-over (an event, none when nothing was
   * queued), and the buffer's next work waits for it. False for a stream CUDA
   * cannot order (an emulated backend's). */
  bool
  HandOverToLegacy(int device)
  {
    this->GetStream();
    if (!RuntimeStream)
    {
      return false;
    }
    if (QueuedForLegacy)
    {
      const CudaDetail::DeviceScope onDevice(device);
      CUDA_CHECK(onDevice.Status());
      CUDA_CHECK(CudaDetail::StreamWaitForStream(cudaStreamLegacy, Stream, ResolveDevice()));
      QueuedForLegacy = false;
    }
    LegacyMayUse = true;
    return true;
  }

  /** A raw device pointer goes to code that may launch on the current
   * device's legacy stream: outside a scope, or in one that allows it. */
  void
  HandToLegacy()
  {
    CudaStreamOrderingScope * scope = CudaStreamOrderingScope::GetCurrent();
    if (scope == nullptr || scope->GetLegacyStreamToo())
    {
      this->HandOverToLegacy(-1);
    }
  }

  /** For a view: handed to the legacy stream of the buffer's device, which
   * the view names; its consumer orders its work after it (and may work
   * there). Views taken again and again cost no event. */
  cudaStream_t
  HandToLegacyForView()
  {
    return this->HandOverToLegacy(ResolveDevice()) ? cudaStreamLegacy : Stream;
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
  HostCurrent() const
  {
    return (Valid.load() & HostValid) != 0;
  }
  bool
  DeviceCurrent() const
  {
    return (Valid.load() & DeviceValid) != 0;
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
  bool
  GPUBufferExported() const
  {
    return HasGPUBuffer() && GPUBuffer->IsExported();
  }
  // Recorded whenever both copies become equal (a transfer, or flags set by
  // hand): an image modified later was written on the CPU behind the flags.
  void
  Touch()
  {
    SynchronizationTime.Modified();
  }
};

bool
CudaDataManager::GetReleaseDirtyGPUBufferDefault()
{
  return ParseSwitch(std::getenv("ITK_RELEASE_DIRTY_GPU_BUFFERS"), true);
}

bool
CudaDataManager::GetConstCPUAccessReadOnlyDefault()
{
  return ParseSwitch(std::getenv("ITK_CUDA_CONST_CPU_ACCESS_READ_ONLY"), false);
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

// --- transitions (state locked)

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
    ++state.Statistics.DeviceToHostCount;
    state.Statistics.DeviceToHostBytes += state.BufferSize;
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
    ++state.Statistics.HostToDeviceCount;
    state.Statistics.HostToDeviceBytes += state.BufferSize;
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

// --- the public calls: each takes the lock once and runs one transition

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
  // Where the backend can tell, the external allocation must hold the buffer.
  size_t            available = 0;
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
  state->BeforeFree(); // an owned buffer it replaces
  state->Buffer().SetPointer(ptr, std::move(owner));
  state->Buffer().SetBufferSize(state->BufferSize);
  state->LegacyMayUse = true; // written by code we do not know, maybe on the legacy stream
  state->StaleBufferKept = false;
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
  if (hostToDeviceBytes > 0)
  {
    ++state->Statistics.HostToDeviceCount;
    state->Statistics.HostToDeviceBytes += hostToDeviceBytes;
  }
  if (deviceToHostBytes > 0)
  {
    ++state->Statistics.DeviceToHostCount;
    state->Statistics.DeviceToHostBytes += deviceToHostBytes;
  }
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
  os << indent << "Coherence: " << ValidityName(state->Valid) << std::endl;
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
