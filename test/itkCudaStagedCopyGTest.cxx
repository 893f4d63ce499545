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
#include "itkCudaStagedCopyFaults.h"
#include "itkCudaStagedCopy.h"
#include "itkCudaTestUtilities.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace
{
using itk::CudaStagedCopyMaximumChunkBytes;
using itk::CudaStagedCopyThresholdBytes;
using Bytes = std::vector<uint8_t>;

constexpr size_t GuardBytes = 64;

/** Device memory from cudaMalloc, freed at scope exit. */
class DeviceBuffer
{
public:
  explicit DeviceBuffer(size_t bytes) { CUDA_CHECK(cudaMalloc(&m_Pointer, bytes)); }
  ~DeviceBuffer() { cudaFree(m_Pointer); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &
  operator=(const DeviceBuffer &) = delete;

  uint8_t *
  Get() const
  {
    return static_cast<uint8_t *>(m_Pointer);
  }

private:
  void * m_Pointer{ nullptr };
};

/** Bytes that differ from one position to the next and from one seed to the
 * next, so that a chunk copied to the wrong place or twice is caught. */
Bytes
Pattern(size_t size, uint64_t seed)
{
  Bytes    bytes(size);
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < size; ++i)
  {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    bytes[i] = static_cast<uint8_t>(state >> 32);
  }
  return bytes;
}

/** Whether the `size` bytes at `actual` equal those at `expected`,
 * naming the first byte that differs. */
::testing::AssertionResult
RangeEquals(const uint8_t * actual, const uint8_t * expected, size_t size)
{
  if (size == 0 || std::memcmp(actual, expected, size) == 0)
  {
    return ::testing::AssertionSuccess();
  }
  size_t i = 0;
  while (actual[i] == expected[i])
  {
    ++i;
  }
  return ::testing::AssertionFailure() << "byte " << i << " of " << size << " is " << int{ actual[i] } << ", expected "
                                       << int{ expected[i] };
}

::testing::AssertionResult
RangeIs(const uint8_t * actual, uint8_t value, size_t size)
{
  return RangeEquals(actual, Bytes(size, value).data(), size);
}

/** The whole device buffer, read with a plain cudaMemcpy (independent of the
 * code under test). */
Bytes
ReadWithCudaMemcpy(const uint8_t * device, size_t size)
{
  Bytes bytes(size);
  CUDA_CHECK(cudaMemcpy(bytes.data(), device, size, cudaMemcpyDeviceToHost));
  return bytes;
}

void CUDART_CB
SleepOnStream(void *)
{
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

/** Resets the injected fault however the test ends. */
struct FaultInjectionReset
{
  ~FaultInjectionReset() { itk::CudaStagedCopyFailChunkAfter(0); }
};

// --- behaviour that does not need a device ----------------------------------

TEST(CudaStagedCopy, ZeroBytesIsANoOpThatSucceeds)
{
  EXPECT_EQ(itk::CudaStagedCopyHostToDevice(nullptr, nullptr, 0), cudaSuccess);
  EXPECT_EQ(itk::CudaStagedCopyDeviceToHost(nullptr, nullptr, 0), cudaSuccess);
}

TEST(CudaStagedCopy, NullPointersAreInvalidValues)
{
  Bytes host(16);
  EXPECT_EQ(itk::CudaStagedCopyHostToDevice(nullptr, host.data(), host.size()), cudaErrorInvalidValue);
  EXPECT_EQ(itk::CudaStagedCopyDeviceToHost(nullptr, host.data(), host.size()), cudaErrorInvalidValue);
  EXPECT_EQ(itk::CudaStagedCopyHostToDevice(host.data(), nullptr, host.size()), cudaErrorInvalidValue);
  EXPECT_EQ(itk::CudaStagedCopyDeviceToHost(host.data(), nullptr, host.size()), cudaErrorInvalidValue);
}

TEST(CudaPrefaultHostMemory, FaultsPagesInAndKeepsTheirContents)
{
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = size_t{ 24 } << 20; // several pieces of 2 MiB for the threads, and a partial last page
  void *       mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  const std::unique_ptr<void, std::function<void(void *)>> unmap(mapped, [bytes](void * p) { munmap(p, bytes); });
  auto * memory = static_cast<uint8_t *>(mapped);
  for (size_t i = 0; i < bytes / 2; i += 7)
  {
    memory[i] = static_cast<uint8_t>(i * 13 + 1); // some pages present, with data
  }
  const auto resident = [&] {
    std::vector<unsigned char> present((bytes + page - 1) / page);
    EXPECT_EQ(mincore(memory, bytes, present.data()), 0);
    return static_cast<size_t>(std::count_if(present.begin(), present.end(), [](unsigned char p) { return p & 1; }));
  };
  ASSERT_LT(resident(), (bytes + page - 1) / page);

  itk::CudaPrefaultHostMemory(memory, bytes - 100);

  for (size_t i = 0; i < bytes; ++i)
  {
    const uint8_t expected = i < bytes / 2 && i % 7 == 0 ? static_cast<uint8_t>(i * 13 + 1) : 0;
    ASSERT_EQ(memory[i], expected) << "byte " << i;
  }
  // Faulted in where the kernel can (MADV_POPULATE_WRITE, Linux 5.14).
  if (madvise(memory, page, MADV_POPULATE_WRITE) == 0)
  {
    EXPECT_EQ(resident(), (bytes + page - 1) / page);
  }
  itk::CudaPrefaultHostMemory(nullptr, bytes); // ignored
  itk::CudaPrefaultHostMemory(memory, 0);
}

TEST(CudaStagedCopy, ReturnsAnErrorWithoutADevice)
{
  ITK_CUDA_SKIP_WITH_GPU();
  const itk::CudaStagedCopyStatistics before = itk::CudaGetStagedCopyStatistics();
  for (const size_t size : { size_t{ 16 }, 3 * CudaStagedCopyMaximumChunkBytes + 12345 })
  {
    SCOPED_TRACE(size);
    const Bytes source = Pattern(size, 1);
    Bytes       destination(size, 0x11);
    EXPECT_NE(itk::CudaStagedCopyHostToDevice(destination.data(), source.data(), size), cudaSuccess);
    EXPECT_NE(itk::CudaStagedCopyDeviceToHost(destination.data(), source.data(), size), cudaSuccess);
    EXPECT_TRUE(RangeIs(destination.data(), 0x11, size));
  }
  EXPECT_EQ(itk::CudaGetStagedCopyStatistics().StagedChunks, before.StagedChunks);
}

// --- round trips on the GPU ---------------------------------------------------

struct CopyCase
{
  size_t Size;
  size_t HostOffset;
  size_t DeviceOffset;
};

std::ostream &
operator<<(std::ostream & os, const CopyCase & c)
{
  return os << c.Size << " bytes at host offset " << c.HostOffset << ", device offset " << c.DeviceOffset;
}

class CudaStagedCopyRoundTrip : public ::testing::TestWithParam<CopyCase>
{};

/** Host->device, checked through cudaMemcpy, then device->host, each with
 * guard bytes around the range that must stay untouched. */
TEST_P(CudaStagedCopyRoundTrip, CopiesEveryByteAndNothingElse)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const CopyCase c = GetParam();
  const Bytes    pattern = Pattern(c.Size, c.Size + c.HostOffset);
  Bytes          host(c.HostOffset + c.Size + GuardBytes, 0x33);
  std::copy(pattern.begin(), pattern.end(), host.begin() + c.HostOffset);
  const size_t deviceSize = c.DeviceOffset + c.Size + GuardBytes;
  DeviceBuffer device(deviceSize);
  CUDA_CHECK(cudaMemset(device.Get(), 0xEE, deviceSize));

  const itk::CudaStagedCopyStatistics before = itk::CudaGetStagedCopyStatistics();
  ASSERT_EQ(itk::CudaStagedCopyHostToDevice(device.Get() + c.DeviceOffset, host.data() + c.HostOffset, c.Size),
            cudaSuccess);
  const Bytes onDevice = ReadWithCudaMemcpy(device.Get(), deviceSize);
  EXPECT_TRUE(RangeIs(onDevice.data(), 0xEE, c.DeviceOffset)) << "before the destination";
  EXPECT_TRUE(RangeEquals(onDevice.data() + c.DeviceOffset, pattern.data(), c.Size));
  EXPECT_TRUE(RangeIs(onDevice.data() + c.DeviceOffset + c.Size, 0xEE, GuardBytes)) << "after the destination";

  Bytes back(c.HostOffset + c.Size + GuardBytes, 0x11);
  ASSERT_EQ(itk::CudaStagedCopyDeviceToHost(back.data() + c.HostOffset, device.Get() + c.DeviceOffset, c.Size),
            cudaSuccess);
  EXPECT_TRUE(RangeIs(back.data(), 0x11, c.HostOffset)) << "before the destination";
  EXPECT_TRUE(RangeEquals(back.data() + c.HostOffset, pattern.data(), c.Size));
  EXPECT_TRUE(RangeIs(back.data() + c.HostOffset + c.Size, 0x11, GuardBytes)) << "after the destination";

  const itk::CudaStagedCopyStatistics after = itk::CudaGetStagedCopyStatistics();
  if (c.Size >= CudaStagedCopyThresholdBytes)
  {
    EXPECT_EQ(after.StagedHostToDeviceCopies, before.StagedHostToDeviceCopies + 1);
    EXPECT_EQ(after.StagedDeviceToHostCopies, before.StagedDeviceToHostCopies + 1);
    const uint64_t fewestChunks = (c.Size + CudaStagedCopyMaximumChunkBytes - 1) / CudaStagedCopyMaximumChunkBytes;
    EXPECT_GE(after.StagedChunks - before.StagedChunks, 2 * fewestChunks);
    EXPECT_EQ(after.DirectCopies, before.DirectCopies);
  }
  else
  {
    EXPECT_EQ(after.DirectCopies, before.DirectCopies + 2);
    EXPECT_EQ(after.StagedChunks, before.StagedChunks);
  }
}

std::vector<CopyCase>
RoundTripCases()
{
  const size_t          threshold = CudaStagedCopyThresholdBytes;
  const size_t          chunk = CudaStagedCopyMaximumChunkBytes;
  std::vector<CopyCase> cases;
  for (const size_t size : { size_t{ 1 },
                             threshold - 1,
                             threshold,
                             threshold + 1,
                             2 * threshold + 4097,
                             3 * chunk + 12345,
                             10 * chunk + 7 })
  {
    cases.push_back({ size, 0, 0 });
    cases.push_back({ size, 3, 5 });
  }
  cases.push_back({ chunk, 4093, 1 });
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Sizes, CudaStagedCopyRoundTrip, ::testing::ValuesIn(RoundTripCases()),
                         [](const ::testing::TestParamInfo<CopyCase> & info) {
                           return std::to_string(info.param.Size) + "_at_" + std::to_string(info.param.HostOffset) +
                                  "_" + std::to_string(info.param.DeviceOffset);
                         });

// --- ordering, concurrency and failures on the GPU ----------------------------

TEST(CudaStagedCopy, DeviceToHostSeesEarlierWorkOnTheLegacyStream)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const size_t size = 4 * CudaStagedCopyMaximumChunkBytes + 3;
  DeviceBuffer device(size);
  CUDA_CHECK(cudaMemset(device.Get(), 0, size));
  // The host function holds the legacy stream back, so a copy that did not
  // wait for it would read the zeros.
  CUDA_CHECK(cudaLaunchHostFunc(cudaStreamLegacy, SleepOnStream, nullptr));
  CUDA_CHECK(cudaMemsetAsync(device.Get(), 0x5A, size, cudaStreamLegacy));
  Bytes host(size, 0x11);
  ASSERT_EQ(itk::CudaStagedCopyDeviceToHost(host.data(), device.Get(), size), cudaSuccess);
  EXPECT_TRUE(RangeIs(host.data(), 0x5A, size));
}

