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
#include "itkCudaMemoryPool.h"
#include "itkCudaResources.h"
#include "itkCudaUtil.h"
#include "itkCudaEnvironment.h"
#include "itkCudaProcessGlobal.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <string>

namespace itk
{
namespace
{
constexpr int MaximumDevices = 64;

bool
PoolWanted()
{
  return CudaDetail::EnvironmentSwitch("ITK_CUDA_MEMORY_POOL", true);
}

constexpr uint64_t NotSet = ~uint64_t{ 0 };

struct PoolSettings
{
  std::mutex            Mutex;
  std::atomic<uint64_t> ReleaseThreshold{ CudaDetail::EnvironmentBytes("ITK_CUDA_POOL_RELEASE_THRESHOLD", NotSet) };
  std::atomic<uint64_t> MaximumSize{ CudaDetail::EnvironmentBytes("ITK_CUDA_POOL_MAXIMUM_SIZE", 0) };
  std::array<cudaMemPool_t, MaximumDevices> Pools{};
};

PoolSettings &
Settings()
{
  // One per process, never destroyed: pools outlive static destructors that
  // free buffers (itkCudaProcessGlobal.h).
  static PoolSettings & settings = CudaDetail::ProcessGlobalOf<PoolSettings>("PoolSettings");
  return settings;
}

uint64_t
DefaultReleaseThreshold(int device)
{
  size_t freeBytes = 0;
  size_t totalBytes = 0;
  const CudaDetail::DeviceScope onDevice(device);
  if (onDevice.Status() != cudaSuccess || cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess)
  {
    cudaGetLastError();
    return uint64_t{ 1 } << 30;
  }
  return totalBytes / 16;
}

cudaError_t
ApplyReleaseThreshold(cudaMemPool_t pool, int device)
{
  const uint64_t set = Settings().ReleaseThreshold.load();
  cuuint64_t     threshold = set == NotSet ? DefaultReleaseThreshold(device) : set;
  return cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
}
} // namespace

namespace CudaDetail
{
cudaError_t
GetDevicePool(int device, cudaMemPool_t * pool) noexcept
{
  if (device < 0 || device >= MaximumDevices)
  {
    return cudaErrorInvalidDevice;
  }
  PoolSettings &              settings = Settings();
  std::lock_guard<std::mutex> lock(settings.Mutex);
  if (settings.Pools[device] == nullptr)
  {
    cudaMemPoolProps properties{};
    properties.allocType = cudaMemAllocationTypePinned;
    properties.handleTypes = cudaMemHandleTypeNone;
    properties.location.type = cudaMemLocationTypeDevice;
    properties.location.id = device;
    properties.maxSize = static_cast<size_t>(settings.MaximumSize.load());
    cudaMemPool_t made = nullptr;
    cudaError_t   error = cudaMemPoolCreate(&made, &properties);
    if (error == cudaSuccess)
    {
      error = ApplyReleaseThreshold(made, device);
      if (error != cudaSuccess)
      {
        cudaMemPoolDestroy(made);
      }
    }
    if (error != cudaSuccess)
    {
      cudaGetLastError();
      return error;
    }
    settings.Pools[device] = made;
  }
  *pool = settings.Pools[device];
  return cudaSuccess;
}

bool
PoolEnabled() noexcept
{
  static const bool enabled = [] {
    if (!PoolWanted() || !IsCudaAvailable())
    {
      return false;
    }
    int supported = 0;
    if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, CudaGetDefaultDevice()) != cudaSuccess)
    {
      cudaGetLastError();
      return false;
    }
    return supported != 0;
  }();
  return enabled;
}

cudaError_t
TrimPools(uint64_t keepBytes) noexcept
{
  PoolSettings &              settings = Settings();
  std::lock_guard<std::mutex> lock(settings.Mutex);
  cudaError_t                 first = cudaSuccess;
  for (cudaMemPool_t pool : settings.Pools)
  {
    if (pool != nullptr)
    {
      const cudaError_t error = cudaMemPoolTrimTo(pool, static_cast<size_t>(keepBytes));
      first = first == cudaSuccess ? error : first;
    }
  }
  return first;
}

void
GrantPeerAccess(int device, int peer) noexcept
{
  if (device == peer || !PoolEnabled())
  {
    return;
  }
  cudaMemPool_t pool = nullptr;
  if (GetDevicePool(device, &pool) != cudaSuccess)
  {
    return;
  }
  cudaMemAccessDesc access{};
  access.location.type = cudaMemLocationTypeDevice;
  access.location.id = peer;
  access.flags = cudaMemAccessFlagsProtReadWrite;
  if (cudaMemPoolSetAccess(pool, &access, 1) != cudaSuccess)
  {
    cudaGetLastError(); // copies still go through the driver's staging
  }
}
} // namespace CudaDetail

bool
CudaMemoryPoolIsEnabled()
{
  return CudaDetail::PoolEnabled();
}

void
CudaSetMemoryPoolReleaseThreshold(uint64_t bytes)
{
  PoolSettings & settings = Settings();
  settings.ReleaseThreshold = bytes == NotSet ? bytes - 1 : bytes;
  std::lock_guard<std::mutex> lock(settings.Mutex);
  for (int device = 0; device < MaximumDevices; ++device)
  {
    if (settings.Pools[device] != nullptr)
    {
      CUDA_CHECK(ApplyReleaseThreshold(settings.Pools[device], device));
    }
  }
}

uint64_t
CudaGetMemoryPoolReleaseThreshold(int device)
{
  const uint64_t set = Settings().ReleaseThreshold.load();
  return set == NotSet ? DefaultReleaseThreshold(device) : set;
}

void
CudaSetMemoryPoolMaximumSize(uint64_t bytes)
{
  Settings().MaximumSize = bytes;
}

uint64_t
CudaGetMemoryPoolMaximumSize()
{
  return Settings().MaximumSize.load();
}

void
CudaTrimMemoryPools(uint64_t keepBytes)
{
  // Frees queued on streams give their memory to the pool when they run.
  for (int device = 0; device < MaximumDevices; ++device)
  {
    bool made = false;
    {
      PoolSettings &              settings = Settings();
      std::lock_guard<std::mutex> lock(settings.Mutex);
      made = settings.Pools[device] != nullptr;
    }
    if (made)
    {
      const CudaDeviceGuard onDevice(device);
      CUDA_CHECK(cudaDeviceSynchronize());
    }
  }
  CUDA_CHECK(CudaDetail::TrimPools(keepBytes));
}

CudaMemoryPoolStatistics
CudaGetMemoryPoolStatistics(int device)
{
  CudaMemoryPoolStatistics statistics;
  cudaMemPool_t            pool = nullptr;
  {
    PoolSettings &              settings = Settings();
    std::lock_guard<std::mutex> lock(settings.Mutex);
    if (device < 0 || device >= MaximumDevices || settings.Pools[device] == nullptr)
    {
      return statistics;
    }
    pool = settings.Pools[device];
  }
  const auto read = [pool](cudaMemPoolAttr attribute) {
    cuuint64_t value = 0;
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, attribute, &value));
    return static_cast<uint64_t>(value);
  };
  statistics.ReservedBytes = read(cudaMemPoolAttrReservedMemCurrent);
  statistics.UsedBytes = read(cudaMemPoolAttrUsedMemCurrent);
  statistics.PeakReservedBytes = read(cudaMemPoolAttrReservedMemHigh);
  statistics.PeakUsedBytes = read(cudaMemPoolAttrUsedMemHigh);
  return statistics;
}
} // namespace itk
