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

#ifndef CudaBenchmarkSupport_h
#define CudaBenchmarkSupport_h

/** \file CudaBenchmarkSupport.h
 * \brief What the files of CudaCommonBenchmark share (CudaBenchmarkSupport.cxx
 * defines the functions declared here): the options, the results, test data,
 * raw CUDA resources, timing, and the measurement groups, one file each.
 */

#include "itkCudaCommonConfiguration.h"
#include "itkCudaImage.h"
#include "itkCudaUtil.h"

#include "itkImage.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace CudaBenchmark
{
using Clock = std::chrono::steady_clock;

// Largest edge accepted: a 1024^3 double volume is 8 GiB, the host budget.
constexpr unsigned long MaximumSize = 1024;
// Untimed runs before the timed ones (module loading, first-touch, allocators).
constexpr unsigned int WarmUpRuns = 2;
// The per-image cost is about a microsecond: many more samples than --repeats.
constexpr unsigned int  PerImageWarmUpRuns = 1000;
constexpr unsigned int  PerImageRuns = 10000;
constexpr unsigned long PerImageEdge = 16;
constexpr unsigned int  ChainLength = 10;
// The cold one-shot chain: its length, its preferred edge, the fresh processes
// timed (at least 3, at most 5: each fills a volume and creates a CUDA
// context), and how much slower than the warm chain it may be.
constexpr unsigned int  OneShotChainLength = 3;
constexpr unsigned long OneShotChainEdge = 512;
constexpr unsigned int  MinimumColdRuns = 3;
constexpr unsigned int  MaximumColdRuns = 5;
constexpr double        ColdAllowanceMilliseconds = 50.0;

const double NotANumber = std::numeric_limits<double>::quiet_NaN();

struct Options
{
  std::vector<unsigned long> sizes{ 256, 512 };
  unsigned int               repeats{ 10 };
  std::string                jsonFile;
  unsigned long              splitSize{ 1024 };
  unsigned long              coldChainSize{ 0 }; // hidden --cold-chain N: the child run of the cold chain rows
  bool                       kernelsOnly{ false }; // --kernels-only: the device kernel rows alone
  bool                       neighborhoodOnly{ false }; // --neighborhood-only: the neighborhood kernel rows alone
};

void
PrintUsage(std::ostream & os, const char * program);

bool
ParseArguments(int argc, char * argv[], Options & options, bool & helpRequested);

// ---------------------------------------------------------------------------
// Statistics and results

/** Median, smallest and largest of the timed runs of one measurement. */
struct Samples
{
  double median{ NotANumber };
  double minimum{ NotANumber };
  double maximum{ NotANumber };
};

Samples
Summarize(std::vector<double> values);

Samples
ToBandwidth(const Samples & milliseconds, double bytes);

Samples
Scaled(const Samples & samples, double factor);

Samples
Constant(double value);

struct Row
{
  std::string   name;
  unsigned long size{ 0 };
  std::string   shape;
  Samples       samples;
  std::string   unit;
  std::string   ceilingName;
  double        ceilingValue{ NotANumber };

  /** value / ceiling value; NaN when there is no ceiling. */
  double
  Ratio() const
  {
    return std::isfinite(ceilingValue) && ceilingValue != 0.0 ? samples.median / ceilingValue : NotANumber;
  }
};

std::string
FormatNumber(double value);

/** The rows measured so far, the notes that qualify them, and the run's context. */
class Results
{
public:
  void
  Add(Row row)
  {
    m_Rows.push_back(std::move(row));
  }

  void
  AddNote(const std::string & note)
  {
    std::cout << "Note: " << note << '\n';
    m_Notes.push_back(note);
  }

  std::string  device{ "none" };
  std::string  skipReason;
  unsigned int repeats{ 0 };
  unsigned int itkThreads{ 0 };

  bool
  GPURowsSkipped() const
  {
    return !skipReason.empty();
  }

  void
  PrintTable(std::ostream & os) const;

  void
  WriteJson(const std::string & fileName) const;

private:
  std::vector<Row>         m_Rows;
  std::vector<std::string> m_Notes;
};

std::string
CubeShape(unsigned long n);

std::string
PlaneShape(unsigned long width, unsigned long height);

const char *
PixelName(float);
const char *
PixelName(double);
const char *
PixelName(unsigned char);

// ---------------------------------------------------------------------------
// Test data

/** SplitMix64: a well-mixed 64-bit value for every index, so that the data
 * has no structure a cache or a compressor could exploit. */
inline uint64_t
MixIndex(uint64_t index, uint64_t seed)
{
  uint64_t z = index + seed * 0x9E3779B97F4A7C15ull + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/** Pseudo-random values in [low, high) (floating point) or [low, high]
 * (integers); never all zero. */
template <typename T>
void
FillPattern(T * data, size_t count, double low, double high, uint64_t seed)
{
  for (size_t i = 0; i < count; ++i)
  {
    const uint64_t bits = MixIndex(i, seed);
    if (std::is_floating_point<T>::value)
    {
      const double unit = static_cast<double>(bits >> 11) * 0x1.0p-53; // [0, 1)
      data[i] = static_cast<T>(low + (high - low) * unit);
    }
    else
    {
      const auto span = static_cast<uint64_t>(high - low) + 1;
      data[i] = static_cast<T>(low + static_cast<double>(bits % span));
    }
  }
}

/** ITK's SquareImageFilter for one pixel: the square in double precision,
 * converted back to the pixel type. */
template <typename T>
T
SquareLikeITK(T value)
{
  const double real = static_cast<double>(value);
  return static_cast<T>(real * real);
}

/** Floating point: equal within a few units in the last place; integers: equal. */
template <typename T>
bool
PixelsMatch(T actual, T expected)
{
  if (std::is_floating_point<T>::value)
  {
    const double tolerance = 4.0 * std::numeric_limits<T>::epsilon() * std::abs(static_cast<double>(expected));
    return std::abs(static_cast<double>(actual) - static_cast<double>(expected)) <= tolerance; // false for NaN
  }
  return actual == expected;
}

/** \throws itk::ExceptionObject naming the first pixel where `actual` differs from `expected`. */
template <typename T>
void
CheckPixels(const T * actual, const T * expected, size_t count, const std::string & what)
{
  for (size_t i = 0; i < count; ++i)
  {
    if (!PixelsMatch(actual[i], expected[i]))
    {
      itkGenericExceptionMacro(<< what << ": pixel " << i << " of " << count << " is " << +actual[i] << ", expected "
                               << +expected[i] << "; the benchmark does not time wrong results");
    }
  }
}

// ---------------------------------------------------------------------------
// CUDA resources (raw CUDA runtime: the ceilings must not go through CudaCommon)

struct DeviceMemoryDeleter
{
  void
  operator()(void * pointer) const noexcept
  {
    const cudaError_t error = cudaFree(pointer);
    if (error != cudaSuccess)
    {
      std::cerr << "Warning: cudaFree failed: " << cudaGetErrorName(error) << '\n';
    }
  }
};
using DeviceMemory = std::unique_ptr<void, DeviceMemoryDeleter>;

DeviceMemory
AllocateDeviceMemory(size_t bytes);

struct PinnedMemoryDeleter
{
  void
  operator()(void * pointer) const noexcept
  {
    const cudaError_t error = cudaFreeHost(pointer);
    if (error != cudaSuccess)
    {
      std::cerr << "Warning: cudaFreeHost failed: " << cudaGetErrorName(error) << '\n';
    }
  }
};
using PinnedMemory = std::unique_ptr<void, PinnedMemoryDeleter>;

PinnedMemory
AllocatePinnedMemory(size_t bytes);

class CudaEvent
{
public:
  CudaEvent() { CUDA_CHECK(cudaEventCreate(&m_Event)); }
  ~CudaEvent()
  {
    const cudaError_t error = cudaEventDestroy(m_Event);
    if (error != cudaSuccess)
    {
      std::cerr << "Warning: cudaEventDestroy failed: " << cudaGetErrorName(error) << '\n';
    }
  }
  CudaEvent(const CudaEvent &) = delete;
  CudaEvent &
  operator=(const CudaEvent &) = delete;

  cudaEvent_t
  Get() const
  {
    return m_Event;
  }

private:
  cudaEvent_t m_Event{};
};

/** Copy `count` elements of device memory to the host and compare them with `expected`. */
template <typename T>
void
CheckDeviceBuffer(const void * device, const T * expected, size_t count, const std::string & what)
{
  std::vector<T> actual(count);
  CUDA_CHECK(cudaMemcpy(actual.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  CheckPixels(actual.data(), expected, count, what);
}

// ---------------------------------------------------------------------------
// Timing

/** Runs `setup` (untimed), then `body` between two reads of a steady clock,
 * then `check` (untimed), WarmUpRuns + repeats times; returns the timed runs
 * in milliseconds. With `synchronize`, the device is idle when the clock starts
 * and `body`'s device work is complete when it stops. */
template <typename TSetup, typename TBody, typename TCheck>
Samples
TimeOnHost(unsigned int warmUps,
           unsigned int repeats,
           bool         synchronize,
           TSetup &&    setup,
           TBody &&     body,
           TCheck &&    check)
{
  std::vector<double> milliseconds;
  milliseconds.reserve(repeats);
  for (unsigned int run = 0; run < warmUps + repeats; ++run)
  {
    setup();
    if (synchronize)
    {
      CUDA_CHECK(cudaDeviceSynchronize());
    }
    const Clock::time_point start = Clock::now();
    body();
    if (synchronize)
    {
      CUDA_CHECK(cudaDeviceSynchronize());
    }
    const Clock::time_point stop = Clock::now();
    check();
    if (run >= warmUps)
    {
      milliseconds.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    }
  }
  return Summarize(std::move(milliseconds));
}

/** Runs `sequence(run, step)` WarmUpRuns + repeats times: each run does its
 * work (untimed) and hands every timed step to `step`, which times it as
 * TimeOnHost times its body. Every run must time `steps` steps. Returns the
 * samples of each step, then those of their sum per run. */
template <typename TSequence>
std::vector<Samples>
TimeSteps(size_t steps, unsigned int repeats, bool synchronize, TSequence && sequence)
{
  std::vector<std::vector<double>> milliseconds(steps + 1);
  for (unsigned int run = 0; run < WarmUpRuns + repeats; ++run)
  {
    size_t     step = 0;
    double     total = 0.0;
    const auto noop = [] {};
    const auto timeStep = [&](auto && body) {
      const double time = TimeOnHost(0, 1, synchronize, noop, body, noop).median;
      if (step < steps && run >= WarmUpRuns)
      {
        milliseconds[step].push_back(time);
      }
      total += time;
      ++step;
    };
    sequence(run, timeStep);
    if (step != steps)
    {
      itkGenericExceptionMacro("a run timed " << step << " steps, expected " << steps);
    }
    if (run >= WarmUpRuns)
    {
      milliseconds[steps].push_back(total);
    }
  }
  std::vector<Samples> samples;
  for (std::vector<double> & values : milliseconds)
  {
    samples.push_back(Summarize(std::move(values)));
  }
  return samples;
}

/** Times device work on the legacy default stream with CUDA events. Before
 * every run the L2 cache is overwritten, so that a buffer that fits in it
 * (256^3 unsigned char) is read from device memory like a large one. */
class DeviceTimer
{
public:
  DeviceTimer()
  {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    int l2Bytes = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&l2Bytes, cudaDevAttrL2CacheSize, device));
    m_FlushBytes = std::max<size_t>(2 * static_cast<size_t>(l2Bytes), size_t{ 64 } << 20);
    m_Flush = AllocateDeviceMemory(m_FlushBytes);
  }

  /** `setup` (untimed, e.g. restoring an in-place buffer), cache flush, then
   * `launch` between two events; returns the timed runs in milliseconds. */
  template <typename TSetup, typename TLaunch>
  Samples
  Time(unsigned int warmUps, unsigned int repeats, TSetup && setup, TLaunch && launch)
  {
    std::vector<double> milliseconds;
    milliseconds.reserve(repeats);
    for (unsigned int run = 0; run < warmUps + repeats; ++run)
    {
      const double elapsed = this->TimeOnce(run, setup, launch);
      if (run >= warmUps)
      {
        milliseconds.push_back(elapsed);
      }
    }
    return Summarize(std::move(milliseconds));
  }

  /** Two measurements taken in turns, run by run (a reference such as the
   * device-to-device copy and the kernel compared with it), so that the
   * device's state drifting during the measurement moves both alike. */
  template <typename TSetupA, typename TLaunchA, typename TSetupB, typename TLaunchB>
  std::pair<Samples, Samples>
  TimeInTurns(unsigned int warmUps,
              unsigned int repeats,
              TSetupA &&   setupA,
              TLaunchA &&  launchA,
              TSetupB &&   setupB,
              TLaunchB &&  launchB)
  {
    std::vector<double> a;
    std::vector<double> b;
    for (unsigned int run = 0; run < warmUps + repeats; ++run)
    {
      const double first = this->TimeOnce(run, setupA, launchA);
      const double second = this->TimeOnce(run, setupB, launchB);
      if (run >= warmUps)
      {
        a.push_back(first);
        b.push_back(second);
      }
    }
    return { Summarize(std::move(a)), Summarize(std::move(b)) };
  }

private:
  template <typename TSetup, typename TLaunch>
  double
  TimeOnce(unsigned int run, TSetup && setup, TLaunch && launch)
  {
    setup();
    CUDA_CHECK(cudaMemsetAsync(m_Flush.get(), static_cast<int>(run & 0xff), m_FlushBytes, nullptr));
    CUDA_CHECK(cudaEventRecord(m_Start.Get(), nullptr));
    launch();
    CUDA_CHECK(cudaEventRecord(m_Stop.Get(), nullptr));
    CUDA_CHECK(cudaEventSynchronize(m_Stop.Get()));
    float elapsed = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&elapsed, m_Start.Get(), m_Stop.Get()));
    return elapsed;
  }

  CudaEvent    m_Start;
  CudaEvent    m_Stop;
  DeviceMemory m_Flush;
  size_t       m_FlushBytes{ 0 };
};

