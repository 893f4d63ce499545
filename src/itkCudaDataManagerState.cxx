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
#include "itkCudaAllocationRegistry.h"
#include "itkCudaResources.h"
#include "itkCudaProcessTransfers.h"

#include <atomic>

namespace itk
{
namespace CudaDetail
{
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

namespace
{
// The process's totals: relaxed atomics (counters, read as a snapshot).
struct ProcessTransfers
{
  std::atomic<uint64_t> HostToDeviceCount{ 0 };
  std::atomic<uint64_t> HostToDeviceBytes{ 0 };
  std::atomic<uint64_t> DeviceToHostCount{ 0 };
  std::atomic<uint64_t> DeviceToHostBytes{ 0 };
  std::atomic<uint64_t> PeerCount{ 0 };
  std::atomic<uint64_t> PeerBytes{ 0 };
};

ProcessTransfers &
Totals()
{
  static ProcessTransfers totals; // never destroyed before a static manager that counts
  return totals;
}
} // namespace

void
CountTransfers(CudaTransferStatistics & statistics, const CudaTransferStatistics & added)
{
  statistics.HostToDeviceCount += added.HostToDeviceCount;
  statistics.HostToDeviceBytes += added.HostToDeviceBytes;
  statistics.DeviceToHostCount += added.DeviceToHostCount;
  statistics.DeviceToHostBytes += added.DeviceToHostBytes;
  statistics.PeerCount += added.PeerCount;
  statistics.PeerBytes += added.PeerBytes;
  ProcessTransfers & totals = Totals();
  totals.HostToDeviceCount.fetch_add(added.HostToDeviceCount, std::memory_order_relaxed);
  totals.HostToDeviceBytes.fetch_add(added.HostToDeviceBytes, std::memory_order_relaxed);
  totals.DeviceToHostCount.fetch_add(added.DeviceToHostCount, std::memory_order_relaxed);
  totals.DeviceToHostBytes.fetch_add(added.DeviceToHostBytes, std::memory_order_relaxed);
  totals.PeerCount.fetch_add(added.PeerCount, std::memory_order_relaxed);
  totals.PeerBytes.fetch_add(added.PeerBytes, std::memory_order_relaxed);
}
} // namespace CudaDetail

CudaTransferStatistics
CudaGetProcessTransferStatistics()
{
  const auto & totals = CudaDetail::Totals();
  return { totals.HostToDeviceCount.load(std::memory_order_relaxed),
           totals.HostToDeviceBytes.load(std::memory_order_relaxed),
           totals.DeviceToHostCount.load(std::memory_order_relaxed),
           totals.DeviceToHostBytes.load(std::memory_order_relaxed),
           totals.PeerCount.load(std::memory_order_relaxed),
           totals.PeerBytes.load(std::memory_order_relaxed) };
}

CudaDataManager::SharedState::~SharedState()
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

cudaStream_t
CudaDataManager::SharedState::GetStream()
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

bool
CudaDataManager::SharedState::FollowLegacy()
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

cudaStream_t
CudaDataManager::SharedState::QueueStream()
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

void
CudaDataManager::SharedState::BeforeFree()
{
  if (OwnsGPUBuffer() && HasGPUBuffer())
  {
    this->QueueStream();
  }
}

void
CudaDataManager::SharedState::ReadyForScope(bool queued)
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

bool
CudaDataManager::SharedState::HandOverToLegacy(int device)
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

void
CudaDataManager::SharedState::HandToLegacy()
{
  CudaStreamOrderingScope * scope = CudaStreamOrderingScope::GetCurrent();
  if (scope == nullptr || scope->GetLegacyStreamToo())
  {
    this->HandOverToLegacy(-1);
  }
}

cudaStream_t
CudaDataManager::SharedState::HandToLegacyForView()
{
  return this->HandOverToLegacy(ResolveDevice()) ? cudaStreamLegacy : Stream;
}

void
CudaDataManager::SharedState::WaitForUpload()
{
  if (UploadPending)
  {
    UploadPending = false;
    CUDA_CHECK(StreamBackend->SynchronizeStream(Stream));
  }
}
} // namespace itk