TEST(CudaStagedCopy, HostToDeviceLandsAfterEarlierWorkOnTheLegacyStream)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const size_t size = 4 * CudaStagedCopyMaximumChunkBytes + 3;
  DeviceBuffer device(size);
  CUDA_CHECK(cudaLaunchHostFunc(cudaStreamLegacy, SleepOnStream, nullptr));
  CUDA_CHECK(cudaMemsetAsync(device.Get(), 0xA5, size, cudaStreamLegacy));
  const Bytes pattern = Pattern(size, 7);
  ASSERT_EQ(itk::CudaStagedCopyHostToDevice(device.Get(), pattern.data(), size), cudaSuccess);
  // Work enqueued after the call sees the copy, not the memset.
  Bytes back(size);
  CUDA_CHECK(cudaMemcpyAsync(back.data(), device.Get(), size, cudaMemcpyDeviceToHost, cudaStreamLegacy));
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  EXPECT_TRUE(RangeEquals(back.data(), pattern.data(), size));
}

/** Sizes of the two paths: a direct copy and a staged one. */
const size_t OrderedCopySizes[] = { 4096 + 3, 4 * CudaStagedCopyMaximumChunkBytes + 3 };

TEST(CudaStagedCopy, OnAStreamDeviceToHostSeesEarlierWorkOnThatStream)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  for (const size_t size : OrderedCopySizes)
  {
    DeviceBuffer device(size);
    CUDA_CHECK(cudaMemset(device.Get(), 0, size));
    CUDA_CHECK(cudaDeviceSynchronize()); // the legacy stream's memset done before the other stream's work
    const itk::CudaTest::NonBlockingStream stream;
    CUDA_CHECK(cudaLaunchHostFunc(stream.Get(), SleepOnStream, nullptr));
    CUDA_CHECK(cudaMemsetAsync(device.Get(), 0x5A, size, stream.Get()));
    Bytes host(size, 0x11);
    ASSERT_EQ(itk::CudaStagedCopyDeviceToHost(host.data(), device.Get(), size, stream.Get()), cudaSuccess);
    EXPECT_TRUE(RangeIs(host.data(), 0x5A, size)) << size << " bytes";
  }
}