void
ExpectTransfers(const itk::CudaTransferStatistics & before,
                const itk::CudaTransferStatistics & after,
                uint64_t                            uploads,
                uint64_t                            downloads,
                uint64_t                            bytes,
                const std::string &                 what);

template <typename TImage>
typename TImage::SizeType
CubeSize(unsigned long n)
{
  typename TImage::SizeType size;
  size.Fill(n);
  return size;
}

/** An N^3 image of pseudo-random pixels in [low, high) (CPU copy current). */
template <typename TImage>
typename TImage::Pointer
MakeVolume(unsigned long n, double low, double high, uint64_t seed)
{
  auto image = TImage::New();
  image->SetRegions(CubeSize<TImage>(n));
  image->Allocate();
  // For a CudaImage the non-const pointer also marks the GPU copy stale.
  FillPattern(image->GetBufferPointer(), image->GetBufferedRegion().GetNumberOfPixels(), low, high, seed);
  return image;
}

// ---------------------------------------------------------------------------
// Measurements

// CudaBenchmarkImage.cxx
void
MeasurePerImageCost(Results & results);
void
MeasureSmallImageRoundTrip(Results & results);

void
MeasureAllocateAgain(Results & results, unsigned long n, const Options & options, bool gpu);

std::pair<double, double>
MeasureTransfers(Results & results, unsigned long n, const Options & options);

