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
#ifndef itkCudaDataManagerState_h
#define itkCudaDataManagerState_h

/** \file itkCudaDataManagerState.h
 * \brief Private to the library: the state that grafted CudaDataManagers
 * share (which copies are current, the buffers, the stream and its bridge to
 * the legacy default stream), drawn in docs/coherence.md. The transitions
 * that change it are in itkCudaDataManagerTransitions.cxx, the public calls
 * that run them in itkCudaDataManager.cxx.
 */

#include "itkCudaDataManager.h"

#include <atomic>
#include <memory>
#include <mutex>

namespace itk
{
namespace CudaDetail
{
// The coherence state machine (drawn in docs/coherence.md). Which copies hold
// the data is one atomic value, so that the lock-free fast paths never see a
// torn pair of flags:
//   HostValid   CPU current, GPU stale: a new or adopted buffer, a CPU write
//   DeviceValid GPU current, CPU stale: a GPU write
//   BothValid   both current: after a transfer
//   NoneValid   no copy holds data: while a host-streamed production runs,
//               or through the 2.x flag setters
// Every transition runs with the state's mutex held, and is one of
// AcquireCPULocked / AcquireGPULocked (Read, Write, Overwrite), an adoption
// (AdoptCPUBuffer, AdoptGPUBuffer, SetGPUBufferPointer), a host-streamed
// production (BeginHostStreamedProduction, EndHostStreamedProduction), a
// flag setter, or a device move (itkCudaDataManagerTransitions.cxx).
enum Validity : uint8_t
{
  NoneValid = 0,
  HostValid = 1,
  DeviceValid = 2,
  BothValid = 3
};

/** Words for a Validity (PrintSelf). */
const char *
ValidityName(uint8_t valid);

/** Adds `added` to a manager's `statistics` (its mutex held) and to the
 * process's totals (CudaGetProcessTransferStatistics()). */
void
CountTransfers(CudaTransferStatistics & statistics, const CudaTransferStatistics & added);
} // namespace CudaDetail

using CudaDetail::BothValid;
using CudaDetail::DeviceValid;
using CudaDetail::HostValid;
using CudaDetail::NoneValid;

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
  // Both copies were made current by their producer (a committed
  // production, SetBothBuffersCurrentByProducer()), not yet taken.
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
  /** Orders the free of the device buffer after the work that may still
   * use it, and waits for an upload still reading the host buffer. */
  ~SharedState();

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
  GetStream();

  /** The stream after work on the legacy default stream that may use the
   * buffer; true when it had to wait. */
  bool
  FollowLegacy();

  /** The stream, for queuing a copy, an allocation or a free of the buffer:
   * after legacy-stream work that may use the buffer and, inside the thread's
   * CudaStreamOrderingScope once it used the buffer, after the scope's work. */
  cudaStream_t
  QueueStream();

  /** Before an owned device buffer is freed or replaced (freed on the stream). */
  void
  BeforeFree();

  /** After making the device buffer current: inside a scope, the pointer is
   * handed to work on the scope's stream, which must follow what is queued
   * here (`queued`: this call queued an allocation or a copy). */
  void
  ReadyForScope(bool queued);

  /** The buffer's work goes to the legacy default stream (of `device`, or
   * the current device's for -1): that stream waits for the work queued for
   * the buffer since the last hand-over (an event, none when nothing was
   * queued), and the buffer's next work waits for it. False for a stream CUDA
   * cannot order (an emulated backend's). */
  bool
  HandOverToLegacy(int device);

  /** A raw device pointer goes to code that may launch on the current
   * device's legacy stream: outside a scope, or in one that allows it. */
  void
  HandToLegacy();

  /** For a view: handed to the legacy stream of the buffer's device, which
   * the view names; its consumer orders its work after it (and may work
   * there). Views taken again and again cost no event. */
  cudaStream_t
  HandToLegacyForView();

  /** Before the host writes or gives up the CPU buffer. */
  void
  WaitForUpload();

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
} // namespace itk

#endif