TEST(CudaStagedCopy, OnAStreamHostToDeviceLandsAfterEarlierWorkOnThatStream)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  for (const size_t size : OrderedCopySizes)
  {
    DeviceBuffer                           device(size);
    const itk::CudaTest::NonBlockingStream stream;
    CUDA_CHECK(cudaLaunchHostFunc(stream.Get(), SleepOnStream, nullptr));
    CUDA_CHECK(cudaMemsetAsync(device.Get(), 0xA5, size, stream.Get()));
    const Bytes pattern = Pattern(size, 7);
    ASSERT_EQ(itk::CudaStagedCopyHostToDevice(device.Get(), pattern.data(), size, stream.Get()), cudaSuccess);
    Bytes back(size);
    CUDA_CHECK(cudaMemcpyAsync(back.data(), device.Get(), size, cudaMemcpyDeviceToHost, stream.Get()));
    CUDA_CHECK(cudaStreamSynchronize(stream.Get()));
    EXPECT_TRUE(RangeEquals(back.data(), pattern.data(), size)) << size << " bytes";
  }
}

/** Holds a stream back until Release() (or 10 s, so that a copy that wrongly
 * waits for it fails the test instead of hanging it). */
struct StreamGate
{
  std::atomic<bool> Open{ false };
  std::atomic<bool> TimedOut{ false };

