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
#ifndef itkCudaTestUtilities_h
#define itkCudaTestUtilities_h

#include "itkCudaDataManager.h"
#include "itkCudaEmulatedMemoryBackend.h"
#include "itkCudaMemoryBackend.h"
#include "itkCudaUtil.h"
#include "itkImage.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <string>
#include <vector>

/** Skip the current test, visibly, on a machine without a usable CUDA device. */
#define ITK_CUDA_SKIP_WITHOUT_GPU()                                                                                   \
  do                                                                                                                  \
  {                                                                                                                   \
    if (!::itk::IsCudaAvailable())                                                                                    \
    {                                                                                                                 \
      GTEST_SKIP() << "no CUDA device: " << ::itk::CudaUnavailableReason();                                          \
    }                                                                                                                 \
  } while (false)

/** Skip the current test, visibly, when `gpu` (a test of the GPU path) and
 * the machine has no usable CUDA device. */
#define ITK_CUDA_SKIP_WITHOUT_GPU_IF(gpu)                                                                             \
  do                                                                                                                  \
  {                                                                                                                   \
    if ((gpu) && !::itk::IsCudaAvailable())                                                                           \
    {                                                                                                                 \
      GTEST_SKIP() << "no CUDA device: " << ::itk::CudaUnavailableReason();                                          \
    }                                                                                                                 \
  } while (false)

/** Skip the current test on a machine that has a CUDA device (tests of the behaviour without one). */
#define ITK_CUDA_SKIP_WITH_GPU()                                                                                      \
  do                                                                                                                  \
  {                                                                                                                   \
    if (::itk::IsCudaAvailable())                                                                                     \
    {                                                                                                                 \
      GTEST_SKIP() << "a CUDA device is present; this test covers machines without one";                            \
    }                                                                                                                 \
  } while (false)

namespace itk
{
namespace CudaTest
{
/** Where the "device" buffers of a test live. */
enum class Backend
{
  Emulated, ///< host memory through CudaEmulatedMemoryBackend: runs everywhere
  Cuda      ///< the real GPU: skipped without one
};

inline std::string
BackendName(const ::testing::TestParamInfo<Backend> & info)
{
  return info.param == Backend::Emulated ? "Emulated" : "Cuda";
}

/** A memory resource adaptor that counts the live allocations it passed to
 * `upstream`, so that tests prove what this process freed even while other
 * processes use the GPU (cudaMemGetInfo is device-wide). */
class CountingMemoryResource : public CudaMemoryResource
{
public:
  explicit CountingMemoryResource(std::shared_ptr<CudaMemoryResource> upstream)
    : m_Upstream(std::move(upstream))
  {}
  const char *
  GetName() const override
  {
    return m_Upstream->GetName();
  }
  cudaError_t
  Allocate(void ** pointer, size_t bytes, int device, cudaStream_t stream) override
  {
    const cudaError_t error = m_Upstream->Allocate(pointer, bytes, device, stream);
    if (error == cudaSuccess)
    {
      std::lock_guard<std::mutex> lock(m_Mutex);
      m_Live.emplace(*pointer, bytes);
    }
    return error;
  }
  cudaError_t
  Deallocate(void * pointer, size_t bytes, int device, cudaStream_t stream) noexcept override
  {
    const cudaError_t error = m_Upstream->Deallocate(pointer, bytes, device, stream);
    if (error == cudaSuccess)
    {
      std::lock_guard<std::mutex> lock(m_Mutex);
      m_Live.erase(pointer);
    }
    return error;
  }
  size_t
  GetNumberOfLiveAllocations() const
  {
    std::lock_guard<std::mutex> lock(m_Mutex);
    return m_Live.size();
  }

private:
  const std::shared_ptr<CudaMemoryResource> m_Upstream;
  mutable std::mutex                        m_Mutex;
  std::unordered_map<const void *, size_t>  m_Live;
};

/** A CUDA runtime backend whose allocations `counting` counts. */
inline std::shared_ptr<CudaRuntimeMemoryBackend>
MakeCountingRuntimeBackend(std::shared_ptr<CountingMemoryResource> * counting)
{
  auto runtime = std::make_shared<CudaRuntimeMemoryBackend>();
  *counting = std::make_shared<CountingMemoryResource>(runtime->GetMemoryResource());
  runtime->SetMemoryResource(*counting);
  return runtime;
}

/** Copies through the active backend that have landed when they return (as
 * a kernel would have written, or a reader reads, the device memory):
 * ordered on the legacy default stream, then waited for there. */
inline void
CopyToDevice(void * device, const void * host, size_t bytes)
{
  const auto backend = CudaMemoryBackend::GetDefault();
  CUDA_CHECK(backend->CopyHostToDeviceAsync(device, host, bytes, nullptr));
  CUDA_CHECK(backend->SynchronizeStream(nullptr));
}
inline void
CopyToHost(void * host, const void * device, size_t bytes)
{
  const auto backend = CudaMemoryBackend::GetDefault();
  CUDA_CHECK(backend->CopyDeviceToHostAsync(host, device, bytes, nullptr));
  CUDA_CHECK(backend->SynchronizeStream(nullptr));
}

/** Fixture that runs each test once on the emulated backend and once on the
 * GPU, so the synchronisation logic is proven both in CI and on hardware. */
class BackendTest : public ::testing::TestWithParam<Backend>
{
protected:
  void
  SetUp() override
  {
    if (GetParam() == Backend::Cuda)
    {
      ITK_CUDA_SKIP_WITHOUT_GPU();
      m_Override = std::make_unique<CudaMemoryBackendOverride>(MakeCountingRuntimeBackend(&m_Counting));
    }
    else
    {
      m_Emulated = std::make_shared<CudaEmulatedMemoryBackend>();
      m_Override = std::make_unique<CudaMemoryBackendOverride>(m_Emulated);
    }
  }

