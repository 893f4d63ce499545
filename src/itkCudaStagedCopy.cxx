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
#include "itkCudaStagedCopy.h"
#include "itkCudaResources.h"
#include "itkCudaStagedCopyFaults.h"

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#include <vector>

namespace itk
{
namespace
{
constexpr unsigned int StagingBuffers = CudaStagedCopyStagingBuffers;

/** Host threads (the caller included) that copy one chunk between pageable
 * and pinned memory: one thread's memcpy is what limits cudaMemcpy. */
constexpr unsigned int MaximumHostCopyThreads = 16;

/** Below this a piece of a chunk is not worth waking a thread for. */
constexpr size_t MinimumPieceBytes = size_t{ 256 } << 10;

constexpr size_t PageBytes = 4096;

constexpr size_t HugePageBytes = size_t{ 2 } << 20;

#ifndef MADV_POPULATE_WRITE
#  define MADV_POPULATE_WRITE 23 // Linux 5.14; C libraries older than that lack the name
#endif

size_t
RoundUp(size_t value, size_t multiple)
{
  return (value + multiple - 1) / multiple * multiple;
}

// --- statistics and fault injection ----------------------------------------

std::atomic<uint64_t> StagedHostToDeviceCopies{ 0 };
std::atomic<uint64_t> StagedDeviceToHostCopies{ 0 };
std::atomic<uint64_t> StagedChunks{ 0 };
std::atomic<uint64_t> DirectCopies{ 0 };

std::atomic<unsigned int> FailingChunkCountdown{ 0 };
std::atomic<int>          FailingChunkError{ cudaErrorLaunchFailure };

/** A CUDA failure inside a staged copy: unwinds to the public function, which
 * returns it as a status. */
struct CudaFailure
{
  cudaError_t Error;
};

void
Check(cudaError_t error)
{
  if (error != cudaSuccess)
  {
    throw CudaFailure{ error };
  }
}

/** Throws the injected error when this chunk is the one a test asked to fail. */
void
CheckInjectedFault()
{
  unsigned int countdown = FailingChunkCountdown.load();
  while (countdown > 0)
  {
    if (FailingChunkCountdown.compare_exchange_weak(countdown, countdown - 1))
    {
      if (countdown == 1)
      {
        throw CudaFailure{ static_cast<cudaError_t>(FailingChunkError.load()) };
      }
      return;
    }
  }
}

// --- parallel host memcpy ----------------------------------------------------

/** A persistent pool of threads that copies a chunk between pageable and
 * pinned memory in pieces. The calling thread copies pieces too, so a copy
 * completes even when no worker is free (or none could be started). Nothing
 * here allocates once the pool runs. */
class HostCopyPool
{
public:
  static HostCopyPool &
  Get()
  {
    static HostCopyPool pool;
    return pool;
  }

  HostCopyPool(const HostCopyPool &) = delete;
  HostCopyPool &
  operator=(const HostCopyPool &) = delete;

  /** memcpy(destination, source, bytes), split among the threads; returns
   * when every byte is copied. */
  void
  Copy(void * destination, const void * source, size_t bytes) noexcept
  {
    this->Run(static_cast<char *>(destination), static_cast<const char *>(source), bytes, PageBytes);
  }