  static void CUDART_CB
  Wait(void * gate)
  {
    auto *     self = static_cast<StreamGate *>(gate);
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!self->Open.load() && std::chrono::steady_clock::now() < end)
    {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    self->TimedOut = !self->Open.load();
  }
};

TEST(CudaStagedCopy, OnAStreamWaitsForNothingOnTheLegacyStream)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  for (const size_t size : OrderedCopySizes)
  {
    DeviceBuffer device(size);
    CUDA_CHECK(cudaMemset(device.Get(), 0x3C, size));
    // The memset may still be queued on the legacy stream: done before the
    // gate, or it could land between the copies on the other stream (it did
    // under compute-sanitizer's initcheck, which delays it).
    CUDA_CHECK(cudaDeviceSynchronize());
    const itk::CudaTest::NonBlockingStream stream;
    StreamGate                             gate;
    CUDA_CHECK(cudaLaunchHostFunc(cudaStreamLegacy, StreamGate::Wait, &gate));
    const Bytes pattern = Pattern(size, 3);
    Bytes       host(size, 0x11);
    // Both return while the legacy stream is still held back.
    EXPECT_EQ(itk::CudaStagedCopyHostToDevice(device.Get(), pattern.data(), size, stream.Get()), cudaSuccess);
    EXPECT_EQ(itk::CudaStagedCopyDeviceToHost(host.data(), device.Get(), size, stream.Get()), cudaSuccess);
    gate.Open = true;
    CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    EXPECT_FALSE(gate.TimedOut.load()) << "a copy on a stream waited for the legacy default stream (" << size
                                       << " bytes)";
    EXPECT_TRUE(RangeEquals(host.data(), pattern.data(), size)) << size << " bytes";
  }
}