// CudaBenchmarkFilters.cxx: MeasureSquareKernel for float, unsigned char and double
template <typename T>
double
MeasureSquareKernel(Results &       results,
                    DeviceTimer &   timer,
                    unsigned long   n,
                    const Options & options,
                    double          low,
                    double          high,
                    bool            inPlaceRow);

/** The add kernel (CudaAddImageFilter's) on two float inputs of N^3 pixels,
 * out of place and in place on the first; bandwidth counts two reads and a
 * write per pixel, against the device-to-device copy's. */
void
MeasureAddKernel(Results & results, DeviceTimer & timer, unsigned long n, const Options & options);

// CudaBenchmarkReductions.cxx: statistics, extrema with positions, dot product
void
MeasureReductionKernels(Results & results, DeviceTimer & timer, unsigned long n, const Options & options);

// CudaBenchmarkRegions.cxx: the crop's, constant pad's and paste's device work
void
MeasureRegionKernels(Results & results, DeviceTimer & timer, unsigned long n, const Options & options);

// CudaBenchmarkNeighborhood.cxx: CudaDiscreteGaussianImageFilter's passes
void
MeasureNeighborhoodKernels(Results & results, DeviceTimer & timer, unsigned long n, const Options & options);

void
MeasureEndToEnd(Results & results, unsigned long n, const Options & options, bool gpu);

void
MeasureChain(Results & results, unsigned long n, const Options & options, double copyBandwidth);

// CudaBenchmarkCPUAccess.cxx
void
MeasureCPUAccessOfGPUImage(Results &                         results,
                           unsigned long                     n,
                           const Options &                   options,
                           bool                              gpu,
                           const std::pair<double, double> & pinned);

// CudaBenchmarkFirstUse.cxx
void
MeasureFirstUse(Results & results, unsigned long n, const Options & options);

int
RunColdChain(unsigned long n);

void
MeasureColdChain(Results & results, unsigned long n, const Options & options);

// CudaBenchmarkTwoDevices.cxx
void
MeasureTwoDevices(Results & results, DeviceTimer & timer, unsigned long n, const Options & options);

// CudaCommonBenchmark.cxx
std::string
DescribeDevice(int device);
} // namespace CudaBenchmark

#endif
