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
#include "itkCudaUtil.h"
#include "itkCudaEnvironment.h"
#include "itkCudaResources.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <sstream>

namespace itk
{
namespace
{
void
ThrowCudaError(const char * name, const char * description, int code, const char * file, int line,
               const char * location)
{
  std::ostringstream message;
  message << "CUDA error " << name << " (" << code << "): " << description;
  if (location != nullptr && location[0] != '\0')
  {
    message << " in " << location;
  }
  throw ExceptionObject(file != nullptr && file[0] != '\0' ? file : "unknown", line, message.str(),
                        location != nullptr && location[0] != '\0' ? location : ITK_LOCATION);
}

struct AvailabilityAnswer
{
  bool        Available{ false };
  int         DeviceCount{ 0 };
  std::string Reason;
};

const AvailabilityAnswer &
GetAvailability()
{
  static const AvailabilityAnswer answer = [] {
    AvailabilityAnswer a;
    int                count = 0;
    const cudaError_t  error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess)
    {
      cudaGetLastError();
      a.Reason = std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
    }
    else if (count <= 0)
    {
      a.Reason = "no CUDA device is visible";
    }
    else
    {
      a.Available = true;
      a.DeviceCount = count;
    }
    return a;
  }();
  return answer;
}

void
CheckDeviceIndex(int device)
{
  const int count = GetAvailability().DeviceCount;
  if (device < 0 || device >= count)
  {
    itkGenericExceptionMacro("invalid CUDA device " << device << ": expected an index in [0, " << count << ")"
                                                    << (count == 0 ? " and none is available: " : "")
                                                    << GetAvailability().Reason);
  }
}
} // namespace

void
CudaCheckError(cudaError_t error, const char * file, int line, const char * location)
{
  if (error == cudaSuccess)
  {
    return;
  }
  cudaGetLastError(); // clear the non-sticky error so the next call starts clean
  ThrowCudaError(cudaGetErrorName(error), cudaGetErrorString(error), static_cast<int>(error), file, line, location);
}

void
CudaCheckError(CUresult error, const char * file, int line, const char * location)
{
  if (error == CUDA_SUCCESS)
  {
    return;
  }
  // Resolve the driver's cuGetErrorName/String through the runtime so that the
  // library does not link libcuda (absent on machines without a driver).
  using NameFunction = CUresult (*)(CUresult, const char **);
  const char * name = "CUresult";
  const char * description = "unknown driver error (driver not loaded)";
  void *                          symbol = nullptr;
  cudaDriverEntryPointQueryResult status;
  if (cudaGetDriverEntryPointByVersion("cuGetErrorName", &symbol, 12000, cudaEnableDefault, &status) == cudaSuccess &&
      symbol != nullptr)
  {
    reinterpret_cast<NameFunction>(symbol)(error, &name);
  }
  symbol = nullptr;
  if (cudaGetDriverEntryPointByVersion("cuGetErrorString", &symbol, 12000, cudaEnableDefault, &status) ==
        cudaSuccess &&
      symbol != nullptr)
  {
    reinterpret_cast<NameFunction>(symbol)(error, &description);
  }
  cudaGetLastError();
  ThrowCudaError(name, description, static_cast<int>(error), file, line, location);
}

void
CudaCheckKernelLaunch(const char * kernelName, const char * file, int line)
{
  const cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess)
  {
    std::string location = std::string("launch of kernel ") + (kernelName != nullptr ? kernelName : "?");
    ThrowCudaError(cudaGetErrorName(error), cudaGetErrorString(error), static_cast<int>(error), file, line,
                   location.c_str());
  }
}

int
CudaGetLocalBlockSize(unsigned int imageDim)
{
  static constexpr int blockEdge[3] = { 256, 16, 4 };
  if (imageDim == 0 || imageDim > 3)
  {
    itkGenericExceptionMacro("CudaGetLocalBlockSize expects an image dimension of 1, 2 or 3, got " << imageDim);
  }
  return blockEdge[imageDim - 1];
}

bool
CudaIsPinnedHostMemory(const void * pointer) noexcept
{
  cudaPointerAttributes attributes{};
  if (pointer == nullptr || cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess)
  {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

bool
IsCudaAvailable()
{
  return GetAvailability().Available;
}

std::string
CudaUnavailableReason()
{
  return GetAvailability().Reason;
}

int
CudaGetAvailableDevices(std::vector<cudaDeviceProp> & devices)
{
  devices.clear();
  const int count = GetAvailability().DeviceCount;
  for (int i = 0; i < count; ++i)
  {
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, i) == cudaSuccess)
    {
      devices.push_back(properties);
    }
    else
    {
      cudaGetLastError();
    }
  }
  return static_cast<int>(devices.size());
}

std::pair<int, int>
GetCudaComputeCapability(int device)
{
  CheckDeviceIndex(device);
  int major = 0;
  int minor = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return { major, minor };
}

