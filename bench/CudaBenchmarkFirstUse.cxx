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

// CudaCommonBenchmark: the first-use rows and the cold one-shot chain rows
// (with the child process they start).

#include "CudaBenchmarkSupport.h"

#include "itkCudaHostMemoryPool.h"
#include "itkCudaSquareImage.hcu"
#include "itkCudaSquareImageFilter.h"

#include <cerrno>
#include <cstring>
#include <iomanip>
#include <sstream>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char ** environ;

namespace CudaBenchmark
{
/** First use of a fresh N^3 float image, a new one every run, step by step:
 * New+SetRegions+Allocate; FillBuffer; the first upload
 * (GetConstGPUBufferPointer(), which also allocates the device buffer); the
 * first download (const GetBufferPointer()) after the square kernel wrote the
 * GPU copy in place (untimed, after GetGPUBufferPointer()); and their sum.
 * Ceilings: the same steps on an itk::Image whose device buffer is cudaMalloc'd
 * in its upload step too, with cudaMemcpy from/to its pageable buffer.
 * Releasing the images and device buffers is untimed. The CudaImage's host
 * buffer is fresh memory too: CudaHostMemoryPool's cache is emptied before
 * every run (a note says how the buffers were got). */
void
MeasureFirstUse(Results & results, unsigned long n, const Options & options)
{
  using PlainImageType = itk::Image<float, 3>;
  using CudaImageType = itk::CudaImage<float, 3>;
  const size_t      count = static_cast<size_t>(n) * n * n;
  const size_t      bytes = count * sizeof(float);
  const std::string shape = CubeShape(n);
  std::cout << "[" << shape << "] first use of a fresh float image\n";

  constexpr float value = 1.5f;
  const float     squared = SquareLikeITK(value);
  // Three pixels every run; in the first (warm-up) run also the first wrong one, if any.
  const auto check = [&](const float * pixels, unsigned int run, const std::string & what) {
    std::vector<size_t> indices{ 0, count / 2, count - 1 };
    if (run == 0)
    {
      const auto wrong = [squared](float pixel) { return !PixelsMatch(pixel, squared); };
      indices.push_back(static_cast<size_t>(std::find_if(pixels, pixels + count, wrong) - pixels));
    }
    for (const size_t i : indices)
    {
      if (i < count)
      {
        CheckPixels(
          pixels + i, &squared, 1, what + " (pixel " + std::to_string(i) + " of " + std::to_string(count) + ")");
      }
    }
  };
  const auto square = [count](void * device) {
    itk::CudaSquareImage<float>(count, static_cast<const float *>(device), static_cast<float *>(device));
    CUDA_CHECK(cudaDeviceSynchronize());
  };

  const std::string                   cudaWhat = "CudaImage first use";
  CudaImageType::Pointer              cuda;
  itk::CudaHostMemoryPool &           pool = itk::CudaHostMemoryPool::GetInstance();
  itk::CudaHostMemoryPool::Statistics poolBefore;
  const std::vector<Samples> cudaSteps = TimeSteps(4, options.repeats, true, [&](unsigned int run, auto && step) {
    cuda = nullptr;      // the previous run's image
    pool.ReleaseCache(); // and its buffer: the next image's is fresh memory, as in a fresh process
    if (run == WarmUpRuns)
    {
      poolBefore = pool.GetStatistics();
    }
    step([&] {
      cuda = CudaImageType::New();
      cuda->SetRegions(CubeSize<CudaImageType>(n));
      cuda->Allocate();
    });
    step([&] { cuda->FillBuffer(value); });
    itk::CudaDataManager::Pointer manager = cuda->GetCudaDataManager();
    step([&] { manager->GetConstGPUBufferPointer(); });
    square(manager->GetGPUBufferPointer()); // GPU copy current, CPU copy stale
    const float * pixels = nullptr;
    step([&] { pixels = static_cast<const CudaImageType *>(cuda.GetPointer())->GetBufferPointer(); });
    ExpectTransfers({}, manager->GetTransferStatistics(), 1, 1, bytes, cudaWhat);
    check(pixels, run, cudaWhat);
  });
  cuda = nullptr;
  const itk::CudaHostMemoryPool::Statistics poolAfter = pool.GetStatistics();

  const std::string          plainWhat = "itk::Image first use";
  PlainImageType::Pointer    plain;
  DeviceMemory               device;
  const std::vector<Samples> plainSteps = TimeSteps(4, options.repeats, true, [&](unsigned int run, auto && step) {
    plain = nullptr;
    device.reset();
    step([&] {
      plain = PlainImageType::New();
      plain->SetRegions(CubeSize<PlainImageType>(n));
      plain->Allocate();
    });
    step([&] { plain->FillBuffer(value); });
    step([&] {
      device = AllocateDeviceMemory(bytes);
      CUDA_CHECK(cudaMemcpy(device.get(), plain->GetBufferPointer(), bytes, cudaMemcpyHostToDevice));
    });
    square(device.get());
    step([&] { CUDA_CHECK(cudaMemcpy(plain->GetBufferPointer(), device.get(), bytes, cudaMemcpyDeviceToHost)); });
    check(plain->GetBufferPointer(), run, plainWhat);
  });
  plain = nullptr;
  device.reset();

  const char * const cudaNames[] = { "New+SetRegions+Allocate",
                                     "FillBuffer",
                                     "upload (GetConstGPUBufferPointer, incl. cudaMalloc)",
                                     "download after a GPU write (const GetBufferPointer)",
                                     "total (allocate+fill+upload+download)" };
  const char * const plainNames[] = { "New+SetRegions+Allocate",
                                      "FillBuffer",
                                      "cudaMalloc + cudaMemcpy H2D, pageable",
                                      "cudaMemcpy D2H, pageable",
                                      "total (allocate+fill+upload+download)" };
  for (size_t i = 0; i < cudaSteps.size(); ++i)
  {
    const std::string plainName = plainWhat + ": " + plainNames[i];
    results.Add({ cudaWhat + ": " + cudaNames[i], n, shape, cudaSteps[i], "ms", plainName, plainSteps[i].median });
    results.Add({ plainName, n, shape, plainSteps[i], "ms", "", NotANumber });
  }
  results.AddNote("first use at " + shape + ": the CudaImages' host buffers of the " + std::to_string(options.repeats) +
                  " timed runs: " + std::to_string(poolAfter.CacheHits - poolBefore.CacheHits) +
                  " from the pool's cache, " +
                  std::to_string(poolAfter.PinnedAllocations - poolBefore.PinnedAllocations) + " pinned, " +
                  std::to_string(poolAfter.PinnedFallbacks - poolBefore.PinnedFallbacks) + " failed pinnings");
}

namespace
{
/** The chain of the cold one-shot rows, all new: OneShotChainLength
 * out-of-place CudaSquareImageFilters on a host-filled N^3 float CudaImage.
 * Made untimed; Run() updates the last filter and reads its output on the
 * host (const GetBufferPointer()); Check() compares a few pixels with x^8. */
class OneShotChain
{
public:
  using CudaImageType = itk::CudaImage<float, 3>;
  using FilterType = itk::CudaSquareImageFilter<CudaImageType>;