  void
  TearDown() override
  {
    m_Override.reset();
  }

  /** Copy host data into device memory of the active backend (as a kernel would write it). */
  static void
  WriteDevice(void * device, const void * host, size_t bytes)
  {
    CopyToDevice(device, host, bytes);
  }
  static void
  ReadDevice(void * host, const void * device, size_t bytes)
  {
    CopyToHost(host, device, bytes);
  }

  /** Device allocations made through the active backend and not yet freed. */
  size_t
  LiveAllocations() const
  {
    return m_Emulated ? m_Emulated->GetNumberOfLiveAllocations() : m_Counting->GetNumberOfLiveAllocations();
  }

  std::shared_ptr<CudaEmulatedMemoryBackend> m_Emulated;
  std::shared_ptr<CountingMemoryResource>    m_Counting;
  std::unique_ptr<CudaMemoryBackendOverride> m_Override;
};

#define ITK_CUDA_INSTANTIATE_BACKEND_TESTS(Fixture)                                                                   \
  INSTANTIATE_TEST_SUITE_P(Backends,                                                                                  \
                           Fixture,                                                                                   \
                           ::testing::Values(::itk::CudaTest::Backend::Emulated, ::itk::CudaTest::Backend::Cuda),     \
                           ::itk::CudaTest::BackendName)

/** Visible CUDA devices (0 without a device or driver). */
inline int
DeviceCount()
{
  std::vector<cudaDeviceProp> devices;
  return CudaGetAvailableDevices(devices);
}

/** The calling thread's current device. */
inline int
CurrentDevice()
{
  int device = -1;
  CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

/** Expect the transfer counters of `manager` to equal the given counts. */
inline ::testing::AssertionResult
TransfersAre(const CudaDataManager * manager, uint64_t hostToDevice, uint64_t deviceToHost)
{
  const CudaTransferStatistics s = manager->GetTransferStatistics();
  if (s.HostToDeviceCount == hostToDevice && s.DeviceToHostCount == deviceToHost)
  {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "expected " << hostToDevice << " host->device and " << deviceToHost
                                       << " device->host transfers, got " << s.HostToDeviceCount << " and "
                                       << s.DeviceToHostCount;
}

/** The GPU copy of `image` (made current for reading), copied back to the
 * host through the active backend: what a kernel would see, read without
 * going through the image, which would synchronise. */
template <typename TImage>
std::vector<typename TImage::PixelType>
DeviceCopy(const TImage * image)
{
  const auto                              manager = image->GetCudaDataManager();
  std::vector<typename TImage::PixelType> values(manager->GetBufferSize() / sizeof(typename TImage::PixelType));
  const void *                            device = manager->GetConstGPUBufferPointer();
  CopyToHost(values.data(), device, manager->GetBufferSize());
  return values;
}
template <typename TImage>
std::vector<typename TImage::PixelType>
DeviceCopy(const SmartPointer<TImage> & image)
{
  return DeviceCopy(image.GetPointer());
}

/** A new image of `size` holding `pixels` (in buffer order; as many as the size has). */
template <typename TImage>
typename TImage::Pointer
MakeImageOfPixels(const typename TImage::SizeType & size, const std::vector<typename TImage::PixelType> & pixels)
{
  auto image = TImage::New();
  image->SetRegions(size);
  image->Allocate();
  std::copy(pixels.begin(), pixels.end(), image->GetBufferPointer());
  return image;
}

/** The buffered pixels of `image`, read through its host buffer (so a GPU result comes down). */
template <typename TImage>
std::vector<typename TImage::PixelType>
HostPixels(const TImage * image)
{
  const auto * buffer = image->GetBufferPointer();
  return { buffer, buffer + image->GetBufferedRegion().GetNumberOfPixels() };
}

/** A new image of `size` whose region starts at (-3, -2, -1, ...), with a
 * spacing and origin of its own and every byte of its buffer different from
 * its neighbours: what a copy of regions could get wrong shows. */
template <typename TImage>
typename TImage::Pointer
MakePatternImage(const typename TImage::SizeType & size, unsigned int seed = 0)
{
  auto                         image = TImage::New();
  typename TImage::IndexType   start;
  typename TImage::SpacingType spacing;
  typename TImage::PointType   origin;
  for (unsigned int d = 0; d < TImage::ImageDimension; ++d)
  {
    start[d] = -3 + static_cast<int>(d);
    spacing[d] = 0.5 + d;
    origin[d] = 10.0 * d - 4.0;
  }
  image->SetRegions(typename TImage::RegionType(start, size));
  image->SetSpacing(spacing);
  image->SetOrigin(origin);
  image->Allocate();
  auto *       pixels = reinterpret_cast<unsigned char *>(image->GetBufferPointer());
  const size_t bytes = image->GetBufferedRegion().GetNumberOfPixels() * sizeof(typename TImage::PixelType);
  for (size_t i = 0; i < bytes; ++i)
  {
    pixels[i] = static_cast<unsigned char>(((i + 977u * seed) * 2654435761u) >> 13);
  }
  return image;
}

/** The bytes of the buffered pixels of `image`, read through its host buffer. */
template <typename TImage>
std::vector<unsigned char>
BufferBytes(const TImage * image)
{
  const auto * pixels = reinterpret_cast<const unsigned char *>(image->GetBufferPointer());
  return { pixels, pixels + image->GetBufferedRegion().GetNumberOfPixels() * sizeof(typename TImage::PixelType) };
}

/** An itk::Image with the pixels, regions and geometry of `image`. */
template <typename TImage>
typename Image<typename TImage::PixelType, TImage::ImageDimension>::Pointer
ToITKImage(const TImage * image)
{
  auto copy = Image<typename TImage::PixelType, TImage::ImageDimension>::New();
  copy->SetRegions(image->GetBufferedRegion());
  copy->SetLargestPossibleRegion(image->GetLargestPossibleRegion());
  copy->CopyInformation(image);
  copy->Allocate();
  const auto bytes = BufferBytes(image);
  std::memcpy(static_cast<void *>(copy->GetBufferPointer()), bytes.data(), bytes.size());
  return copy;
}

/** The message of the itk::ExceptionObject thrown by `f`, or "" if none was thrown. */
template <typename F>
std::string
ExceptionMessage(F && f)
{
  try
  {
    f();
  }
  catch (const ExceptionObject & e)
  {
    return e.GetDescription();
  }
  return "";
}
/** A non-blocking stream of the current device (ordered by CUDA with no
 * other stream), synchronised and destroyed at scope exit. */
class NonBlockingStream
{
public:
  NonBlockingStream() { CUDA_CHECK(cudaStreamCreateWithFlags(&m_Stream, cudaStreamNonBlocking)); }
  ~NonBlockingStream()
  {
    cudaStreamSynchronize(m_Stream);
    cudaStreamDestroy(m_Stream);
  }
  NonBlockingStream(const NonBlockingStream &) = delete;
  NonBlockingStream &
  operator=(const NonBlockingStream &) = delete;
  cudaStream_t
  Get() const
  {
    return m_Stream;
  }

private:
  cudaStream_t m_Stream{ nullptr };
};
} // namespace CudaTest
} // namespace itk

#endif