int
CudaGetMaxFlopsDev()
{
  static const int best = [] {
    int       bestDevice = -1;
    long long bestScore = -1;
    const int count = GetAvailability().DeviceCount;
    for (int i = 0; i < count; ++i)
    {
      int multiprocessors = 0;
      int clockKHz = 0;
      if (cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, i) != cudaSuccess ||
          cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, i) != cudaSuccess)
      {
        cudaGetLastError();
        continue;
      }
      const long long score = static_cast<long long>(multiprocessors) * clockKHz;
      if (score > bestScore)
      {
        bestScore = score;
        bestDevice = i;
      }
    }
    return bestDevice;
  }();
  return best;
}

int
CudaGetDefaultDevice()
{
  static const int device = [] {
    const int   count = GetAvailability().DeviceCount;
    const char * value = CudaDetail::EnvironmentText("ITK_CUDA_DEVICE");
    if (value != nullptr && *value != '\0')
    {
      uint64_t chosen = 0;
      if (CudaDetail::EnvironmentNumber("ITK_CUDA_DEVICE", &chosen) && chosen < static_cast<uint64_t>(count))
      {
        return static_cast<int>(chosen);
      }
      std::cerr << "CudaCommon: ignoring ITK_CUDA_DEVICE=" << value << ": expected an index in [0, " << count << ")"
                << std::endl;
    }
    return std::max(0, CudaGetMaxFlopsDev());
  }();
  return device;
}

void
CudaPrintDeviceInfo(int device, bool verbose)
{
  CheckDeviceIndex(device);
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  std::cout << "CUDA device " << device << ": " << p.name << ", compute capability " << p.major << '.' << p.minor
            << ", " << p.multiProcessorCount << " multiprocessors, " << (p.totalGlobalMem >> 20) << " MiB"
            << std::endl;
  if (verbose)
  {
    std::cout << "  L2 cache: " << (p.l2CacheSize >> 10) << " KiB" << std::endl
              << "  shared memory per block: " << p.sharedMemPerBlock << " bytes" << std::endl
              << "  registers per block: " << p.regsPerBlock << std::endl
              << "  warp size: " << p.warpSize << std::endl
              << "  max threads per block: " << p.maxThreadsPerBlock << std::endl
              << "  max block dimensions: " << p.maxThreadsDim[0] << " x " << p.maxThreadsDim[1] << " x "
              << p.maxThreadsDim[2] << std::endl
              << "  max grid dimensions: " << p.maxGridSize[0] << " x " << p.maxGridSize[1] << " x "
              << p.maxGridSize[2] << std::endl
              << "  memory bus width: " << p.memoryBusWidth << " bits" << std::endl
              << "  concurrent copy engines: " << p.asyncEngineCount << std::endl
              << "  unified addressing: " << (p.unifiedAddressing ? "yes" : "no") << std::endl
              << "  PCI bus/device: " << p.pciBusID << '/' << p.pciDeviceID << std::endl;
  }
}

int
CudaSelectPlatform(const char * name)
{
  if (name == nullptr)
  {
    return -1;
  }
  std::vector<cudaDeviceProp> devices;
  const int                   count = CudaGetAvailableDevices(devices);
  for (int i = 0; i < count; ++i)
  {
    if (std::string(devices[i].name).find(name) != std::string::npos)
    {
      return i;
    }
  }
  return -1;
}

void
CudaStreamWaitFor(cudaStream_t waiter, cudaStream_t producer)
{
  CUDA_CHECK(CudaDetail::StreamWaitForStream(waiter, producer));
}

namespace
{
thread_local CudaStreamOrderingScope * innermostScope = nullptr;
} // namespace

bool
CudaPooledStreamsAreBlocking() noexcept
{
  return CudaDetail::PooledStreamsBlock();
}

CudaStreamOrderingScope::CudaStreamOrderingScope(cudaStream_t stream, bool legacyStreamToo)
  : m_Stream(stream)
  , m_LegacyStreamToo(legacyStreamToo)
  , m_Enclosing(innermostScope)
{
  innermostScope = this;
}

CudaStreamOrderingScope::~CudaStreamOrderingScope()
{
  if (!m_Open)
  {
    return;
  }
  if (innermostScope == this)
  {
    const cudaError_t error = this->Close();
    if (error != cudaSuccess)
    {
      itkGenericOutputMacro("CudaStreamOrderingScope: ordering the used streams after the scope's stream failed: "
                            << cudaGetErrorName(error) << ": " << cudaGetErrorString(error));
    }
    return;
  }
  // Closed out of order (a scope opened later outlives this one): unlink
  // this one so that no access reaches a destroyed scope.
  for (CudaStreamOrderingScope * scope = innermostScope; scope != nullptr; scope = scope->m_Enclosing)
  {
    if (scope->m_Enclosing == this)
    {
      scope->m_Enclosing = m_Enclosing;
      break;
    }
  }
  itkGenericOutputMacro("CudaStreamOrderingScope destroyed while a scope opened after it was still open");
}