  explicit OneShotChain(unsigned long n)
    : m_Input(MakeVolume<CudaImageType>(n, 0.5, 1.5, 12))
  {
    const size_t  count = m_Input->GetBufferedRegion().GetNumberOfPixels();
    const float * input = static_cast<const CudaImageType *>(m_Input.GetPointer())->GetBufferPointer();
    for (size_t k = 0; k < 8; ++k)
    {
      const size_t i = k * (count - 1) / 7;
      float        value = input[i];
      for (unsigned int j = 0; j < OneShotChainLength; ++j)
      {
        value = SquareLikeITK(value);
      }
      m_Expected.emplace_back(i, value);
    }
    for (unsigned int k = 0; k < OneShotChainLength; ++k)
    {
      auto filter = FilterType::New();
      filter->InPlaceOff();
      filter->SetInput(k == 0 ? m_Input.GetPointer() : m_Filters.back()->GetOutput());
      m_Filters.push_back(filter);
    }
  }

  void
  Run()
  {
    m_Filters.back()->Update();
    m_Output = static_cast<const CudaImageType *>(m_Filters.back()->GetOutput())->GetBufferPointer();
  }

  void
  Check(const std::string & what) const
  {
    for (const auto & expected : m_Expected)
    {
      CheckPixels(
        m_Output + expected.first, &expected.second, 1, what + " (pixel " + std::to_string(expected.first) + ")");
    }
  }

