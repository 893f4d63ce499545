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
#include "itkCudaCommonConfiguration.h"
#include "itkCudaKernelLaunch.hcu"
#include "itkCudaTestKernels.hcu"
#include "itkCudaTestUtilities.h"
#include "itkCudaUtil.h"

#include <cstring>
#include <sstream>

namespace
{
using itk::CudaTest::ExceptionMessage;

TEST(CudaUtil, LocalBlockSizePerDimension)
{
  EXPECT_EQ(itk::CudaGetLocalBlockSize(1), 256);
  EXPECT_EQ(itk::CudaGetLocalBlockSize(2), 16);
  EXPECT_EQ(itk::CudaGetLocalBlockSize(3), 4);
  for (const unsigned int bad : { 0u, 4u, 100u })
  {
    const std::string message = ExceptionMessage([&] { itk::CudaGetLocalBlockSize(bad); });
    EXPECT_NE(message.find("expects an image dimension of 1, 2 or 3, got " + std::to_string(bad)), std::string::npos)
      << message;
  }
}

TEST(CudaUtil, AvailabilityQueriesNeverThrow)
{
  bool available = false;
  EXPECT_NO_THROW(available = itk::IsCudaAvailable());
  std::vector<cudaDeviceProp> devices;
  const int                   count = itk::CudaGetAvailableDevices(devices);
  EXPECT_EQ(static_cast<size_t>(count), devices.size());
  EXPECT_EQ(available, count > 0);
  EXPECT_EQ(available, itk::CudaUnavailableReason().empty());
  const int best = itk::CudaGetMaxFlopsDev();
  EXPECT_EQ(best, itk::CudaGetMaxFlopsDev()); // cached, stable
  if (available)
  {
    EXPECT_GE(best, 0);
    EXPECT_LT(best, count);
  }
  else
  {
    EXPECT_EQ(best, -1);
  }
  EXPECT_EQ(itk::CudaSelectPlatform("no such CUDA device name"), -1);
  EXPECT_EQ(itk::CudaSelectPlatform(nullptr), -1);
}

TEST(CudaUtil, InvalidDeviceIndexThrows)
{
  std::vector<cudaDeviceProp> devices;
  const int                   count = itk::CudaGetAvailableDevices(devices);
  for (const int bad : { -1, count, count + 5 })
  {
    EXPECT_NE(ExceptionMessage([&] { itk::GetCudaComputeCapability(bad); }).find("invalid CUDA device"),
              std::string::npos);
    EXPECT_NE(ExceptionMessage([&] { itk::CudaPrintDeviceInfo(bad); }).find("invalid CUDA device"),
              std::string::npos);
  }
}

TEST(CudaUtil, CheckErrorNamesTheCudaError)
{
  EXPECT_NO_THROW(itk::CudaCheckError(cudaSuccess));
  try
  {
    CUDA_CHECK(cudaErrorMemoryAllocation);
    FAIL() << "CUDA_CHECK did not throw";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string description = e.GetDescription();
    EXPECT_NE(description.find("cudaErrorMemoryAllocation"), std::string::npos) << description;
    EXPECT_NE(description.find("(2)"), std::string::npos) << description;
    EXPECT_NE(std::string(e.GetFile()).find("itkCudaUtilGTest.cxx"), std::string::npos);
    EXPECT_GT(e.GetLine(), 0u);
  }
  EXPECT_NO_THROW(itk::CudaCheckError(CUDA_SUCCESS));
  const std::string driver = ExceptionMessage([] { CUDA_CHECK(CUDA_ERROR_OUT_OF_MEMORY); });
  EXPECT_NE(driver.find("(2)"), std::string::npos) << driver;
  if (itk::IsCudaAvailable())
  {
    EXPECT_NE(driver.find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos) << driver;
  }
}

TEST(CudaUtil, VersionMacros)
{
  std::ostringstream version;
  version << CudaCommon_VERSION_MAJOR << '.' << CudaCommon_VERSION_MINOR << '.' << CudaCommon_VERSION_PATCH;
  EXPECT_EQ(version.str(), CudaCommon_VERSION_STRING);
  EXPECT_GE(CudaCommon_VERSION_MAJOR, 2);
}

TEST(CudaUtilOnGPU, ComputeCapabilityAndDeviceInfo)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const auto capability = itk::GetCudaComputeCapability(0);
  cudaDeviceProp properties{};
  CUDA_CHECK(cudaGetDeviceProperties(&properties, 0));
  EXPECT_EQ(capability.first, properties.major);
  EXPECT_EQ(capability.second, properties.minor);
  EXPECT_GE(capability.first, 7);
  EXPECT_EQ(itk::CudaSelectPlatform(properties.name), 0);
  ::testing::internal::CaptureStdout();
  itk::CudaPrintDeviceInfo(0, true);
  const std::string printed = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(printed.find(properties.name), std::string::npos);
  EXPECT_NE(printed.find("compute capability"), std::string::npos);
}

TEST(CudaUtilOnGPU, DeviceGuardRestoresTheCurrentDevice)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  std::vector<cudaDeviceProp> devices;
  const int                   last = itk::CudaGetAvailableDevices(devices) - 1;
  CUDA_CHECK(cudaSetDevice(0));
  {
    itk::CudaDeviceGuard guard(last);
    int                  current = -1;
    CUDA_CHECK(cudaGetDevice(&current));
    EXPECT_EQ(current, last);
  }
  int current = -1;
  CUDA_CHECK(cudaGetDevice(&current));
  EXPECT_EQ(current, 0);
  EXPECT_NE(ExceptionMessage([&] { itk::CudaDeviceGuard bad(last + 1); }).find("cudaErrorInvalidDevice"),
            std::string::npos);
}

TEST(CudaUtilOnGPU, KernelLaunchCheckReportsConfigurationErrors)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const std::string message = ExceptionMessage([] { itk::CudaTest::LaunchWithInvalidConfiguration(); });
  // CUDA reports too many threads per block as an invalid configuration or,
  // in recent versions, an invalid value.
  EXPECT_NE(message.find("CUDA error cudaErrorInvalid"), std::string::npos) << message;
  EXPECT_NE(message.find("launch of kernel FillKernel"), std::string::npos) << message;
  EXPECT_EQ(cudaGetLastError(), cudaSuccess); // cleared for the next call
}

TEST(CudaUtilOnGPU, GridSizeFitsTheWork)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  EXPECT_EQ(itk::CudaGridSizeForElements(1, 256), 1u);
  EXPECT_EQ(itk::CudaGridSizeForElements(0, 256), 1u);
  EXPECT_EQ(itk::CudaGridSizeForElements(256 * 3, 256), 3u);
  const unsigned int huge = itk::CudaGridSizeForElements(size_t{ 1 } << 40, 256);
  EXPECT_GE(huge, 1u);
  EXPECT_LE(huge, 1u << 20); // grid-stride: bounded, not one thread per element
}
} // namespace
