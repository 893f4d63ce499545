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
#include "itkCudaMemoryBackend.h"
#include "itkCudaUtil.h"

#include "gtest/gtest.h"

#include <memory>
#include <string>

/** Skip the current test, visibly, on a machine without a usable CUDA device. */
#define ITK_CUDA_SKIP_WITHOUT_GPU()                                                                                   \
  do                                                                                                                  \
  {                                                                                                                   \
    if (!::itk::IsCudaAvailable())                                                                                    \
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
      m_Override = std::make_unique<CudaMemoryBackendOverride>(std::make_shared<CudaRuntimeMemoryBackend>());
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
    CUDA_CHECK(CudaMemoryBackend::GetDefault()->CopyHostToDevice(device, host, bytes));
  }
  static void
  ReadDevice(void * host, const void * device, size_t bytes)
  {
    CUDA_CHECK(CudaMemoryBackend::GetDefault()->CopyDeviceToHost(host, device, bytes));
  }

  /** Bytes of device memory in use: exact on the emulated backend, from
   * cudaMemGetInfo on the GPU. */
  size_t
  DeviceBytesInUse() const
  {
    size_t freeBytes = 0;
    size_t totalBytes = 0;
    CUDA_CHECK(CudaMemoryBackend::GetDefault()->GetMemoryInfo(&freeBytes, &totalBytes));
    return totalBytes - freeBytes;
  }

  std::shared_ptr<CudaEmulatedMemoryBackend> m_Emulated;
  std::unique_ptr<CudaMemoryBackendOverride> m_Override;
};

#define ITK_CUDA_INSTANTIATE_BACKEND_TESTS(Fixture)                                                                   \
  INSTANTIATE_TEST_SUITE_P(Backends,                                                                                  \
                           Fixture,                                                                                   \
                           ::testing::Values(::itk::CudaTest::Backend::Emulated, ::itk::CudaTest::Backend::Cuda),     \
                           ::itk::CudaTest::BackendName)

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
} // namespace CudaTest
} // namespace itk

#endif
