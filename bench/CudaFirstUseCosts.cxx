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

// CudaFirstUseCosts: what a fresh process pays the first time, one line per
// step, each on fresh memory and timed once (run the program several times
// for a spread). The steps are the parts of a one-shot GPU pipeline's cold
// run (docs/performance.md, "First use"): the CUDA context, the first device
// allocation, the first kernel launch, and the ways to get a host buffer the
// GPU can write into: pinned anew (cudaHostAlloc, cudaHostRegister of fresh
// or of touched pages), or pageable and written by a copy (the staged copy,
// cudaMemcpy), with and without transparent huge pages.
//
// Usage: CudaFirstUseCosts [--mib N]   (default 512)

#include "itkCudaSquareImage.hcu"
#include "itkCudaStagedCopy.h"
#include "itkCudaUtil.h"

#include <sys/mman.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <string>

namespace
{
using Clock = std::chrono::steady_clock;

double
TimeMilliseconds(const std::function<void()> & step)
{
  const auto start = Clock::now();
  step();
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void
Report(const std::string & what, double milliseconds, size_t bytes = 0)
{
  std::cout << std::left << std::setw(72) << what << std::right << std::fixed << std::setprecision(2) << std::setw(10)
            << milliseconds << " ms";
  if (bytes > 0)
  {
    std::cout << std::setw(9) << std::setprecision(1) << bytes / milliseconds / 1e6 << " GB/s";
  }
  std::cout << std::endl;
}

/** Fresh anonymous pages, 2 MiB-aligned, with or without huge-page advice. */
class Pages
{
public:
  Pages(size_t bytes, bool huge)
    : m_Bytes(bytes)
  {
    m_Base = static_cast<char *>(
      mmap(nullptr, bytes + (size_t{ 2 } << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (m_Base == MAP_FAILED)
    {
      std::cerr << "mmap of " << bytes << " bytes failed\n";
      std::exit(EXIT_FAILURE);
    }
    const size_t huge2M = size_t{ 2 } << 20;
    m_Data = m_Base + (huge2M - reinterpret_cast<uintptr_t>(m_Base) % huge2M) % huge2M;
    madvise(m_Data, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  }
  ~Pages() { munmap(m_Base, m_Bytes + (size_t{ 2 } << 20)); }
  Pages(const Pages &) = delete;
  Pages &
  operator=(const Pages &) = delete;
  char *
  Data() const
  {
    return m_Data;
  }

private:
  size_t m_Bytes;
  char * m_Base{ nullptr };
  char * m_Data{ nullptr };
};

std::string
TransparentHugePages()
{
  std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string   line;
  std::getline(file, line);
  return line.empty() ? "unknown" : line;
}
} // namespace

int
main(int argc, char * argv[])
{
  size_t mib = 512;
  if (argc == 3 && std::string(argv[1]) == "--mib")
  {
    mib = std::strtoul(argv[2], nullptr, 10);
  }
  else if (argc != 1)
  {
    std::cerr << "usage: " << argv[0] << " [--mib N]\n";
    return EXIT_FAILURE;
  }
  const size_t bytes = mib << 20;
  if (!itk::IsCudaAvailable())
  {
    std::cout << "CudaFirstUseCosts: skipped, no usable CUDA device (" << itk::CudaUnavailableReason() << ")\n";
    return EXIT_SUCCESS;
  }
  std::cout << "transparent huge pages: " << TransparentHugePages() << "; " << mib << " MiB buffers\n";
  try
  {
    Report("CUDA context (cudaFree(nullptr))", TimeMilliseconds([] { CUDA_CHECK(cudaFree(nullptr)); }));
    void * device = nullptr;
    Report("first cudaMalloc", TimeMilliseconds([&] { CUDA_CHECK(cudaMalloc(&device, bytes)); }));
    void * second = nullptr;
    Report("second cudaMalloc", TimeMilliseconds([&] { CUDA_CHECK(cudaMalloc(&second, bytes)); }));
    Report("first square kernel launch + sync (module load), 1 pixel", TimeMilliseconds([&] {
             itk::CudaSquareImage<float>(1, static_cast<float *>(device), static_cast<float *>(device));
             CUDA_CHECK(cudaDeviceSynchronize());
           }));
    Report("square kernel, whole buffer (warm)", TimeMilliseconds([&] {
             itk::CudaSquareImage<float>(
               bytes / sizeof(float), static_cast<float *>(device), static_cast<float *>(second));
             CUDA_CHECK(cudaDeviceSynchronize());
           }));
    CUDA_CHECK(cudaMemset(device, 0, bytes));
    CUDA_CHECK(cudaDeviceSynchronize());
    {
      Pages small(size_t{ 16 } << 20, false);
      Report("first staged copy, 16 MiB D2H (makes a staging lane)", TimeMilliseconds([&] {
               CUDA_CHECK(itk::CudaStagedCopyDeviceToHost(small.Data(), device, size_t{ 16 } << 20));
             }));
      Report("second staged copy, same", TimeMilliseconds([&] {
               CUDA_CHECK(itk::CudaStagedCopyDeviceToHost(small.Data(), device, size_t{ 16 } << 20));
             }));
    }

    void * pinned = nullptr;
    Report("cudaHostAlloc, fresh", TimeMilliseconds([&] { CUDA_CHECK(cudaHostAlloc(&pinned, bytes, 0)); }));
    Report("  D2H into it", TimeMilliseconds([&] { CUDA_CHECK(cudaMemcpy(pinned, device, bytes, cudaMemcpyDeviceToHost)); }), bytes);
    Report("cudaFreeHost", TimeMilliseconds([&] { CUDA_CHECK(cudaFreeHost(pinned)); }));

    for (const bool huge : { true, false })
    {
      const std::string pages = huge ? " (huge-page advice)" : " (4 KiB pages)";
      {
        Pages fresh(bytes, huge);
        Report("cudaHostRegister of fresh pages" + pages,
               TimeMilliseconds([&] { CUDA_CHECK(cudaHostRegister(fresh.Data(), bytes, cudaHostRegisterPortable)); }));
        Report("  cudaHostUnregister", TimeMilliseconds([&] { CUDA_CHECK(cudaHostUnregister(fresh.Data())); }));
      }
      {
        Pages touched(bytes, huge);
        Report("first touch (memset, 1 thread)" + pages, TimeMilliseconds([&] { std::memset(touched.Data(), 1, bytes); }), bytes);
        Report("  cudaHostRegister of those touched pages",
               TimeMilliseconds([&] { CUDA_CHECK(cudaHostRegister(touched.Data(), bytes, cudaHostRegisterPortable)); }));
        Report("  D2H into them, registered", TimeMilliseconds([&] { CUDA_CHECK(cudaMemcpy(touched.Data(), device, bytes, cudaMemcpyDeviceToHost)); }), bytes);
        CUDA_CHECK(cudaHostUnregister(touched.Data()));
        Report("  staged D2H into them, touched", TimeMilliseconds([&] { CUDA_CHECK(itk::CudaStagedCopyDeviceToHost(touched.Data(), device, bytes)); }), bytes);
      }
      {
        Pages fresh(bytes, huge);
        Report("staged D2H into fresh pages" + pages, TimeMilliseconds([&] { CUDA_CHECK(itk::CudaStagedCopyDeviceToHost(fresh.Data(), device, bytes)); }), bytes);
      }
      {
        Pages fresh(bytes, huge);
        Report("parallel prefault of fresh pages" + pages,
               TimeMilliseconds([&] { itk::CudaPrefaultHostMemory(fresh.Data(), bytes); }), bytes);
        Report("  staged D2H into them", TimeMilliseconds([&] { CUDA_CHECK(itk::CudaStagedCopyDeviceToHost(fresh.Data(), device, bytes)); }), bytes);
        Report("  parallel prefault again (pages present)",
               TimeMilliseconds([&] { itk::CudaPrefaultHostMemory(fresh.Data(), bytes); }), bytes);
      }
      {
        Pages fresh(bytes, huge);
        Report("cudaMemcpy D2H into fresh pages" + pages, TimeMilliseconds([&] { CUDA_CHECK(cudaMemcpy(fresh.Data(), device, bytes, cudaMemcpyDeviceToHost)); }), bytes);
      }
      {
        Pages fresh(bytes, huge);
        std::memset(fresh.Data(), 1, bytes);
        Report("staged H2D from touched pages" + pages, TimeMilliseconds([&] { CUDA_CHECK(itk::CudaStagedCopyHostToDevice(device, fresh.Data(), bytes)); }), bytes);
      }
    }
    CUDA_CHECK(cudaFree(second));
    CUDA_CHECK(cudaFree(device));
  }
  catch (const itk::ExceptionObject & error)
  {
    std::cerr << "CudaFirstUseCosts: " << error.GetDescription() << '\n';
    return EXIT_FAILURE;
  }
  return EXIT_SUCCESS;
}