  /** Fault in the pages of [pointer, pointer + bytes) for writing, without
   * changing their contents, split among the threads in pieces of whole
   * 2 MiB (huge) pages: one thread faulting a page costs its zeroing, and
   * one thread zeroes a few GB/s. Does nothing where the kernel cannot
   * (MADV_POPULATE_WRITE is Linux 5.14 or later). */
  void
  Populate(void * pointer, size_t bytes) noexcept
  {
    this->Run(static_cast<char *>(pointer), nullptr, bytes, HugePageBytes);
  }

private:
  /** Copy (source set) or populate (source null) in pieces of a multiple of
   * `granule` bytes. */
  void
  Run(char * destination, const char * source, size_t bytes, size_t granule) noexcept
  {
    const size_t wanted = std::min<size_t>(m_Parallelism, (bytes + MinimumPieceBytes - 1) / MinimumPieceBytes);
    Batch        batch;
    batch.Destination = destination;
    batch.Source = source;
    batch.Bytes = bytes;
    if (wanted <= 1 || m_Workers.empty())
    {
      batch.PieceBytes = bytes;
      batch.CopyPiece(0);
      return;
    }
    batch.PieceBytes = RoundUp((bytes + wanted - 1) / wanted, granule);
    batch.Pieces = static_cast<unsigned int>((bytes + batch.PieceBytes - 1) / batch.PieceBytes);
    batch.Unfinished = batch.Pieces;

    std::unique_lock<std::mutex> lock(m_Mutex);
    if (m_Tail != nullptr)
    {
      m_Tail->Next = &batch;
    }
    else
    {
      m_Head = &batch;
    }
    m_Tail = &batch;
    m_WorkAvailable.notify_all();

    // Copy pieces of this batch until none is left to claim, then wait for
    // the pieces the workers claimed.
    unsigned int piece = 0;
    while (this->ClaimPiece(&batch, &piece))
    {
      lock.unlock();
      batch.CopyPiece(piece);
      lock.lock();
      --batch.Unfinished;
    }
    m_PieceDone.wait(lock, [&batch] { return batch.Unfinished == 0; });
  }

  struct Batch
  {
    char *       Destination{ nullptr };
    const char * Source{ nullptr };
    size_t       Bytes{ 0 };
    size_t       PieceBytes{ 0 };
    unsigned int Pieces{ 0 };
    unsigned int NextPiece{ 0 };  // guarded by m_Mutex
    unsigned int Unfinished{ 0 }; // guarded by m_Mutex
    Batch *      Next{ nullptr }; // guarded by m_Mutex

    void
    CopyPiece(unsigned int piece) const noexcept
    {
      const size_t offset = piece * PieceBytes;
      const size_t size = std::min(PieceBytes, Bytes - offset);
      if (Source != nullptr)
      {
        std::memcpy(Destination + offset, Source + offset, size);
      }
      else
      {
        madvise(Destination + offset, size, MADV_POPULATE_WRITE); // advice: an old kernel says EINVAL, harmless
      }
    }
  };

  HostCopyPool()
  {
    const unsigned int hardware = std::max(1u, std::thread::hardware_concurrency());
    const unsigned int wanted = std::min(MaximumHostCopyThreads, hardware);
    try
    {
      m_Workers.reserve(wanted - 1);
      for (unsigned int i = 1; i < wanted; ++i)
      {
        m_Workers.emplace_back([this] { this->WorkerLoop(); });
      }
    }
    catch (...)
    {
      // Fewer threads than asked (none at worst): the callers do the rest.
    }
    m_Parallelism = static_cast<unsigned int>(m_Workers.size()) + 1;
  }

  ~HostCopyPool()
  {
    {
      std::lock_guard<std::mutex> lock(m_Mutex);
      m_Stopping = true;
    }
    m_WorkAvailable.notify_all();
    for (auto & worker : m_Workers)
    {
      worker.join();
    }
  }

  /** Claim the next piece of `batch` (called with m_Mutex held); a batch
   * leaves the queue when its last piece is claimed, so no thread touches it
   * after its owner returned. */
  bool
  ClaimPiece(Batch * batch, unsigned int * piece)
  {
    if (batch->NextPiece == batch->Pieces)
    {
      return false;
    }
    *piece = batch->NextPiece++;
    if (batch->NextPiece == batch->Pieces)
    {
      this->Unlink(batch);
    }
    return true;
  }

  void
  Unlink(Batch * batch)
  {
    Batch * previous = nullptr;
    for (Batch * b = m_Head; b != nullptr; previous = b, b = b->Next)
    {
      if (b == batch)
      {
        (previous != nullptr ? previous->Next : m_Head) = b->Next;
        if (m_Tail == b)
        {
          m_Tail = previous;
        }
        b->Next = nullptr;
        return;
      }
    }
  }