TEST(CudaStagedCopy, ConcurrentCallsOnDifferentBuffers)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  int deviceCount = 0;
  CUDA_CHECK(cudaGetDeviceCount(&deviceCount));
  constexpr unsigned int   threads = 4;
  constexpr unsigned int   rounds = 4;
  const size_t             size = 3 * CudaStagedCopyMaximumChunkBytes + 4099;
  std::mutex               mutex;
  std::vector<std::string> failures;
  const auto               fail = [&](std::string message) {
    std::lock_guard<std::mutex> lock(mutex);
    failures.push_back(std::move(message));
  };

  std::vector<std::thread> workers;
  for (unsigned int t = 0; t < threads; ++t)
  {
    workers.emplace_back([&, t] {
      try
      {
        // Several devices, when present, are used at once too.
        CUDA_CHECK(cudaSetDevice(static_cast<int>(t) % deviceCount));
        DeviceBuffer device(size);
        for (unsigned int round = 0; round < rounds; ++round)
        {
          const std::string where = "thread " + std::to_string(t) + " round " + std::to_string(round) + ": ";
          const Bytes       pattern = Pattern(size, 100 * t + round);
          Bytes             back(size, 0x11);
          cudaError_t       error = itk::CudaStagedCopyHostToDevice(device.Get(), pattern.data(), size);
          if (error == cudaSuccess)
          {
            error = itk::CudaStagedCopyDeviceToHost(back.data(), device.Get(), size);
          }
          if (error != cudaSuccess)
          {
            fail(where + cudaGetErrorName(error));
          }
          else if (const auto same = RangeEquals(back.data(), pattern.data(), size); !same)
          {
            fail(where + same.message());
          }
        }
      }
      catch (const itk::ExceptionObject & e)
      {
        fail(e.GetDescription());
      }
    });
  }
  for (auto & worker : workers)
  {
    worker.join();
  }
  EXPECT_TRUE(failures.empty()) << failures.size() << " failures, the first: " << failures.front();
}

