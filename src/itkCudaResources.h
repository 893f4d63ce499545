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
#ifndef itkCudaResources_h
#define itkCudaResources_h

/** \file itkCudaResources.h
 * \brief The library's owners of CUDA resources (internal, not installed).
 *
 * Every place in src/ that creates a CUDA stream, event or pinned host
 * buffer, or switches the current device, does it through these types. They
 * are movable, not copyable; their destructors are noexcept and report a
 * failing release as a warning instead of throwing. Creation returns a CUDA
 * status (the callers are either noexcept code that returns the status, or
 * code that turns it into an itk::ExceptionObject with CUDA_CHECK).
 */

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace itk
{
namespace CudaDetail
{
/** Report a failed release from a destructor (through itk::OutputWindow);
 * quiet while the CUDA runtime unloads at process exit. */
void
WarnReleaseFailed(const char * what, cudaError_t error) noexcept;

/** The one device switch of the library: make `device` the calling thread's
 * current device (a negative one changes nothing), `*previous` the device
 * current before and `*changed` whether it switched. Never throws; the error
 * is returned and not left as the last error. */
cudaError_t
EnterDevice(int device, int * previous, bool * changed) noexcept;
/** Undo EnterDevice() (when `changed`), warning on a failure. */
void
LeaveDevice(int previous, bool changed) noexcept;

/** Makes `device` the calling thread's current device for the lifetime of
 * the object and restores the previous one afterwards; a negative device
 * changes nothing. Never throws: Status() says whether the switch worked.
 * itk::CudaDeviceGuard (public, throwing) switches with the same two
 * functions. */
class DeviceScope
{
public:
  explicit DeviceScope(int device) noexcept;
  ~DeviceScope();
  DeviceScope(const DeviceScope &) = delete;
  DeviceScope &
  operator=(const DeviceScope &) = delete;

  cudaError_t
  Status() const noexcept
  {
    return m_Status;
  }

private:
  int         m_Previous{ -1 };
  bool        m_Changed{ false };
  cudaError_t m_Status{ cudaSuccess };
};

/** An owned CUDA stream of one device. Empty when default-constructed: it is
 * never the legacy default stream by accident (there is no conversion from
 * a cudaStream_t or from 0). */
class Stream
{
public:
  Stream() noexcept = default;
  ~Stream();
  Stream(Stream && other) noexcept;
  Stream &
  operator=(Stream && other) noexcept;
  Stream(const Stream &) = delete;
  Stream &
  operator=(const Stream &) = delete;

  /** A new stream of `device` with `flags` (cudaStreamDefault: blocking, i.e.
   * ordered with the legacy default stream; cudaStreamNonBlocking: not). */
  static cudaError_t
  Create(int device, unsigned int flags, Stream * stream) noexcept;

  cudaStream_t
  Get() const noexcept
  {
    return m_Stream;
  }
  int
  GetDevice() const noexcept
  {
    return m_Device;
  }
  explicit operator bool() const noexcept { return m_Stream != nullptr; }

  /** Destroy the stream now (work queued on it still completes). */
  cudaError_t
  Reset() noexcept;

private:
  cudaStream_t m_Stream{ nullptr };
  int          m_Device{ -1 };
};

/** An owned CUDA event (without timing) of one device. */
class Event
{
public:
  Event() noexcept = default;
  ~Event();
  Event(Event && other) noexcept;
  Event &
  operator=(Event && other) noexcept;
  Event(const Event &) = delete;
  Event &
  operator=(const Event &) = delete;

  static cudaError_t
  Create(int device, Event * event) noexcept;

  cudaEvent_t
  Get() const noexcept
  {
    return m_Event;
  }
  int
  GetDevice() const noexcept
  {
    return m_Device;
  }
  explicit operator bool() const noexcept { return m_Event != nullptr; }

  cudaError_t
  Reset() noexcept;

private:
  cudaEvent_t m_Event{ nullptr };
  int         m_Device{ -1 };
};

/** Owned page-locked host memory (cudaHostAlloc, portable to all devices). */
class PinnedHostBuffer
{
public:
  PinnedHostBuffer() noexcept = default;
  ~PinnedHostBuffer();
  PinnedHostBuffer(PinnedHostBuffer && other) noexcept;
  PinnedHostBuffer &
  operator=(PinnedHostBuffer && other) noexcept;
  PinnedHostBuffer(const PinnedHostBuffer &) = delete;
  PinnedHostBuffer &
  operator=(const PinnedHostBuffer &) = delete;

  static cudaError_t
  Allocate(size_t bytes, PinnedHostBuffer * buffer) noexcept;

  void *
  Get() const noexcept
  {
    return m_Pointer;
  }
  size_t
  GetBytes() const noexcept
  {
    return m_Bytes;
  }
  explicit operator bool() const noexcept { return m_Pointer != nullptr; }

  cudaError_t
  Reset() noexcept;

private:
  void * m_Pointer{ nullptr };
  size_t m_Bytes{ 0 };
};

/** A stream of `device`'s pool for a buffer's copies and kernels, handed out
 * in turn (ITK_CUDA_STREAMS_PER_DEVICE of them, default 8, made at first use
 * and kept until the process exits): images share them, so a small image
 * creates no stream. The streams are non-blocking: work on the legacy default
 * stream is not ordered with them by CUDA (the data managers bridge the two
 * where a device pointer is handed to code that may launch there), unless
 * PooledStreamsBlock(). The caller never destroys the stream. */
cudaError_t
AcquirePooledStream(int device, cudaStream_t * stream) noexcept;

/** `count` streams of `device`'s pool, its first ones, always the same:
 * distinct while the pool holds that many (ITK_CUDA_STREAMS_PER_DEVICE),
 * else the pool's streams again in turn. For work spread over several
 * streams at once (the chunks of a streamed transform, the lanes of a
 * device split). They may also carry images' work, which only
 * orders that work after theirs. \throws itk::ExceptionObject. */
std::vector<cudaStream_t>
PooledStreams(int device, unsigned int count);

/** ITK_CUDA_BLOCKING_STREAMS=1 (true, on, yes; any case), read once: the
 * pooled streams are blocking streams, ordered with the legacy default
 * stream both ways by CUDA itself (the bridge's waits are then skipped). */
bool
PooledStreamsBlock() noexcept;

/** Queue on `waiter` a wait for the work queued so far on `producer`,
 * through an event cached per thread and device (no event is created per
 * call). `producerDevice` is the producer's device (for the special handles:
 * the current device). */
cudaError_t
StreamWaitForStream(cudaStream_t waiter, cudaStream_t producer, int producerDevice) noexcept;
/** Same, the producer's device found from the stream (the special handles,
 * legacy and per-thread, name streams of the current device). */
cudaError_t
StreamWaitForStream(cudaStream_t waiter, cudaStream_t producer) noexcept;

/** Whether device buffers come from the stream-ordered pools
 * (itkCudaMemoryPool.h); decided once per process. */
bool
PoolEnabled() noexcept;

/** `device`'s pool of CudaCommon (made at first use with the settings of
 * itkCudaMemoryPool.h, kept until the process exits). */
cudaError_t
GetDevicePool(int device, cudaMemPool_t * pool) noexcept;

/** Give every pool's unused memory back, keeping `keepBytes` in each. */
cudaError_t
TrimPools(uint64_t keepBytes) noexcept;

/** Let `peer` read and write the memory of `device`'s pool (after peer
 * access between them was enabled). Never fails: without it copies go
 * through the driver's staging. */
void
GrantPeerAccess(int device, int peer) noexcept;
} // namespace CudaDetail
} // namespace itk

#endif
