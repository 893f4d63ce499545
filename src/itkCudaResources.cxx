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
#include "itkCudaResources.h"
#include "itkCudaError.h"
#include "itkCudaEnvironment.h"

#include "itkOutputWindow.h"
#include "itkCudaProcessGlobal.h"

#include <array>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace itk
{
namespace CudaDetail
{
void
WarnReleaseFailed(const char * what, cudaError_t error) noexcept
{
  cudaGetLastError();
  if (error == cudaSuccess || error == cudaErrorCudartUnloading || error == cudaErrorContextIsDestroyed)
  {
    return;
  }
  try
  {
    std::ostringstream message;
    message << "CudaCommon: releasing " << what << " failed: " << cudaGetErrorName(error) << " ("
            << cudaGetErrorString(error) << ")";
    OutputWindowDisplayWarningText(message.str().c_str());
  }
  catch (...)
  {
    // Nothing more can be said.
  }
}

// --- DeviceScope -------------------------------------------------------------

cudaError_t
EnterDevice(int device, int * previous, bool * changed) noexcept
{
  *changed = false;
  if (device < 0)
  {
    return cudaSuccess;
  }
  cudaError_t status = cudaGetDevice(previous);
  if (status == cudaSuccess && *previous != device)
  {
    status = cudaSetDevice(device);
    *changed = status == cudaSuccess;
  }
  if (status != cudaSuccess)
  {
    cudaGetLastError(); // returned, not left as the last error
  }
  return status;
}

void
LeaveDevice(int previous, bool changed) noexcept
{
  if (changed)
  {
    WarnReleaseFailed("the switch of the current CUDA device", cudaSetDevice(previous));
  }
}

DeviceScope::DeviceScope(int device) noexcept
  : m_Status(EnterDevice(device, &m_Previous, &m_Changed))
{}

DeviceScope::~DeviceScope()
{
  LeaveDevice(m_Previous, m_Changed);
}

// --- Stream ------------------------------------------------------------------

Stream::~Stream()
{
  WarnReleaseFailed("a CUDA stream", this->Reset());
}

Stream::Stream(Stream && other) noexcept
  : m_Stream(std::exchange(other.m_Stream, nullptr))
  , m_Device(std::exchange(other.m_Device, -1))
{}

Stream &
Stream::operator=(Stream && other) noexcept
{
  if (this != &other)
  {
    WarnReleaseFailed("a CUDA stream", this->Reset());
    m_Stream = std::exchange(other.m_Stream, nullptr);
    m_Device = std::exchange(other.m_Device, -1);
  }
  return *this;
}

cudaError_t
Stream::Create(int device, unsigned int flags, Stream * stream) noexcept
{
  const DeviceScope onDevice(device);
  if (onDevice.Status() != cudaSuccess)
  {
    return onDevice.Status();
  }
  cudaStream_t      created = nullptr;
  const cudaError_t error = cudaStreamCreateWithFlags(&created, flags);
  if (error != cudaSuccess)
  {
    cudaGetLastError();
    return error;
  }
  Stream made;
  made.m_Stream = created;
  made.m_Device = device;
  *stream = std::move(made);
  return cudaSuccess;
}

cudaError_t
Stream::Reset() noexcept
{
  if (m_Stream == nullptr)
  {
    return cudaSuccess;
  }
  const DeviceScope onDevice(m_Device);
  const cudaError_t error = cudaStreamDestroy(std::exchange(m_Stream, nullptr));
  m_Device = -1;
  return error;
}

// --- Event -------------------------------------------------------------------

Event::~Event()
{
  WarnReleaseFailed("a CUDA event", this->Reset());
}

Event::Event(Event && other) noexcept
  : m_Event(std::exchange(other.m_Event, nullptr))
  , m_Device(std::exchange(other.m_Device, -1))
{}

Event &
Event::operator=(Event && other) noexcept
{
  if (this != &other)
  {
    WarnReleaseFailed("a CUDA event", this->Reset());
    m_Event = std::exchange(other.m_Event, nullptr);
    m_Device = std::exchange(other.m_Device, -1);
  }
  return *this;
}

cudaError_t
Event::Create(int device, Event * event) noexcept
{
  const DeviceScope onDevice(device);
  if (onDevice.Status() != cudaSuccess)
  {
    return onDevice.Status();
  }
  cudaEvent_t       created = nullptr;
  const cudaError_t error = cudaEventCreateWithFlags(&created, cudaEventDisableTiming);
  if (error != cudaSuccess)
  {
    cudaGetLastError();
    return error;
  }
  Event made;
  made.m_Event = created;
  made.m_Device = device;
  *event = std::move(made);
  return cudaSuccess;
}

cudaError_t
Event::Reset() noexcept
{
  if (m_Event == nullptr)
  {
    return cudaSuccess;
  }
  m_Device = -1;
  return cudaEventDestroy(std::exchange(m_Event, nullptr)); // any device may destroy it
}

// --- PinnedHostBuffer --------------------------------------------------------

PinnedHostBuffer::~PinnedHostBuffer()
{
  WarnReleaseFailed("pinned host memory", this->Reset());
}

PinnedHostBuffer::PinnedHostBuffer(PinnedHostBuffer && other) noexcept
  : m_Pointer(std::exchange(other.m_Pointer, nullptr))
  , m_Bytes(std::exchange(other.m_Bytes, 0))
{}

PinnedHostBuffer &
PinnedHostBuffer::operator=(PinnedHostBuffer && other) noexcept
{
  if (this != &other)
  {
    WarnReleaseFailed("pinned host memory", this->Reset());
    m_Pointer = std::exchange(other.m_Pointer, nullptr);
    m_Bytes = std::exchange(other.m_Bytes, 0);
  }
  return *this;
}

cudaError_t
PinnedHostBuffer::Allocate(size_t bytes, PinnedHostBuffer * buffer) noexcept
{
  void *            pointer = nullptr;
  const cudaError_t error = cudaHostAlloc(&pointer, bytes, cudaHostAllocPortable);
  if (error != cudaSuccess)
  {
    cudaGetLastError();
    return error;
  }
  PinnedHostBuffer made;
  made.m_Pointer = pointer;
  made.m_Bytes = bytes;
  *buffer = std::move(made);
  return cudaSuccess;
}

cudaError_t
PinnedHostBuffer::Reset() noexcept
{
  if (m_Pointer == nullptr)
  {
    return cudaSuccess;
  }
  m_Bytes = 0;
  return cudaFreeHost(std::exchange(m_Pointer, nullptr));
}

// --- the per-device stream pool ----------------------------------------------

namespace
{
constexpr int MaximumDevices = 64;

unsigned int
StreamsPerDevice()
{
  static const unsigned int count = [] {
    uint64_t value = 0;
    return CudaDetail::EnvironmentNumber("ITK_CUDA_STREAMS_PER_DEVICE", &value) && value >= 1 && value <= 64
             ? static_cast<unsigned int>(value)
             : 8u;
  }();
  return count;
}

} // namespace

bool
PooledStreamsBlock() noexcept
{
  static const bool blocking = CudaDetail::EnvironmentSwitch("ITK_CUDA_BLOCKING_STREAMS", false);
  return blocking;
}

namespace
{
struct DeviceStreams
{
  std::mutex                Mutex;
  std::vector<Stream>       Streams; // made at first use, all at once
  std::atomic<unsigned int> Turn{ 0 };
  std::atomic<bool>         Ready{ false };
};

DeviceStreams &
StreamsOf(int device)
{
  // One pool per process (a stream goes back to the pool it came from), never
  // destroyed: the streams live until the process exits, and images destroyed
  // during static destruction may still name them.
  using AllStreams = std::array<DeviceStreams, MaximumDevices>;
  static AllStreams & all = ProcessGlobalOf<AllStreams>("PooledStreams");
  return all[device];
}

/** `device`'s pool, its streams made at the first call. */
cudaError_t
ReadyStreamsOf(int device, DeviceStreams ** pool) noexcept
{
  if (device < 0 || device >= MaximumDevices)
  {
    return cudaErrorInvalidDevice;
  }
  DeviceStreams & own = StreamsOf(device);
  if (!own.Ready.load(std::memory_order_acquire))
  {
    std::lock_guard<std::mutex> lock(own.Mutex);
    if (!own.Ready.load(std::memory_order_relaxed))
    {
      std::vector<Stream> made(StreamsPerDevice());
      for (Stream & each : made)
      {
        const cudaError_t error =
          Stream::Create(device, PooledStreamsBlock() ? cudaStreamDefault : cudaStreamNonBlocking, &each);
        if (error != cudaSuccess)
        {
          return error; // the ones made are destroyed; the next call tries again
        }
      }
      own.Streams = std::move(made);
      own.Ready.store(true, std::memory_order_release);
    }
  }
  *pool = &own;
  return cudaSuccess;
}
} // namespace

cudaError_t
AcquirePooledStream(int device, cudaStream_t * stream) noexcept
{
  DeviceStreams *   pool = nullptr;
  const cudaError_t error = ReadyStreamsOf(device, &pool);
  if (error != cudaSuccess)
  {
    return error;
  }
  const unsigned int turn = pool->Turn.fetch_add(1, std::memory_order_relaxed);
  *stream = pool->Streams[turn % pool->Streams.size()].Get();
  return cudaSuccess;
}

std::vector<cudaStream_t>
PooledStreams(int device, unsigned int count)
{
  DeviceStreams * pool = nullptr;
  CUDA_CHECK(ReadyStreamsOf(device, &pool));
  std::vector<cudaStream_t> streams;
  for (unsigned int i = 0; i < count; ++i)
  {
    streams.push_back(pool->Streams[i % pool->Streams.size()].Get());
  }
  return streams;
}

// --- stream-to-stream waits ----------------------------------------------------

namespace
{
bool
IsLegacy(cudaStream_t stream)
{
  return stream == nullptr || stream == cudaStreamLegacy;
}

/** True for a stream that the legacy default stream of the current device
 * is ordered with both ways: a blocking stream of that device, or the
 * per-thread default stream. */
bool
SynchronisesWithLegacy(cudaStream_t stream, int streamDevice)
{
  if (stream == cudaStreamPerThread)
  {
    return true;
  }
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess || current != streamDevice)
  {
    cudaGetLastError();
    return false;
  }
  unsigned int flags = 0;
  if (cudaStreamGetFlags(stream, &flags) != cudaSuccess)
  {
    cudaGetLastError();
    return false;
  }
  return (flags & cudaStreamNonBlocking) == 0;
}
} // namespace

cudaError_t
StreamWaitForStream(cudaStream_t waiter, cudaStream_t producer) noexcept
{
  if (waiter == producer)
  {
    return cudaSuccess;
  }
  const bool  special = producer == nullptr || producer == cudaStreamLegacy || producer == cudaStreamPerThread;
  int         producerDevice = -1;
  cudaError_t error = special ? cudaGetDevice(&producerDevice) : cudaStreamGetDevice(producer, &producerDevice);
  if (error != cudaSuccess)
  {
    cudaGetLastError();
    return error;
  }
  return StreamWaitForStream(waiter, producer, producerDevice);
}

cudaError_t
StreamWaitForStream(cudaStream_t waiter, cudaStream_t producer, int producerDevice) noexcept
{
  if (waiter == producer || (IsLegacy(waiter) && IsLegacy(producer)))
  {
    return cudaSuccess;
  }
  // The legacy default stream and a blocking stream of its device are
  // ordered both ways by CUDA itself: no event needed.
  if (IsLegacy(waiter) && SynchronisesWithLegacy(producer, producerDevice))
  {
    return cudaSuccess;
  }
  if (IsLegacy(producer))
  {
    int waiterDevice = -1;
    if (waiter != cudaStreamPerThread && cudaStreamGetDevice(waiter, &waiterDevice) == cudaSuccess &&
        SynchronisesWithLegacy(waiter, waiterDevice))
    {
      return cudaSuccess;
    }
    cudaGetLastError();
  }
  if (producerDevice < 0 || producerDevice >= MaximumDevices)
  {
    return cudaErrorInvalidDevice;
  }
  // One event per thread and device, recorded again for every wait: a wait
  // takes the event's state when it is queued, so a later record does not
  // change what an earlier wait waits for.
  thread_local std::array<Event, MaximumDevices> events;
  Event &                                        event = events[producerDevice];
  if (!event)
  {
    const cudaError_t created = Event::Create(producerDevice, &event);
    if (created != cudaSuccess)
    {
      return created;
    }
  }
  cudaError_t error = cudaSuccess;
  {
    const DeviceScope onProducer(producerDevice); // the event and the stream must share a device
    error = onProducer.Status() == cudaSuccess ? cudaEventRecord(event.Get(), producer) : onProducer.Status();
  }
  if (error == cudaSuccess)
  {
    error = cudaStreamWaitEvent(waiter, event.Get(), 0);
  }
  if (error != cudaSuccess)
  {
    cudaGetLastError();
  }
  return error;
}
} // namespace CudaDetail
} // namespace itk