TEST(CudaStagedCopy, AFailedChunkIsReportedAndTheNextCopyWorks)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const FaultInjectionReset reset;
  const size_t              size = 6 * CudaStagedCopyMaximumChunkBytes + 1;
  DeviceBuffer              device(size);
  const Bytes               pattern = Pattern(size, 3);
  // The first chunk, one with earlier chunks in flight, and the last one.
  for (const unsigned int failingChunk : { 1u, 3u, 7u })
  {
    SCOPED_TRACE(failingChunk);
    itk::CudaStagedCopyFailChunkAfter(failingChunk, cudaErrorLaunchFailure);
    EXPECT_EQ(itk::CudaStagedCopyHostToDevice(device.Get(), pattern.data(), size), cudaErrorLaunchFailure);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    ASSERT_EQ(itk::CudaStagedCopyHostToDevice(device.Get(), pattern.data(), size), cudaSuccess);
    EXPECT_TRUE(RangeEquals(ReadWithCudaMemcpy(device.Get(), size).data(), pattern.data(), size));

    Bytes back(size, 0x11);
    itk::CudaStagedCopyFailChunkAfter(failingChunk, cudaErrorLaunchFailure);
    EXPECT_EQ(itk::CudaStagedCopyDeviceToHost(back.data(), device.Get(), size), cudaErrorLaunchFailure);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    ASSERT_EQ(itk::CudaStagedCopyDeviceToHost(back.data(), device.Get(), size), cudaSuccess);
    EXPECT_TRUE(RangeEquals(back.data(), pattern.data(), size));
  }
}

TEST(CudaStagedCopy, PinnedHostMemoryIsCopiedDirectly)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const size_t size = 3 * CudaStagedCopyThresholdBytes;
  void *       pinned = nullptr;
  CUDA_CHECK(cudaMallocHost(&pinned, size));
  const std::unique_ptr<void, cudaError_t (*)(void *)> release(pinned, cudaFreeHost);
  const Bytes                                          pattern = Pattern(size, 5);
  std::memcpy(pinned, pattern.data(), size);
  DeviceBuffer device(size);

  const itk::CudaStagedCopyStatistics before = itk::CudaGetStagedCopyStatistics();
  ASSERT_EQ(itk::CudaStagedCopyHostToDevice(device.Get(), pinned, size), cudaSuccess);
  std::memset(pinned, 0, size);
  ASSERT_EQ(itk::CudaStagedCopyDeviceToHost(pinned, device.Get(), size), cudaSuccess);
  EXPECT_TRUE(RangeEquals(static_cast<const uint8_t *>(pinned), pattern.data(), size));
  const itk::CudaStagedCopyStatistics after = itk::CudaGetStagedCopyStatistics();
  EXPECT_EQ(after.DirectCopies, before.DirectCopies + 2);
  EXPECT_EQ(after.StagedChunks, before.StagedChunks);
}

TEST(CudaStagedCopy, UsesTheBuffersDeviceAndLeavesTheCurrentDeviceAlone)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  int deviceCount = 0;
  CUDA_CHECK(cudaGetDeviceCount(&deviceCount));
  if (deviceCount < 2)
  {
    GTEST_SKIP() << "needs two CUDA devices";
  }
  const size_t size = 2 * CudaStagedCopyMaximumChunkBytes + 17;
  CUDA_CHECK(cudaSetDevice(1));
  {
    DeviceBuffer device(size);
    CUDA_CHECK(cudaSetDevice(0));
    const Bytes pattern = Pattern(size, 9);
    ASSERT_EQ(itk::CudaStagedCopyHostToDevice(device.Get(), pattern.data(), size), cudaSuccess);
    Bytes back(size, 0x11);
    ASSERT_EQ(itk::CudaStagedCopyDeviceToHost(back.data(), device.Get(), size), cudaSuccess);
    EXPECT_TRUE(RangeEquals(back.data(), pattern.data(), size));
    int current = -1;
    CUDA_CHECK(cudaGetDevice(&current));
    EXPECT_EQ(current, 0);
    CUDA_CHECK(cudaSetDevice(1)); // free the buffer on its own device
  }
  CUDA_CHECK(cudaSetDevice(0));
}
} // namespace