  void
  WorkerLoop()
  {
    std::unique_lock<std::mutex> lock(m_Mutex);
    while (true)
    {
      m_WorkAvailable.wait(lock, [this] { return m_Stopping || m_Head != nullptr; });
      if (m_Head == nullptr)
      {
        return; // stopping and nothing queued
      }
      Batch *      batch = m_Head;
      unsigned int piece = 0;
      this->ClaimPiece(batch, &piece);
      lock.unlock();
      batch->CopyPiece(piece);
      lock.lock();
      if (--batch->Unfinished == 0)
      {
        m_PieceDone.notify_all();
      }
    }
  }

  std::mutex               m_Mutex;
  std::condition_variable  m_WorkAvailable;
  std::condition_variable  m_PieceDone;
  Batch *                  m_Head{ nullptr };
  Batch *                  m_Tail{ nullptr };
  bool                     m_Stopping{ false };
  std::vector<std::thread> m_Workers;
  unsigned int             m_Parallelism{ 1 };
};

// --- pinned staging buffers --------------------------------------------------

enum class Direction
{
  HostToDevice,
  DeviceToHost
};

/** The pinned buffers, stream and events one staged copy uses, in either
 * direction, all of one device. One copy at a time uses a lane (Mutex);
 * between copies nothing is in flight on its stream. The stream is the
 * lane's own, not one of the device pool's (itkCudaResources.h), which
 * images' kernels use: the host waits for the lane's events between chunks
 * (a staging buffer is refilled once its DMA is done), and on a shared stream
 * those waits would also wait for every kernel queued there before. */
struct StagingLane
{
  std::mutex                                       Mutex;
  bool                                             Ready{ false };
  CudaDetail::Stream                               Stream;
  CudaDetail::Event                                PriorWork;
  std::array<CudaDetail::PinnedHostBuffer, StagingBuffers> Buffers;
  std::array<CudaDetail::Event, StagingBuffers>    BufferReady;
  size_t                                           BufferBytes{ 0 }; ///< of each buffer

  /** Create everything on `device`, with buffers of `bufferBytes` each, or
   * nothing. */
  cudaError_t
  Create(int device, size_t bufferBytes) noexcept
  {
    cudaError_t error = CudaDetail::Stream::Create(device, cudaStreamNonBlocking, &Stream);
    if (error == cudaSuccess)
    {
      error = CudaDetail::Event::Create(device, &PriorWork);
    }
    for (unsigned int i = 0; i < StagingBuffers && error == cudaSuccess; ++i)
    {
      error = CudaDetail::PinnedHostBuffer::Allocate(bufferBytes, &Buffers[i]);
      if (error == cudaSuccess)
      {
        error = CudaDetail::Event::Create(device, &BufferReady[i]);
      }
    }
    if (error != cudaSuccess)
    {
      this->Release();
    }
    Ready = error == cudaSuccess;
    BufferBytes = Ready ? bufferBytes : 0;
    return error;
  }