cudaError_t
CudaStreamOrderingScope::Close() noexcept
{
  m_Open = false;
  innermostScope = m_Enclosing; // the waits below are not accesses of a scope
  cudaError_t error = cudaSuccess;
  for (auto used = m_Used.begin(); used != m_Used.end() && error == cudaSuccess; ++used)
  {
    error = CudaDetail::StreamWaitForStream(*used, m_Stream);
  }
  return error;
}

void
CudaStreamOrderingScope::Finish()
{
  if (!m_Open)
  {
    return;
  }
  if (innermostScope != this)
  {
    itkGenericExceptionMacro("CudaStreamOrderingScope::Finish(): a scope opened after this one is still open");
  }
  CUDA_CHECK(this->Close());
}

void
CudaStreamOrderingScope::WaitFor(cudaStream_t producer)
{
  if (producer == m_Stream)
  {
    return;
  }
  CudaStreamWaitFor(m_Stream, producer);
  if (!this->HasUsed(producer))
  {
    m_Used.push_back(producer);
  }
}

bool
CudaStreamOrderingScope::HasUsed(cudaStream_t stream) const
{
  return std::find(m_Used.begin(), m_Used.end(), stream) != m_Used.end();
}

CudaStreamOrderingScope *
CudaStreamOrderingScope::GetCurrent() noexcept
{
  return innermostScope;
}

namespace
{
// Makes `peer`'s memory accessible from `device`; true when it now is.
bool
EnablePeerAccessFrom(int device, int peer) noexcept
{
  int canAccess = 0;
  if (cudaDeviceCanAccessPeer(&canAccess, device, peer) != cudaSuccess || canAccess == 0)
  {
    cudaGetLastError();
    return false;
  }
  const CudaDetail::DeviceScope onDevice(device);
  if (onDevice.Status() != cudaSuccess)
  {
    return false;
  }
  const cudaError_t error = cudaDeviceEnablePeerAccess(peer, 0);
  if (error != cudaSuccess)
  {
    cudaGetLastError(); // also cudaErrorPeerAccessAlreadyEnabled: not sticky, clear it
  }
  return error == cudaSuccess || error == cudaErrorPeerAccessAlreadyEnabled;
}
} // namespace

bool
CudaEnablePeerAccess(int device, int peer) noexcept
{
  if (device == peer)
  {
    return device >= 0;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess)
  {
    cudaGetLastError();
    return false;
  }
  if (device < 0 || peer < 0 || device >= count || peer >= count || count > 64)
  {
    return false;
  }
  // One answer per pair and process: 0 unknown, 1 enabled, 2 not possible.
  static std::mutex  mutex;
  static signed char known[64][64] = {};
  std::lock_guard<std::mutex> lock(mutex);
  signed char & answer = known[std::min(device, peer)][std::max(device, peer)];
  if (answer == 0)
  {
    answer = EnablePeerAccessFrom(device, peer) && EnablePeerAccessFrom(peer, device) ? 1 : 2;
  }
  return answer == 1;
}

CudaDeviceGuard::CudaDeviceGuard(int device)
{
  CUDA_CHECK(CudaDetail::EnterDevice(device, &m_PreviousDevice, &m_Changed));
}

CudaDeviceGuard::~CudaDeviceGuard()
{
  CudaDetail::LeaveDevice(m_PreviousDevice, m_Changed);
}
} // namespace itk

#include "itkCudaKernelLaunch.hcu"

#include <algorithm>
#include <atomic>

namespace itk
{
int
CudaMultiprocessorCount()
{
  // Cached per device: querying costs a driver call per launch otherwise.
  static std::atomic<int> multiprocessorCount[64] = {};
  int                     device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  int count = device < 64 ? multiprocessorCount[device].load(std::memory_order_relaxed) : 0;
  if (count == 0)
  {
    CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    if (device < 64)
    {
      multiprocessorCount[device].store(count, std::memory_order_relaxed);
    }
  }
  return count;
}

unsigned int
CudaGridSizeForElements(size_t numberOfElements, unsigned int blockSize)
{
  if (blockSize == 0)
  {
    itkGenericExceptionMacro("CudaGridSizeForElements expects a block size > 0");
  }
  const int count = CudaMultiprocessorCount();
  // 2048 resident threads per SM on recent GPUs: 8 blocks of 256 fill one;
  // four waves keep the grid-stride loop balanced.
  const size_t wanted = static_cast<size_t>(count) * (2048 / std::min(blockSize, 2048u)) * 4;
  const size_t needed = (numberOfElements + blockSize - 1) / blockSize;
  return static_cast<unsigned int>(std::max<size_t>(1, std::min(wanted, needed)));
}
} // namespace itk