  /** {host->device, device->host} copies of the input and every output so far. */
  std::pair<uint64_t, uint64_t>
  Transfers() const
  {
    std::pair<uint64_t, uint64_t> copies{ 0, 0 };
    for (unsigned int k = 0; k <= OneShotChainLength; ++k)
    {
      const CudaImageType * image = k == 0 ? m_Input.GetPointer() : m_Filters[k - 1]->GetOutput();
      const auto            statistics = image->GetCudaDataManager()->GetTransferStatistics();
      copies.first += statistics.HostToDeviceCount;
      copies.second += statistics.DeviceToHostCount;
    }
    return copies;
  }

private:
  CudaImageType::Pointer                m_Input;
  std::vector<FilterType::Pointer>      m_Filters;
  std::vector<std::pair<size_t, float>> m_Expected;
  const float *                         m_Output{ nullptr };
};

const char * const ColdChainTag = "cold-chain:";
} // namespace

/** The child process of the cold chain rows (hidden option --cold-chain N):
 * the CUDA context and the chain are made untimed, Run() is timed once; prints
 * "cold-chain: <ms> <host->device copies> <device->host copies>". */
int
RunColdChain(unsigned long n)
{
  if (!itk::IsCudaAvailable())
  {
    std::cerr << "--cold-chain: no usable CUDA device (" << itk::CudaUnavailableReason() << ")\n";
    return EXIT_FAILURE;
  }
  CUDA_CHECK(cudaFree(nullptr)); // the context: made by the input's allocation anyway
  OneShotChain  chain(n);
  const auto    noop = [] {};
  const Samples time = TimeOnHost(
    0, 1, true, noop, [&] { chain.Run(); }, noop);
  chain.Check("cold one-shot chain");
  const auto copies = chain.Transfers();
  std::cout << ColdChainTag << ' ' << std::setprecision(9) << time.median << ' ' << copies.first << ' ' << copies.second
            << std::endl;
  return EXIT_SUCCESS;
}

namespace
{
/** Runs this program again (/proc/self/exe) with --cold-chain `n`; returns
 * the time and copies its one run reported. \throws itk::ExceptionObject
 * when it fails or reports no time. */
std::pair<double, std::pair<uint64_t, uint64_t>>
TimeChainInFreshProcess(unsigned long n)
{
  int output[2] = { -1, -1 };
  if (pipe2(output, O_CLOEXEC) != 0)
  {
    itkGenericExceptionMacro("pipe2 failed: " << std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, output[1], STDOUT_FILENO); // stderr: the benchmark's
  std::string program = "/proc/self/exe";
  std::string option = "--cold-chain";
  std::string size = std::to_string(n);
  char *      arguments[] = { &program[0], &option[0], &size[0], nullptr };
  pid_t       child = -1;
  const int   spawnError = posix_spawn(&child, program.c_str(), &actions, nullptr, arguments, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(output[1]);
  std::string text;
  char        buffer[4096];
  ssize_t     got = 0;
  while (spawnError == 0 && ((got = read(output[0], buffer, sizeof(buffer))) > 0 || (got < 0 && errno == EINTR)))
  {
    text.append(buffer, static_cast<size_t>(std::max<ssize_t>(got, 0)));
  }
  close(output[0]);
  if (spawnError != 0)
  {
    itkGenericExceptionMacro("cannot start " << program << ": " << std::strerror(spawnError));
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
  {
    if (errno != EINTR)
    {
      itkGenericExceptionMacro("waitpid failed: " << std::strerror(errno));
    }
  }
  std::istringstream                               lines(text);
  std::string                                      line;
  std::pair<double, std::pair<uint64_t, uint64_t>> reported{ NotANumber, { 0, 0 } };
  while (std::getline(lines, line))
  {
    std::istringstream fields(line);
    std::string        tag;
    if (fields >> tag && tag == ColdChainTag &&
        !(fields >> reported.first >> reported.second.first >> reported.second.second))
    {
      reported.first = NotANumber;
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !std::isfinite(reported.first) || reported.first <= 0.0)
  {
    itkGenericExceptionMacro("the cold chain child ("
                             << program << " --cold-chain " << n << ") "
                             << (WIFEXITED(status) ? "exited with " + std::to_string(WEXITSTATUS(status))
                                                   : "was killed by signal " + std::to_string(WTERMSIG(status)))
                             << " and printed '" << text << "' (expected '" << ColdChainTag << " <ms> ...')");
  }
  return reported;
}
} // namespace

/** The cold one-shot chain: OneShotChain::Run() in fresh processes, against
 * the same chain (all new each run, made untimed) run in this process after
 * warm-up runs, plus ColdAllowanceMilliseconds. */
void
MeasureColdChain(Results & results, unsigned long n, const Options & options)
{
  const std::string shape = CubeShape(n);
  const std::string name =
    "one-shot chain of " + std::to_string(OneShotChainLength) + " new CudaSquareImageFilters, Update + host read";
  std::cout << "[" << shape << "] " << name << ", warm and in fresh processes\n";
  std::unique_ptr<OneShotChain> chain;
  std::pair<uint64_t, uint64_t> copies{ 0, 0 };
  const Samples                 warm = TimeOnHost(
    WarmUpRuns,
    options.repeats,
    true,
    [&] {
      chain.reset();
      chain = std::make_unique<OneShotChain>(n);
    },
    [&] { chain->Run(); },
    [&] {
      chain->Check("warm " + name);
      const auto made = chain->Transfers();
      copies = { std::max(copies.first, made.first), std::max(copies.second, made.second) };
    });
  chain.reset();

  const unsigned int  runs = std::max(MinimumColdRuns, std::min(options.repeats, MaximumColdRuns));
  std::vector<double> cold;
  for (unsigned int run = 0; run < runs; ++run)
  {
    const auto reported = TimeChainInFreshProcess(n);
    cold.push_back(reported.first);
    copies = { std::max(copies.first, reported.second.first), std::max(copies.second, reported.second.second) };
  }
  const std::string warmName = "warm " + name + " (this process)";
  results.Add({ "cold " + name + " (fresh process, median of " + std::to_string(runs) + ")",
                n,
                shape,
                Summarize(std::move(cold)),
                "ms",
                "warm chain + " + FormatNumber(ColdAllowanceMilliseconds) + " ms",
                warm.median + ColdAllowanceMilliseconds });
  results.Add({ warmName, n, shape, warm, "ms", "", NotANumber });
  if (copies.first != 1 || copies.second != 1)
  {
    results.AddNote("one-shot chain at " + shape + ": a run made up to " + std::to_string(copies.first) +
                    " host->device and " + std::to_string(copies.second) +
                    " device->host copies (one of each expected)");
  }
}
} // namespace CudaBenchmark