  /** Free whatever exists. Errors are ignored: at process exit the runtime
   * may already be unloading, and after a failed copy the handles may be bad. */
  void
  Release() noexcept
  {
    for (unsigned int i = 0; i < StagingBuffers; ++i)
    {
      BufferReady[i].Reset();
      Buffers[i].Reset();
    }
    PriorWork.Reset();
    Stream.Reset();
    Ready = false;
    BufferBytes = 0;
    cudaGetLastError();
  }
};

/** Lanes a device keeps for copies at once. One serves a pipeline that
 * copies one way and then the other: its pinned buffers are made once, where
 * each made anew costs about 0.4 ms per MiB (docs/performance.md). */
constexpr size_t MaximumLanesPerDevice = 2;

/** A lane of `device` for one copy, locked: a free one, a new one while the
 * device has fewer than MaximumLanesPerDevice, else the next one in turn
 * (waiting for its copy). Lanes are made on first use and kept. */
std::unique_lock<std::mutex>
AcquireStagingLane(int device, StagingLane ** lane)
{
  static std::mutex                                                  mutex;
  static std::map<int, std::vector<std::unique_ptr<StagingLane>>>   lanes;
  static size_t                                                      turn = 0;
  std::unique_lock<std::mutex>                                       guard(mutex);
  std::vector<std::unique_ptr<StagingLane>> &                        own = lanes[device];
  for (const auto & candidate : own)
  {
    std::unique_lock<std::mutex> lock(candidate->Mutex, std::try_to_lock);
    if (lock.owns_lock())
    {
      *lane = candidate.get();
      return lock;
    }
  }
  if (own.size() < MaximumLanesPerDevice)
  {
    own.push_back(std::make_unique<StagingLane>());
    *lane = own.back().get();
    return std::unique_lock<std::mutex>(own.back()->Mutex);
  }
  *lane = own[turn++ % own.size()].get();
  guard.unlock(); // wait for that lane's copy without blocking the others
  return std::unique_lock<std::mutex>((*lane)->Mutex);
}

/** How a copy of `bytes` is cut: at most CudaStagedCopyMaximumChunkBytes per
 * chunk, and about 4 chunks (of at least CudaStagedCopyThresholdBytes) for
 * shorter copies so that their host copies and DMAs overlap too. */
struct ChunkPlan
{
  explicit ChunkPlan(size_t bytes)
    : Bytes(bytes)
  {
    const size_t byMaximum = (bytes + CudaStagedCopyMaximumChunkBytes - 1) / CudaStagedCopyMaximumChunkBytes;
    const size_t forOverlap = std::min<size_t>(4, bytes / CudaStagedCopyThresholdBytes);
    const size_t wanted = std::max<size_t>(1, std::max(byMaximum, forOverlap));
    ChunkBytes = std::min(CudaStagedCopyMaximumChunkBytes, RoundUp((bytes + wanted - 1) / wanted, PageBytes));
    Count = (bytes + ChunkBytes - 1) / ChunkBytes;
  }

  size_t
  Offset(size_t chunk) const
  {
    return chunk * ChunkBytes;
  }
  size_t
  Size(size_t chunk) const
  {
    return std::min(ChunkBytes, Bytes - chunk * ChunkBytes);
  }

  size_t Bytes;
  size_t ChunkBytes{ 0 };
  size_t Count{ 0 };
};

void
CopyHostToDeviceThroughLane(StagingLane & lane, char * device, const char * host, size_t bytes)
{
  HostCopyPool &                   pool = HostCopyPool::Get();
  const ChunkPlan                  plan(bytes);
  std::array<bool, StagingBuffers> inFlight{};
  for (size_t chunk = 0; chunk < plan.Count; ++chunk)
  {
    const unsigned int buffer = static_cast<unsigned int>(chunk % StagingBuffers);
    if (inFlight[buffer])
    {
      Check(cudaEventSynchronize(lane.BufferReady[buffer].Get()));
    }
    pool.Copy(lane.Buffers[buffer].Get(), host + plan.Offset(chunk), plan.Size(chunk));
    CheckInjectedFault();
    Check(cudaMemcpyAsync(device + plan.Offset(chunk),
                          lane.Buffers[buffer].Get(),
                          plan.Size(chunk),
                          cudaMemcpyHostToDevice,
                          lane.Stream.Get()));
    Check(cudaEventRecord(lane.BufferReady[buffer].Get(), lane.Stream.Get()));
    inFlight[buffer] = true;
    StagedChunks.fetch_add(1, std::memory_order_relaxed);
  }
  Check(cudaStreamSynchronize(lane.Stream.Get()));
}

void
CopyDeviceToHostThroughLane(StagingLane & lane, char * host, const char * device, size_t bytes)
{
  HostCopyPool &  pool = HostCopyPool::Get();
  const ChunkPlan plan(bytes);
  const auto      enqueue = [&lane, &plan, device](size_t chunk) {
    const unsigned int buffer = static_cast<unsigned int>(chunk % StagingBuffers);
    CheckInjectedFault();
    Check(cudaMemcpyAsync(lane.Buffers[buffer].Get(),
                          device + plan.Offset(chunk),
                          plan.Size(chunk),
                          cudaMemcpyDeviceToHost,
                          lane.Stream.Get()));
    Check(cudaEventRecord(lane.BufferReady[buffer].Get(), lane.Stream.Get()));
    StagedChunks.fetch_add(1, std::memory_order_relaxed);
  };
  for (size_t chunk = 0; chunk < std::min<size_t>(StagingBuffers, plan.Count); ++chunk)
  {
    enqueue(chunk);
  }
  for (size_t chunk = 0; chunk < plan.Count; ++chunk)
  {
    const unsigned int buffer = static_cast<unsigned int>(chunk % StagingBuffers);
    Check(cudaEventSynchronize(lane.BufferReady[buffer].Get()));
    pool.Copy(host + plan.Offset(chunk), lane.Buffers[buffer].Get(), plan.Size(chunk));
    if (chunk + StagingBuffers < plan.Count)
    {
      enqueue(chunk + StagingBuffers);
    }
  }
}

/** One cudaMemcpy, or with `stream` one cudaMemcpyAsync on it, complete for
 * the host when it returns (a download is waited for). */
cudaError_t
DirectCopy(void * destination, const void * source, size_t bytes, cudaMemcpyKind kind, const cudaStream_t * stream) noexcept
{
  DirectCopies.fetch_add(1, std::memory_order_relaxed);
  cudaError_t error = cudaSuccess;
  if (stream == nullptr)
  {
    error = cudaMemcpy(destination, source, bytes, kind);
  }
  else
  {
    error = cudaMemcpyAsync(destination, source, bytes, kind, *stream);
    if (error == cudaSuccess && kind == cudaMemcpyDeviceToHost)
    {
      error = cudaStreamSynchronize(*stream);
    }
  }
  if (error != cudaSuccess)
  {
    cudaGetLastError(); // the status is returned: leave no stale "last error"
  }
  return error;
}

/** The device whose lane stages a copy between `device` and `host`, or -1
 * when staging does not apply (managed or pinned memory, or an error, which
 * cudaMemcpy then reports). */
int
StagingDevice(const void * device, const void * host) noexcept
{
  cudaPointerAttributes deviceAttributes{};
  cudaPointerAttributes hostAttributes{};
  if (cudaPointerGetAttributes(&deviceAttributes, device) != cudaSuccess ||
      cudaPointerGetAttributes(&hostAttributes, host) != cudaSuccess)
  {
    cudaGetLastError();
    return -1;
  }
  if (deviceAttributes.type != cudaMemoryTypeDevice || hostAttributes.type != cudaMemoryTypeUnregistered)
  {
    return -1;
  }
  return deviceAttributes.device;
}

/** The copy; ordered after the work queued on `*stream`, or on the legacy
 * default stream when `stream` is null. */
cudaError_t
StagedCopy(Direction direction, void * destination, const void * source, size_t bytes, const cudaStream_t * stream) noexcept
{
  if (bytes == 0)
  {
    return cudaSuccess;
  }
  if (destination == nullptr || source == nullptr)
  {
    return cudaErrorInvalidValue;
  }
  const bool           toDevice = direction == Direction::HostToDevice;
  const cudaMemcpyKind kind = toDevice ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  if (bytes < CudaStagedCopyThresholdBytes)
  {
    return DirectCopy(destination, source, bytes, kind, stream);
  }
  const int device = toDevice ? StagingDevice(destination, source) : StagingDevice(source, destination);
  if (device < 0)
  {
    return DirectCopy(destination, source, bytes, kind, stream);
  }

  try
  {
    StagingLane *                      acquired = nullptr;
    const std::unique_lock<std::mutex> lock = AcquireStagingLane(device, &acquired);
    StagingLane &                      lane = *acquired;
    const CudaDetail::DeviceScope      current(device);
    Check(current.Status());
    const ChunkPlan                    plan(bytes);
    if (!lane.Ready || lane.BufferBytes < plan.ChunkBytes)
    {
      // Buffers as large as this copy's chunks, in powers of two: pinning
      // costs about 0.4 ms per MiB, so a process that copies only small
      // images never pins the largest buffers (at most 4 sizes are made).
      lane.Release();
      size_t bufferBytes = CudaStagedCopyThresholdBytes;
      while (bufferBytes < plan.ChunkBytes)
      {
        bufferBytes *= 2;
      }
      lane.Create(device, std::min(bufferBytes, CudaStagedCopyMaximumChunkBytes));
    }
    if (!lane.Ready)
    {
      // Pinned memory is exhausted (or the device is failing): staging is an
      // optimisation, cudaMemcpy still copies or reports the real error.
      return DirectCopy(destination, source, bytes, kind, stream);
    }
    (toDevice ? StagedHostToDeviceCopies : StagedDeviceToHostCopies).fetch_add(1, std::memory_order_relaxed);
    try
    {
      // The lane's stream is ordered with no other by itself: the copy goes
      // after the work already queued on the caller's stream (or on the
      // legacy default stream).
      Check(cudaEventRecord(lane.PriorWork.Get(), stream != nullptr ? *stream : cudaStreamLegacy));
      Check(cudaStreamWaitEvent(lane.Stream.Get(), lane.PriorWork.Get(), 0));
      if (toDevice)
      {
        CopyHostToDeviceThroughLane(lane, static_cast<char *>(destination), static_cast<const char *>(source), bytes);
      }
      else
      {
        CopyDeviceToHostThroughLane(lane, static_cast<char *>(destination), static_cast<const char *>(source), bytes);
      }
    }
    catch (...)
    {
      // Nothing may still read or write the staging buffers when the next
      // copy takes the lane, and no handle that may have gone bad (a device
      // reset destroys them) is used again: the next copy makes new ones.
      cudaStreamSynchronize(lane.Stream.Get());
      lane.Release();
      throw;
    }
    return cudaSuccess;
  }
  catch (const CudaFailure & failure)
  {
    cudaGetLastError();
    return failure.Error;
  }
  catch (const std::bad_alloc &)
  {
    return cudaErrorMemoryAllocation;
  }
  catch (...)
  {
    return cudaErrorUnknown;
  }
}
} // namespace

cudaError_t
CudaStagedCopyHostToDevice(void * device, const void * pageableHost, size_t bytes) noexcept
{
  return StagedCopy(Direction::HostToDevice, device, pageableHost, bytes, nullptr);
}

cudaError_t
CudaStagedCopyDeviceToHost(void * pageableHost, const void * device, size_t bytes) noexcept
{
  return StagedCopy(Direction::DeviceToHost, pageableHost, device, bytes, nullptr);
}

cudaError_t
CudaStagedCopyHostToDevice(void * device, const void * pageableHost, size_t bytes, cudaStream_t stream) noexcept
{
  return StagedCopy(Direction::HostToDevice, device, pageableHost, bytes, &stream);
}

cudaError_t
CudaStagedCopyDeviceToHost(void * pageableHost, const void * device, size_t bytes, cudaStream_t stream) noexcept
{
  return StagedCopy(Direction::DeviceToHost, pageableHost, device, bytes, &stream);
}

void
CudaPrefaultHostMemory(void * pointer, size_t bytes) noexcept
{
  if (pointer != nullptr && bytes > 0)
  {
    HostCopyPool::Get().Populate(pointer, bytes);
  }
}

CudaStagedCopyStatistics
CudaGetStagedCopyStatistics() noexcept
{
  CudaStagedCopyStatistics statistics;
  statistics.StagedHostToDeviceCopies = StagedHostToDeviceCopies.load();
  statistics.StagedDeviceToHostCopies = StagedDeviceToHostCopies.load();
  statistics.StagedChunks = StagedChunks.load();
  statistics.DirectCopies = DirectCopies.load();
  return statistics;
}

void
CudaStagedCopyFailChunkAfter(unsigned int n, cudaError_t error) noexcept
{
  FailingChunkError.store(static_cast<int>(error));
  FailingChunkCountdown.store(n);
}
} // namespace itk
