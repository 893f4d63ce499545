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

// CudaCommonBenchmark: measures what CudaCommon costs next to the ceiling the
// hardware or ITK sets for the same work, measured in the same run, and prints
// one table (optionally JSON). docs/performance.md explains every row.
//
// Device work is timed with CUDA events; operations the host waits for
// (transfers through the data manager, pipeline updates) with a steady clock
// around a cudaDeviceSynchronize. Every row is the median of --repeats timed
// runs after warm-up runs. Every result is checked once before it is timed,
// and every timed transfer is checked to be exactly one copy.

#include "itkCudaCommonConfiguration.h"
#include "CudaBenchmarkKernels.hcu"
#include "itkCudaDeviceSplitter.h"
#include "itkCudaHostMemoryPool.h"
#include "itkCudaImage.h"
#include "itkCudaImageFromImageFilter.h"
#include "itkCudaSquareImage.hcu"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaUtil.h"

#include "itkImage.h"
#include "itkImageRegionConstIterator.h"
#include "itkMultiThreaderBase.h"
#include "itkSquareImageFilter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char ** environ;

namespace
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
};

void
PrintUsage(std::ostream & os, const char * program)
{
  os << "Usage: " << program << " [--sizes N[,N...]] [--repeats R] [--split-size N] [--json FILE]\n"
     << "\n"
     << "Measures CudaCommon's transfers, square kernel, CudaSquareImageFilter pipelines, image\n"
     << "allocation and CPU access to GPU-current images next to their ceilings (raw cudaMemcpy,\n"
     << "ITK's CPU filter, itk::Image), measured in the same run, and prints one table. Without a\n"
     << "CUDA device only the CPU rows run.\n"
     << "\n"
     << "  --sizes N[,N...]  edges of the N^3 test volumes (default 256,512; each 1 to " << MaximumSize << ")\n"
     << "  --repeats R       timed runs per measurement, after warm-up; the median is reported (default 10)\n"
     << "  --split-size N    edge of the N^3 float volume of the two-GPU rows, which run only on\n"
     << "                    machines with two or more devices (default 1024; 0 leaves them out)\n"
     << "  --json FILE       also write every row to FILE as JSON\n"
     << "  --help            print this help\n"
     << "\n"
     << "Rows (per size in --sizes unless noted; (GPU): only with a CUDA device):\n"
     << "  per-image cost         CudaImage New+SetRegions+Allocate, 16x16, vs itk::Image\n"
     << "  transfers (GPU)        CudaImage upload/download, own (pinned) and foreign (pageable) host\n"
     << "                         buffer, vs cudaMemcpy from the same kind of memory\n"
     << "  square kernel (GPU)    float, unsigned char, double; 3-D, 2-D, in place; vs cudaMemcpy D2D\n"
     << "  end to end             CudaSquareImageFilter Update + host read (GPU) vs ITK SquareImageFilter\n"
     << "  allocate again         CudaImage New+SetRegions+Allocate of a size just freed vs itk::Image\n"
     << "  chain (GPU)            " << ChainLength
     << " CudaSquareImageFilters on a device-resident image; copies made\n"
     << "  CPU access             iterator read and FillBuffer of a CPU- and a GPU-current (GPU) CudaImage\n"
     << "  first use (GPU)        a fresh float CudaImage every run: \"CudaImage first use: \" New+SetRegions+\n"
     << "                         Allocate, FillBuffer, upload (incl. device allocation), download after a\n"
     << "                         GPU write, total; vs \"itk::Image first use: \" the same steps with cudaMalloc\n"
     << "                         (in the upload) and cudaMemcpy from/to its pageable buffer\n"
     << "  cold one-shot chain    (GPU, once, at " << OneShotChainEdge << "^3 if in --sizes, else the largest size)\n"
     << "                         " << OneShotChainLength
     << " new CudaSquareImageFilters on a new host-filled CudaImage,\n"
     << "                         Update + host read: in a fresh process (median of " << MinimumColdRuns << " to "
     << MaximumColdRuns << "),\n"
     << "                         vs the same in this process after warm-up + " << ColdAllowanceMilliseconds << " ms\n"
     << "  two devices (GPU)      peer copies, square and 1000 FMA/pixel split over devices 0 and 1\n"
     << "\n"
     << "docs/performance.md explains every row.\n";
}

bool
ParseUnsigned(const std::string & text, unsigned long minimum, unsigned long maximum, unsigned long & value)
{
  if (text.empty() || text[0] == '-' || text[0] == '+')
  {
    return false;
  }
  char * end = nullptr;
  value = std::strtoul(text.c_str(), &end, 10);
  return *end == '\0' && value >= minimum && value <= maximum;
}

/** Parse the command line; returns false (after printing why) on an error. */
bool
ParseArguments(int argc, char * argv[], Options & options, bool & helpRequested)
{
  helpRequested = false;
  for (int i = 1; i < argc; ++i)
  {
    const std::string argument = argv[i];
    if (argument == "--help" || argument == "-h")
    {
      helpRequested = true;
      return true;
    }
    if (argument != "--sizes" && argument != "--repeats" && argument != "--json" && argument != "--split-size" &&
        argument != "--cold-chain")
    {
      std::cerr << "Unknown argument '" << argument << "'.\n";
      return false;
    }
    if (i + 1 >= argc)
    {
      std::cerr << argument << " expects a value.\n";
      return false;
    }
    const std::string value = argv[++i];
    if (argument == "--sizes")
    {
      options.sizes.clear();
      std::istringstream list(value);
      std::string        item;
      while (std::getline(list, item, ','))
      {
        unsigned long size = 0;
        if (!ParseUnsigned(item, 1, MaximumSize, size))
        {
          std::cerr << "--sizes expects a comma-separated list of integers from 1 to " << MaximumSize << ", got '"
                    << value << "'.\n";
          return false;
        }
        options.sizes.push_back(size);
      }
      if (options.sizes.empty())
      {
        std::cerr << "--sizes expects at least one size.\n";
        return false;
      }
    }
    else if (argument == "--repeats")
    {
      unsigned long repeats = 0;
      if (!ParseUnsigned(value, 1, 100000, repeats))
      {
        std::cerr << "--repeats expects an integer from 1 to 100000, got '" << value << "'.\n";
        return false;
      }
      options.repeats = static_cast<unsigned int>(repeats);
    }
    else if (argument == "--split-size")
    {
      if (!ParseUnsigned(value, 0, MaximumSize, options.splitSize))
      {
        std::cerr << "--split-size expects an integer from 0 to " << MaximumSize << ", got '" << value << "'.\n";
        return false;
      }
    }
    else if (argument == "--cold-chain")
    {
      if (!ParseUnsigned(value, 1, MaximumSize, options.coldChainSize))
      {
        std::cerr << "--cold-chain expects an integer from 1 to " << MaximumSize << ", got '" << value << "'.\n";
        return false;
      }
    }
    else
    {
      options.jsonFile = value;
    }
  }
  return true;
}

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
Summarize(std::vector<double> values)
{
  Samples summary;
  if (values.empty())
  {
    return summary;
  }
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  summary.median = values.size() % 2 == 1 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
  summary.minimum = values.front();
  summary.maximum = values.back();
  return summary;
}

/** Times in milliseconds -> GB/s (1e9 bytes per second) for `bytes` per run;
 * the fastest run gives the largest bandwidth. */
Samples
ToBandwidth(const Samples & milliseconds, double bytes)
{
  const auto rate = [bytes](double ms) { return bytes / (ms * 1.0e-3) / 1.0e9; };
  return { rate(milliseconds.median), rate(milliseconds.maximum), rate(milliseconds.minimum) };
}

Samples
Scaled(const Samples & samples, double factor)
{
  return { samples.median * factor, samples.minimum * factor, samples.maximum * factor };
}

Samples
Constant(double value)
{
  return { value, value, value };
}

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
FormatNumber(double value)
{
  if (!std::isfinite(value))
  {
    return "-";
  }
  std::ostringstream text;
  const double       magnitude = std::abs(value);
  if (value == std::floor(value) && magnitude < 1.0e9)
  {
    text << std::fixed << std::setprecision(0) << value; // counts
  }
  else if (magnitude >= 100.0)
  {
    text << std::fixed << std::setprecision(1) << value;
  }
  else if (magnitude >= 1.0)
  {
    text << std::fixed << std::setprecision(3) << value;
  }
  else
  {
    text << std::setprecision(4) << value;
  }
  return text.str();
}

std::string
JsonString(const std::string & text)
{
  std::ostringstream out;
  out << '"';
  for (const char c : text)
  {
    switch (c)
    {
      case '"':
        out << "\\\"";
        break;
      case '\\':
        out << "\\\\";
        break;
      case '\n':
        out << "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
        {
          out << "\\u" << std::hex << std::setw(4) << std::setfill('0') << static_cast<int>(c) << std::dec
              << std::setfill(' ');
        }
        else
        {
          out << c;
        }
    }
  }
  out << '"';
  return out.str();
}

std::string
JsonNumber(double value)
{
  if (!std::isfinite(value))
  {
    return "null";
  }
  std::ostringstream out;
  out << std::setprecision(9) << value;
  return out.str();
}

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
  PrintTable(std::ostream & os) const
  {
    const std::vector<std::string> header{
      "measurement", "size", "value", "unit", "ceiling", "ceiling value", "ratio"
    };
    std::vector<std::vector<std::string>> cells;
    for (const Row & row : m_Rows)
    {
      cells.push_back({ row.name,
                        row.shape,
                        FormatNumber(row.samples.median),
                        row.unit,
                        row.ceilingName.empty() ? "-" : row.ceilingName,
                        FormatNumber(row.ceilingValue),
                        FormatNumber(row.Ratio()) });
    }
    std::vector<size_t> widths(header.size());
    for (size_t c = 0; c < header.size(); ++c)
    {
      widths[c] = header[c].size();
      for (const auto & line : cells)
      {
        widths[c] = std::max(widths[c], line[c].size());
      }
    }
    // Text columns left-aligned, numbers right-aligned.
    const std::vector<bool> numeric{ false, false, true, false, false, true, true };
    const auto              printLine = [&](const std::vector<std::string> & line) {
      for (size_t c = 0; c < line.size(); ++c)
      {
        os << (c == 0 ? "" : " | ") << (numeric[c] ? std::right : std::left) << std::setw(static_cast<int>(widths[c]))
           << line[c];
      }
      os << std::left << '\n';
    };
    printLine(header);
    size_t totalWidth = 0;
    for (const size_t width : widths)
    {
      totalWidth += width + 3;
    }
    os << std::string(totalWidth - 3, '-') << '\n';
    for (const auto & line : cells)
    {
      printLine(line);
    }
    os << std::right;
    os << "value: median of " << repeats << " timed runs after " << WarmUpRuns
       << " warm-up runs (per-image rows: " << PerImageRuns << " runs); ratio = value / ceiling value "
       << "(GB/s rows: higher is better; ms and us rows: lower is better).\n";
    if (GPURowsSkipped())
    {
      os << "GPU rows skipped: " << skipReason << '\n';
    }
    for (const std::string & note : m_Notes)
    {
      os << "Note: " << note << '\n';
    }
  }

  void
  WriteJson(const std::string & fileName) const
  {
    std::ofstream file(fileName);
    if (!file)
    {
      itkGenericExceptionMacro("cannot open '" << fileName << "' for writing the JSON results");
    }
    file << "{\n"
         << "  \"benchmark\": \"CudaCommonBenchmark\",\n"
         << "  \"cudacommon_version\": " << JsonString(CudaCommon_VERSION_STRING) << ",\n"
         << "  \"device\": " << JsonString(device) << ",\n"
         << "  \"gpu_rows_skipped\": " << (GPURowsSkipped() ? "true" : "false") << ",\n"
         << "  \"skip_reason\": " << JsonString(skipReason) << ",\n"
         << "  \"repeats\": " << repeats << ",\n"
         << "  \"warm_up_runs\": " << WarmUpRuns << ",\n"
         << "  \"itk_threads\": " << itkThreads << ",\n"
         << "  \"rows\": [";
    for (size_t i = 0; i < m_Rows.size(); ++i)
    {
      const Row & row = m_Rows[i];
      file << (i == 0 ? "\n" : ",\n") << "    {\"name\": " << JsonString(row.name) << ", \"size\": " << row.size
           << ", \"shape\": " << JsonString(row.shape) << ", \"value\": " << JsonNumber(row.samples.median)
           << ", \"min\": " << JsonNumber(row.samples.minimum) << ", \"max\": " << JsonNumber(row.samples.maximum)
           << ", \"unit\": " << JsonString(row.unit)
           << ", \"ceiling_name\": " << (row.ceilingName.empty() ? std::string("null") : JsonString(row.ceilingName))
           << ", \"ceiling_value\": " << JsonNumber(row.ceilingValue) << ", \"ratio\": " << JsonNumber(row.Ratio())
           << "}";
    }
    file << "\n  ],\n  \"notes\": [";
    for (size_t i = 0; i < m_Notes.size(); ++i)
    {
      file << (i == 0 ? "" : ", ") << JsonString(m_Notes[i]);
    }
    file << "]\n}\n";
    if (!file)
    {
      itkGenericExceptionMacro("writing the JSON results to '" << fileName << "' failed");
    }
  }

private:
  std::vector<Row>         m_Rows;
  std::vector<std::string> m_Notes;
};

std::string
CubeShape(unsigned long n)
{
  return std::to_string(n) + "^3";
}

std::string
PlaneShape(unsigned long width, unsigned long height)
{
  return std::to_string(width) + "x" + std::to_string(height);
}

const char *
PixelName(float)
{
  return "float";
}
const char *
PixelName(double)
{
  return "double";
}
const char *
PixelName(unsigned char)
{
  return "unsigned char";
}

// ---------------------------------------------------------------------------
// Test data

/** SplitMix64: a well-mixed 64-bit value for every index, so that the data
 * has no structure a cache or a compressor could exploit. */
uint64_t
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
AllocateDeviceMemory(size_t bytes)
{
  void * pointer = nullptr;
  CUDA_CHECK(cudaMalloc(&pointer, bytes));
  return DeviceMemory(pointer);
}

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
AllocatePinnedMemory(size_t bytes)
{
  void * pointer = nullptr;
  CUDA_CHECK(cudaMallocHost(&pointer, bytes));
  return PinnedMemory(pointer);
}

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
      setup();
      CUDA_CHECK(cudaMemsetAsync(m_Flush.get(), static_cast<int>(run & 0xff), m_FlushBytes, nullptr));
      CUDA_CHECK(cudaEventRecord(m_Start.Get(), nullptr));
      launch();
      CUDA_CHECK(cudaEventRecord(m_Stop.Get(), nullptr));
      CUDA_CHECK(cudaEventSynchronize(m_Stop.Get()));
      float elapsed = 0.0f;
      CUDA_CHECK(cudaEventElapsedTime(&elapsed, m_Start.Get(), m_Stop.Get()));
      if (run >= warmUps)
      {
        milliseconds.push_back(elapsed);
      }
    }
    return Summarize(std::move(milliseconds));
  }

private:
  CudaEvent    m_Start;
  CudaEvent    m_Stop;
  DeviceMemory m_Flush;
  size_t       m_FlushBytes{ 0 };
};

/** \throws itk::ExceptionObject unless exactly `uploads` host->device and
 * `downloads` device->host copies of `bytes` each happened between the two snapshots. */
void
ExpectTransfers(const itk::CudaTransferStatistics & before,
                const itk::CudaTransferStatistics & after,
                uint64_t                            uploads,
                uint64_t                            downloads,
                uint64_t                            bytes,
                const std::string &                 what)
{
  const uint64_t up = after.HostToDeviceCount - before.HostToDeviceCount;
  const uint64_t upBytes = after.HostToDeviceBytes - before.HostToDeviceBytes;
  const uint64_t down = after.DeviceToHostCount - before.DeviceToHostCount;
  const uint64_t downBytes = after.DeviceToHostBytes - before.DeviceToHostBytes;
  if (up != uploads || upBytes != uploads * bytes || down != downloads || downBytes != downloads * bytes)
  {
    itkGenericExceptionMacro(<< what << ": expected " << uploads << " host->device and " << downloads
                             << " device->host copies of " << bytes << " bytes per timed run, found " << up << " ("
                             << upBytes << " bytes) and " << down << " (" << downBytes
                             << " bytes); the timing would not measure what it claims");
  }
}

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

/** New() + SetRegions() + Allocate() of a 16x16 image, in microseconds. Host
 * work of about a microsecond: no device synchronisation inside the clock. */
template <typename TImage>
Samples
TimeSmallImageCreation()
{
  typename TImage::Pointer  image;
  typename TImage::SizeType size;
  size.Fill(PerImageEdge);
  const Samples milliseconds = TimeOnHost(
    PerImageWarmUpRuns,
    PerImageRuns,
    false,
    [] {},
    [&] {
      image = TImage::New();
      image->SetRegions(size);
      image->Allocate();
    },
    [&] { image = nullptr; });
  return Scaled(milliseconds, 1000.0);
}

void
MeasurePerImageCost(Results & results)
{
  using PlainImage = itk::Image<float, 2>;
  using CudaImage = itk::CudaImage<float, 2>;
  // A registered CudaImageFactory would make the reference a CudaImage too.
  if (dynamic_cast<CudaImage *>(PlainImage::New().GetPointer()) != nullptr)
  {
    itkGenericExceptionMacro("itk::Image<float, 2>::New() returned a CudaImage (CudaImageFactory registered?): "
                             "the per-image reference must be a plain itk::Image");
  }
  std::cout << "Per-image cost of New()+SetRegions()+Allocate() (" << PerImageEdge << "x" << PerImageEdge << ")\n";
  const Samples     plain = TimeSmallImageCreation<PlainImage>();
  const Samples     cuda = TimeSmallImageCreation<CudaImage>();
  const std::string shape = PlaneShape(PerImageEdge, PerImageEdge);
  results.Add(
    { "CudaImage New+SetRegions+Allocate", PerImageEdge, shape, cuda, "us", "itk::Image, same calls", plain.median });
  results.Add({ "itk::Image New+SetRegions+Allocate", PerImageEdge, shape, plain, "us", "", NotANumber });
}

/** New() + SetRegions() + Allocate() of an N^3 image, in milliseconds. The
 * first warm-up run is the first allocation of that size; every later run
 * allocates it again after the previous image was destroyed. */
template <typename TImage>
Samples
TimeVolumeAllocation(unsigned long n, unsigned int repeats, bool gpu)
{
  typename TImage::Pointer image;
  return TimeOnHost(
    WarmUpRuns,
    repeats,
    gpu,
    [] {},
    [&] {
      image = TImage::New();
      image->SetRegions(CubeSize<TImage>(n));
      image->Allocate();
    },
    [&] { image = nullptr; });
}

void
MeasureAllocateAgain(Results & results, unsigned long n, const Options & options, bool gpu)
{
  std::cout << "[" << CubeShape(n) << "] allocating a float volume of the same size again\n";
  const Samples plain = TimeVolumeAllocation<itk::Image<float, 3>>(n, options.repeats, gpu);
  const Samples cuda = TimeVolumeAllocation<itk::CudaImage<float, 3>>(n, options.repeats, gpu);
  results.Add({ "CudaImage allocate again (New+SetRegions+Allocate)",
                n,
                CubeShape(n),
                cuda,
                "ms",
                "itk::Image, same calls",
                plain.median });
}

/** Upload and download of `image` through its data manager; `host` is its
 * CPU buffer and `expected` the pixels it holds. Returns {upload, download}
 * in GB/s. */
std::pair<Samples, Samples>
TimeImageTransfers(itk::CudaImage<float, 3> * image,
                   float *                    host,
                   const std::vector<float> & expected,
                   unsigned int               repeats,
                   const std::string &        what)
{
  const size_t                  count = expected.size();
  const size_t                  bytes = count * sizeof(float);
  itk::CudaDataManager::Pointer manager = image->GetCudaDataManager();

  // Checked once before timing: the upload delivers the pixels, and the
  // download restores a poisoned (stale) CPU copy.
  manager->SetGPUDirtyFlag(true);
  CheckDeviceBuffer(manager->GetConstGPUBufferPointer(), expected.data(), count, what + " upload");
  manager->GetGPUBufferPointer();
  std::fill(host, host + count, std::numeric_limits<float>::quiet_NaN());
  manager->UpdateCPUBuffer();
  CheckPixels(host, expected.data(), count, what + " download");

  itk::CudaTransferStatistics before;
  const Samples               upload = TimeOnHost(
    WarmUpRuns,
    repeats,
    true,
    [&] {
      before = manager->GetTransferStatistics();
      // The CPU copy stays current: only the flag says the GPU copy is stale.
      manager->SetGPUDirtyFlag(true);
    },
    [&] { manager->GetConstGPUBufferPointer(); },
    [&] { ExpectTransfers(before, manager->GetTransferStatistics(), 1, 0, bytes, what + " upload"); });
  const Samples download = TimeOnHost(
    WarmUpRuns,
    repeats,
    true,
    [&] {
      before = manager->GetTransferStatistics();
      // GPU copy current (no copy needed), CPU copy marked stale.
      manager->GetGPUBufferPointer();
    },
    [&] { manager->UpdateCPUBuffer(); },
    [&] { ExpectTransfers(before, manager->GetTransferStatistics(), 0, 1, bytes, what + " download"); });
  return { ToBandwidth(upload, static_cast<double>(bytes)), ToBandwidth(download, static_cast<double>(bytes)) };
}

/** Raw cudaMemcpy between `host` and a device buffer: {host->device, device->host} in GB/s. */
std::pair<Samples, Samples>
TimeRawTransfers(float * host, size_t count, unsigned int repeats, const std::string & what)
{
  const size_t             bytes = count * sizeof(float);
  const std::vector<float> expected(host, host + count);
  DeviceMemory             device = AllocateDeviceMemory(bytes);
  const auto               noop = [] {};
  const Samples            upload = TimeOnHost(
    WarmUpRuns,
    repeats,
    true,
    noop,
    [&] { CUDA_CHECK(cudaMemcpy(device.get(), host, bytes, cudaMemcpyHostToDevice)); },
    noop);
  CheckDeviceBuffer(device.get(), expected.data(), count, what + " host->device");
  const Samples download = TimeOnHost(
    WarmUpRuns,
    repeats,
    true,
    noop,
    [&] { CUDA_CHECK(cudaMemcpy(host, device.get(), bytes, cudaMemcpyDeviceToHost)); },
    noop);
  std::fill(host, host + count, std::numeric_limits<float>::quiet_NaN());
  CUDA_CHECK(cudaMemcpy(host, device.get(), bytes, cudaMemcpyDeviceToHost));
  CheckPixels(host, expected.data(), count, what + " device->host");
  return { ToBandwidth(upload, static_cast<double>(bytes)), ToBandwidth(download, static_cast<double>(bytes)) };
}

/** The CudaImage transfer rows; returns the pinned cudaMemcpy bandwidths
 * {host->device, device->host} in GB/s (medians), the ceilings of later rows. */
std::pair<double, double>
MeasureTransfers(Results & results, unsigned long n, const Options & options)
{
  using CudaImageType = itk::CudaImage<float, 3>;
  using PlainImageType = itk::Image<float, 3>;
  const size_t      count = static_cast<size_t>(n) * n * n;
  const std::string shape = CubeShape(n);
  std::cout << "[" << shape << "] host<->device transfers\n";

  // A CudaImage that allocated its own host buffer, against pinned memory.
  std::pair<Samples, Samples> pinned;
  {
    {
      PinnedMemory pinnedBuffer = AllocatePinnedMemory(count * sizeof(float));
      auto *       host = static_cast<float *>(pinnedBuffer.get());
      FillPattern(host, count, 0.5, 1.5, 1);
      pinned = TimeRawTransfers(host, count, options.repeats, "pinned cudaMemcpy");
    }
    auto                     image = MakeVolume<CudaImageType>(n, 0.5, 1.5, 2);
    float *                  host = image->GetBufferPointer();
    const std::vector<float> expected(host, host + count);
    const auto own = TimeImageTransfers(image, host, expected, options.repeats, "CudaImage (own host buffer)");
    results.Add({ "CudaImage upload, own host buffer",
                  n,
                  shape,
                  own.first,
                  "GB/s",
                  "cudaMemcpy H2D, pinned host",
                  pinned.first.median });
    results.Add({ "CudaImage download, own host buffer",
                  n,
                  shape,
                  own.second,
                  "GB/s",
                  "cudaMemcpy D2H, pinned host",
                  pinned.second.median });
  }

  // A CudaImage sharing an itk::Image's (pageable) buffer, against pageable memory.
  {
    std::pair<Samples, Samples> pageable;
    {
      std::unique_ptr<float[]> pageableBuffer(new float[count]);
      FillPattern(pageableBuffer.get(), count, 0.5, 1.5, 3);
      pageable = TimeRawTransfers(pageableBuffer.get(), count, options.repeats, "pageable cudaMemcpy");
    }
    auto                     plain = MakeVolume<PlainImageType>(n, 0.5, 1.5, 4);
    float *                  host = plain->GetBufferPointer();
    const std::vector<float> expected(host, host + count);
    auto                     toCuda = itk::CudaImageFromImageFilter<PlainImageType>::New();
    toCuda->SetInput(plain);
    toCuda->Update();
    CudaImageType::Pointer image = toCuda->GetOutput();
    if (static_cast<const CudaImageType *>(image.GetPointer())->GetBufferPointer() != host)
    {
      itkGenericExceptionMacro("CudaImageFromImageFilter's output does not share the itk::Image's buffer "
                               "(expected the host pointer "
                               << static_cast<const void *>(host) << "): the foreign-buffer rows would be wrong");
    }
    const auto foreign = TimeImageTransfers(image, host, expected, options.repeats, "CudaImage (foreign buffer)");
    results.Add({ "CudaImage upload, foreign pageable buffer",
                  n,
                  shape,
                  foreign.first,
                  "GB/s",
                  "cudaMemcpy H2D, pageable host",
                  pageable.first.median });
    results.Add({ "CudaImage download, foreign pageable buffer",
                  n,
                  shape,
                  foreign.second,
                  "GB/s",
                  "cudaMemcpy D2H, pageable host",
                  pageable.second.median });
  }
  return { pinned.first.median, pinned.second.median };
}

/** Poison `out`, run `launch` once and compare `out` with `expected`. */
template <typename T, typename TLaunch>
void
CheckKernel(TLaunch && launch, T * out, const std::vector<T> & expected, const std::string & what)
{
  CUDA_CHECK(cudaMemset(out, 0xFF, expected.size() * sizeof(T)));
  launch();
  CUDA_CHECK(cudaDeviceSynchronize());
  CheckDeviceBuffer(out, expected.data(), expected.size(), what);
}

/** The square kernel's launchers on N^3 pixels of type T, out of place in 3-D
 * and 2-D (N^2 x N pixels) and, with `inPlaceRow`, in place as
 * CudaSquareImageFilter runs by default; bandwidth counts each pixel read
 * once and written once. Returns the device-to-device copy bandwidth (GB/s). */
template <typename T>
double
MeasureSquareKernel(Results &       results,
                    DeviceTimer &   timer,
                    unsigned long   n,
                    const Options & options,
                    double          low,
                    double          high,
                    bool            inPlaceRow)
{
  const size_t      count = static_cast<size_t>(n) * n * n;
  const size_t      bytes = count * sizeof(T);
  const double      traffic = 2.0 * static_cast<double>(bytes);
  const std::string pixel = PixelName(T{});
  std::cout << "[" << CubeShape(n) << "] square kernel, " << pixel << " pixels\n";

  std::vector<T> expected(count);
  DeviceMemory   inBuffer = AllocateDeviceMemory(bytes);
  DeviceMemory   outBuffer = AllocateDeviceMemory(bytes);
  T *            in = static_cast<T *>(inBuffer.get());
  T *            out = static_cast<T *>(outBuffer.get());
  {
    std::vector<T> input(count);
    FillPattern(input.data(), count, low, high, 5);
    CUDA_CHECK(cudaMemcpy(in, input.data(), bytes, cudaMemcpyHostToDevice));
    std::transform(input.begin(), input.end(), expected.begin(), SquareLikeITK<T>);
  }
  const auto noop = [] {};

  const Samples     copy = timer.Time(WarmUpRuns, options.repeats, noop, [&] {
    CUDA_CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, nullptr));
  });
  const double      ceiling = ToBandwidth(copy, traffic).median;
  const std::string ceilingName = "cudaMemcpy D2D, read+write";

  int        size3[3] = { static_cast<int>(n), static_cast<int>(n), static_cast<int>(n) };
  const auto launch3 = [&] { itk::CudaSquareImage3D<T>(size3, in, out); };
  CheckKernel(launch3, out, expected, "square kernel " + pixel + " 3-D");
  const Samples time3 = timer.Time(WarmUpRuns, options.repeats, noop, launch3);
  results.Add(
    { "square kernel " + pixel + " 3-D", n, CubeShape(n), ToBandwidth(time3, traffic), "GB/s", ceilingName, ceiling });

  int        size2[2] = { static_cast<int>(n * n), static_cast<int>(n) };
  const auto launch2 = [&] { itk::CudaSquareImage2D<T>(size2, in, out); };
  CheckKernel(launch2, out, expected, "square kernel " + pixel + " 2-D");
  const Samples time2 = timer.Time(WarmUpRuns, options.repeats, noop, launch2);
  results.Add({ "square kernel " + pixel + " 2-D",
                n,
                PlaneShape(n * n, n),
                ToBandwidth(time2, traffic),
                "GB/s",
                ceilingName,
                ceiling });

  if (inPlaceRow)
  {
    // Each run squares a fresh copy of the input (restored outside the events).
    const auto restore = [&] { CUDA_CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, nullptr)); };
    const auto launchInPlace = [&] { itk::CudaSquareImage<T>(count, out, out); };
    restore();
    launchInPlace();
    CUDA_CHECK(cudaDeviceSynchronize());
    CheckDeviceBuffer(out, expected.data(), count, "square kernel " + pixel + " in place");
    const Samples timeInPlace = timer.Time(WarmUpRuns, options.repeats, restore, launchInPlace);
    results.Add({ "square kernel " + pixel + " 3-D in place",
                  n,
                  CubeShape(n),
                  ToBandwidth(timeInPlace, traffic),
                  "GB/s",
                  ceilingName,
                  ceiling });
  }
  return ceiling;
}

/** CudaSquareImageFilter::Update() on a CudaImage whose data is on the host,
 * then reading the result on the host, against ITK's SquareImageFilter on an
 * itk::Image with the same pixels. Without a GPU only the CPU row is measured. */
void
MeasureEndToEnd(Results & results, unsigned long n, const Options & options, bool gpu)
{
  using PlainImageType = itk::Image<float, 3>;
  using CudaImageType = itk::CudaImage<float, 3>;
  const size_t       count = static_cast<size_t>(n) * n * n;
  const std::string  shape = CubeShape(n);
  const unsigned int threads = itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads();
  std::cout << "[" << shape << "] square filter end to end\n";

  auto cpuInput = MakeVolume<PlainImageType>(n, 0.5, 1.5, 6);
  auto cpuFilter = itk::SquareImageFilter<PlainImageType, PlainImageType>::New();
  cpuFilter->SetInput(cpuInput);
  cpuFilter->Update();
  const float *      source = cpuInput->GetBufferPointer();
  std::vector<float> expected(count);
  std::transform(source, source + count, expected.begin(), SquareLikeITK<float>);
  CheckPixels(cpuFilter->GetOutput()->GetBufferPointer(), expected.data(), count, "ITK SquareImageFilter");

  const std::string cpuName = "ITK SquareImageFilter Update, CPU " + std::to_string(threads) + " threads";
  const Samples     cpu = TimeOnHost(
    WarmUpRuns, options.repeats, false, [&] { cpuInput->Modified(); }, [&] { cpuFilter->Update(); }, [] {});
  results.Add({ cpuName, n, shape, cpu, "ms", "", NotANumber });
  if (!gpu)
  {
    return;
  }

  auto input = CudaImageType::New();
  input->SetRegions(CubeSize<CudaImageType>(n));
  input->Allocate();
  std::copy(source, source + count, input->GetBufferPointer());
  auto filter = itk::CudaSquareImageFilter<CudaImageType>::New();
  filter->InPlaceOff(); // keep the input: every run squares the same pixels
  filter->SetInput(input);
  filter->Update();
  CheckPixels(static_cast<const CudaImageType *>(filter->GetOutput())->GetBufferPointer(),
              expected.data(),
              count,
              "CudaSquareImageFilter");
  expected = std::vector<float>();

  uint64_t      uploads = 0;
  uint64_t      downloads = 0;
  const auto    outputManager = [&] { return filter->GetOutput()->GetCudaDataManager(); };
  const Samples gpuTime = TimeOnHost(
    WarmUpRuns,
    options.repeats,
    true,
    [&] {
      input->GetCudaDataManager()->ResetTransferStatistics();
      outputManager()->ResetTransferStatistics();
      // As after a CPU write: the next GPU read uploads the input.
      input->Modified();
    },
    [&] {
      filter->Update();
      if (static_cast<const CudaImageType *>(filter->GetOutput())->GetBufferPointer() == nullptr)
      {
        itkGenericExceptionMacro("CudaSquareImageFilter produced no host buffer");
      }
    },
    [&] {
      const auto in = input->GetCudaDataManager()->GetTransferStatistics();
      const auto out = outputManager()->GetTransferStatistics();
      uploads = std::max(uploads, in.HostToDeviceCount + out.HostToDeviceCount);
      downloads = std::max(downloads, in.DeviceToHostCount + out.DeviceToHostCount);
    });
  results.Add({ "CudaSquareImageFilter Update + host read", n, shape, gpuTime, "ms", cpuName, cpu.median });
  if (uploads != 1 || downloads != 1)
  {
    results.AddNote("end to end at " + shape + ": a run made up to " + std::to_string(uploads) + " host->device and " +
                    std::to_string(downloads) + " device->host copies (one of each expected)");
  }
}

/** Ten out-of-place CudaSquareImageFilters on an image already on the device:
 * time of Update() of the last one, and the copies between host and device it
 * caused (none are needed). */
void
MeasureChain(Results & results, unsigned long n, const Options & options, double copyBandwidth)
{
  using CudaImageType = itk::CudaImage<float, 3>;
  using FilterType = itk::CudaSquareImageFilter<CudaImageType>;
  const size_t      count = static_cast<size_t>(n) * n * n;
  const std::string shape = CubeShape(n);
  std::cout << "[" << shape << "] chain of " << ChainLength << " square filters on the device\n";

  // x^(2^10) of x in [0.995, 1] lies in [0.006, 1]: finite, not zero.
  auto               input = MakeVolume<CudaImageType>(n, 0.995, 1.0, 7);
  std::vector<float> expected(count);
  {
    const float * source = static_cast<const CudaImageType *>(input.GetPointer())->GetBufferPointer();
    std::transform(source, source + count, expected.begin(), [](float value) {
      for (unsigned int k = 0; k < ChainLength; ++k)
      {
        value = SquareLikeITK(value);
      }
      return value;
    });
  }
  input->GetCudaDataManager()->GetConstGPUBufferPointer();

  std::vector<FilterType::Pointer> chain;
  for (unsigned int k = 0; k < ChainLength; ++k)
  {
    auto filter = FilterType::New();
    filter->InPlaceOff();
    filter->SetInput(k == 0 ? input.GetPointer() : chain.back()->GetOutput());
    chain.push_back(filter);
  }
  chain.back()->Update();
  CheckPixels(static_cast<const CudaImageType *>(chain.back()->GetOutput())->GetBufferPointer(),
              expected.data(),
              count,
              "chain of square filters");
  expected = std::vector<float>();

  const auto managers = [&] {
    std::vector<itk::CudaDataManager::Pointer> all{ input->GetCudaDataManager() };
    for (const auto & filter : chain)
    {
      all.push_back(filter->GetOutput()->GetCudaDataManager());
    }
    return all;
  };
  unsigned int  run = 0;
  uint64_t      uploads = 0;
  uint64_t      downloads = 0;
  const Samples time = TimeOnHost(
    WarmUpRuns,
    options.repeats,
    true,
    [&] {
      for (const auto & manager : managers())
      {
        manager->ResetTransferStatistics();
      }
      chain.front()->Modified(); // re-runs the whole chain, input untouched
    },
    [&] { chain.back()->Update(); },
    [&] {
      if (run++ < WarmUpRuns)
      {
        return;
      }
      uint64_t up = 0;
      uint64_t down = 0;
      for (const auto & manager : managers())
      {
        const auto statistics = manager->GetTransferStatistics();
        up += statistics.HostToDeviceCount;
        down += statistics.DeviceToHostCount;
      }
      uploads = std::max(uploads, up);
      downloads = std::max(downloads, down);
    });

  const std::string name = "chain of " + std::to_string(ChainLength) + " CudaSquareImageFilters";
  const double      floorMilliseconds =
    ChainLength * 2.0 * static_cast<double>(count * sizeof(float)) / (copyBandwidth * 1.0e9) * 1.0e3;
  results.Add({ name + ", device-resident",
                n,
                shape,
                time,
                "ms",
                std::to_string(ChainLength) + " x D2D copy time, same bytes",
                floorMilliseconds });
  results.Add({ name + ": host->device copies per run (max)",
                n,
                shape,
                Constant(static_cast<double>(uploads)),
                "count",
                "none needed",
                0.0 });
  results.Add({ name + ": device->host copies per run (max)",
                n,
                shape,
                Constant(static_cast<double>(downloads)),
                "count",
                "none needed",
                0.0 });
}

/** Sum of every pixel, read as ITK code reads an image: an
 * ImageRegionConstIterator, which takes the buffer through the const
 * GetBufferPointer() (for a CudaImage: a const CPU access). Never inlined:
 * inlined into a large caller, GCC kept the sum in memory (3x slower), so
 * rows read against each other must run the same code. */
template <typename TImage>
[[gnu::noinline]] double
SumWithIterator(const TImage * image)
{
  double sum = 0.0;
  for (itk::ImageRegionConstIterator<TImage> it(image, image->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    sum += it.Get();
  }
  return sum;
}

/** GPU -> CPU read -> GPU round trips of an N^3 float CudaImage: before each
 * (untimed), its device buffer is written from `source` (the `pixels`, which
 * sum to `expectedSum`), so that the GPU copy is current and the CPU copy
 * stale; then, timed, an ITK iterator sums every pixel on the CPU and
 * GetConstGPUBufferPointer() stands for the next GPU use. Every run must make
 * one download, and one upload unless `readOnly` (ConstCPUAccessReadOnly). */
Samples
TimeReadRoundTrip(unsigned long       n,
                  const void *        source,
                  const float *       pixels,
                  double              expectedSum,
                  bool                readOnly,
                  unsigned int        repeats,
                  const std::string & what)
{
  using CudaImageType = itk::CudaImage<float, 3>;
  const size_t count = static_cast<size_t>(n) * n * n;
  const size_t bytes = count * sizeof(float);
  // Other pixels on the CPU than on the GPU: a missing download changes the sum.
  auto                          image = MakeVolume<CudaImageType>(n, 0.5, 1.5, 9);
  const CudaImageType *         constImage = image;
  itk::CudaDataManager::Pointer manager = image->GetCudaDataManager();
  manager->SetConstCPUAccessReadOnly(readOnly);

  itk::CudaTransferStatistics before;
  double                      sum = 0.0;
  const void *                device = nullptr;
  const auto                  setup = [&] {
    CUDA_CHECK(cudaMemcpy(manager->GetGPUBufferPointer(), source, bytes, cudaMemcpyDeviceToDevice));
    before = manager->GetTransferStatistics();
  };
  const auto body = [&] {
    sum = SumWithIterator(constImage);
    device = manager->GetConstGPUBufferPointer();
  };
  const auto check = [&] {
    CheckPixels(&sum, &expectedSum, 1, what + ": sum of the pixels");
    ExpectTransfers(before, manager->GetTransferStatistics(), readOnly ? 0 : 1, 1, bytes, what);
  };
  setup();
  body();
  check();
  CheckDeviceBuffer(device, pixels, count, what + ": GPU copy after the round trip");
  return TimeOnHost(WarmUpRuns, repeats, true, setup, body, check);
}

/** CPU access to a CudaImage whose current copy is on the GPU, N^3 float:
 * the GPU -> CPU read -> GPU round trip in the safe default mode and with
 * ConstCPUAccessReadOnly, against a floor of the same read with the CPU copy
 * current plus the same copies at the pinned cudaMemcpy bandwidths (`pinned`:
 * {host->device, device->host} GB/s); and FillBuffer(), against
 * itk::Image::FillBuffer(). Without a GPU only the CPU rows run. */
void
MeasureCPUAccessOfGPUImage(Results &                         results,
                           unsigned long                     n,
                           const Options &                   options,
                           bool                              gpu,
                           const std::pair<double, double> & pinned)
{
  using PlainImageType = itk::Image<float, 3>;
  using CudaImageType = itk::CudaImage<float, 3>;
  const size_t      count = static_cast<size_t>(n) * n * n;
  const size_t      bytes = count * sizeof(float);
  const std::string shape = CubeShape(n);
  std::cout << "[" << shape << "] CPU access to a GPU-current image\n";

  auto          plain = MakeVolume<PlainImageType>(n, 0.5, 1.5, 8);
  const float * pixels = plain->GetBufferPointer();
  const double  expectedSum = std::accumulate(pixels, pixels + count, 0.0); // the iterator's order
  // The CPU read alone: of an itk::Image, and of a CudaImage whose CPU copy is
  // current (no copy to make; its host buffer is the one the round trips read).
  const auto timeRead = [&](const auto * image, const std::string & what) {
    double sum = 0.0;
    return TimeOnHost(
      WarmUpRuns,
      options.repeats,
      gpu,
      [] {},
      [&] { sum = SumWithIterator(image); },
      [&] { CheckPixels(&sum, &expectedSum, 1, what + ": sum of the pixels"); });
  };
  auto hostCurrent = CudaImageType::New();
  hostCurrent->SetRegions(CubeSize<CudaImageType>(n));
  hostCurrent->Allocate();
  std::copy(pixels, pixels + count, hostCurrent->GetBufferPointer());
  const std::string plainReadName = "itk::Image iterator read (sum)";
  const Samples     plainRead = timeRead(plain.GetPointer(), plainReadName);
  const Samples     read = timeRead(hostCurrent.GetPointer(), "CudaImage iterator read, CPU copy current");
  hostCurrent = nullptr;
  results.Add({ plainReadName, n, shape, plainRead, "ms", "", NotANumber });
  results.Add(
    { "CudaImage iterator read (sum), CPU copy current", n, shape, read, "ms", plainReadName, plainRead.median });
  if (gpu)
  {
    DeviceMemory source = AllocateDeviceMemory(bytes);
    CUDA_CHECK(cudaMemcpy(source.get(), pixels, bytes, cudaMemcpyHostToDevice));
    const std::string name = "CudaImage GPU -> CPU iterator read -> GPU, ";
    const auto        copyMilliseconds = [bytes](double bandwidth) {
      return static_cast<double>(bytes) / (bandwidth * 1.0e9) * 1.0e3;
    };
    const double downloadFloor = read.median + copyMilliseconds(pinned.second);
    for (const bool readOnly : { false, true })
    {
      const std::string mode = readOnly ? "ConstCPUAccessReadOnly" : "safe default";
      const Samples     time =
        TimeReadRoundTrip(n, source.get(), pixels, expectedSum, readOnly, options.repeats, name + mode);
      results.Add({ name + mode,
                    n,
                    shape,
                    time,
                    "ms",
                    readOnly ? "CPU-current read + pinned D2H" : "CPU-current read + pinned D2H + H2D",
                    readOnly ? downloadFloor : downloadFloor + copyMilliseconds(pinned.first) });
    }
  }

  constexpr float          value = 0.25f; // outside the volumes' [0.5, 1.5)
  const std::vector<float> filled(count, value);
  const Samples            plainFill = TimeOnHost(
    WarmUpRuns, options.repeats, gpu, [] {}, [&] { plain->FillBuffer(value); }, [] {});
  CheckPixels(plain->GetBufferPointer(), filled.data(), count, "itk::Image FillBuffer");
  const std::string plainFillName = "itk::Image FillBuffer";
  results.Add({ plainFillName, n, shape, plainFill, "ms", "", NotANumber });
  if (!gpu)
  {
    return;
  }
  // FillBuffer() overwrites every pixel: a GPU-current image must not be
  // downloaded first. With ReleaseDirtyGPUBuffer (the default) the timed call
  // also releases the now stale device buffer; the setup uploads it again.
  auto                          image = MakeVolume<CudaImageType>(n, 0.5, 1.5, 10);
  itk::CudaDataManager::Pointer manager = image->GetCudaDataManager();
  itk::CudaTransferStatistics   before;
  const std::string             what = "CudaImage FillBuffer, GPU copy current";
  const auto                    setup = [&] {
    manager->GetGPUBufferPointer();
    before = manager->GetTransferStatistics();
  };
  const auto fill = [&] { image->FillBuffer(value); };
  const auto check = [&] { ExpectTransfers(before, manager->GetTransferStatistics(), 0, 0, bytes, what); };
  setup();
  fill();
  check();
  CheckPixels(static_cast<const CudaImageType *>(image.GetPointer())->GetBufferPointer(), filled.data(), count, what);
  CheckDeviceBuffer(manager->GetConstGPUBufferPointer(), filled.data(), count, what + ", then uploaded");
  const Samples cudaFill = TimeOnHost(WarmUpRuns, options.repeats, true, setup, fill, check);
  results.Add({ what, n, shape, cudaFill, "ms", plainFillName + ", same size", plainFill.median });
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

std::string
DescribeDevice(int device);

/** Two GPUs: element-wise updates of a float N^3 buffer resident on device 0,
 * computed by device 0 alone and shared with device 1 through
 * CudaDeviceSplitter (what CudaSquareImageFilter::SetSplitDevices runs), for
 * the square (memory-bound) and for a kernel that computes 1000 fused
 * multiply-adds per pixel; the rows' ratio is the speed-up over one device.
 * Peer-copy bandwidth between the two devices is measured alongside. */
void
MeasureTwoDevices(Results & results, DeviceTimer & timer, unsigned long n, const Options & options)
{
  constexpr unsigned int Iterations = 1000;
  const size_t           count = static_cast<size_t>(n) * n * n;
  const size_t           bytes = count * sizeof(float);
  const double           traffic = 2.0 * static_cast<double>(bytes);
  std::cout << "[" << CubeShape(n) << "] two devices\n";
  CUDA_CHECK(cudaSetDevice(0));
  results.AddNote("two-GPU rows: device 1 is " + DescribeDevice(1) + "; peer access " +
                  (itk::CudaEnablePeerAccess(0, 1) ? "enabled" : "not available (copies staged by the driver)"));

  DeviceMemory inBuffer = AllocateDeviceMemory(bytes);
  DeviceMemory outBuffer = AllocateDeviceMemory(bytes);
  auto *       in = static_cast<float *>(inBuffer.get());
  auto *       out = static_cast<float *>(outBuffer.get());
  // Expected results: every pixel of the square; every 997th pixel (and the
  // last) of the iterated kernel, whose host reference costs ~100 FMAs each.
  constexpr size_t   SampleStride = 997;
  std::vector<float> squares(count);
  std::vector<float> iterated((count + SampleStride - 1) / SampleStride + 1);
  {
    std::vector<float> input(count);
    FillPattern(input.data(), count, 0.5, 1.5, 11);
    CUDA_CHECK(cudaMemcpy(in, input.data(), bytes, cudaMemcpyHostToDevice));
    std::transform(input.begin(), input.end(), squares.begin(), SquareLikeITK<float>);
    for (size_t i = 0; i < iterated.size(); ++i)
    {
      iterated[i] = CudaBenchmark::IterateAffineOnHost(input[std::min(i * SampleStride, count - 1)], Iterations);
    }
  }
  // Poison the output, run, compare (all pixels, or the samples of `iterated`).
  const auto check = [&](const auto & run, const std::vector<float> & expected, const std::string & what) {
    CUDA_CHECK(cudaMemset(out, 0xFF, bytes));
    run();
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> actual(count);
    CUDA_CHECK(cudaMemcpy(actual.data(), out, bytes, cudaMemcpyDeviceToHost));
    if (&expected == &squares)
    {
      CheckPixels(actual.data(), squares.data(), count, what);
      return;
    }
    std::vector<float> sampled(expected.size());
    for (size_t i = 0; i < sampled.size(); ++i)
    {
      sampled[i] = actual[std::min(i * SampleStride, count - 1)];
    }
    CheckPixels(sampled.data(), expected.data(), expected.size(),
                what + " (every " + std::to_string(SampleStride) + "th pixel)");
  };
  const auto noop = [] {};

  // Ceilings: peer copies of up to 1 GiB each way, and both ways at once.
  const size_t peerBytes = std::min(bytes, size_t{ 1 } << 30);
  auto         remote = itk::GPUMemPointer::New();
  remote->Allocate(peerBytes, 1);
  cudaStream_t streams[2] = {};
  CUDA_CHECK(cudaStreamCreate(&streams[0])); // blocking: ordered with the timer's events
  CUDA_CHECK(cudaStreamCreate(&streams[1]));
  const Samples toOne = timer.Time(WarmUpRuns, options.repeats, noop, [&] {
    CUDA_CHECK(cudaMemcpyPeerAsync(remote->GetPointer(), 1, in, 0, peerBytes, nullptr));
  });
  const Samples toZero = timer.Time(WarmUpRuns, options.repeats, noop, [&] {
    CUDA_CHECK(cudaMemcpyPeerAsync(out, 0, remote->GetPointer(), 1, peerBytes, nullptr));
  });
  const Samples bothWays = timer.Time(WarmUpRuns, options.repeats, noop, [&] {
    const size_t half = peerBytes / 2;
    CUDA_CHECK(cudaMemcpyPeerAsync(remote->GetPointer(), 1, in, 0, half, streams[0]));
    CUDA_CHECK(cudaMemcpyPeerAsync(out, 0, static_cast<char *>(remote->GetPointer()) + half, 1, half, streams[1]));
  });
  CUDA_CHECK(cudaStreamDestroy(streams[0]));
  CUDA_CHECK(cudaStreamDestroy(streams[1]));
  remote = nullptr;
  const std::string shape = "1 GiB";
  const double peer = static_cast<double>(peerBytes);
  results.Add({ "peer copy device 0 -> 1", n, shape, ToBandwidth(toOne, peer), "GB/s", "", NotANumber });
  results.Add({ "peer copy device 1 -> 0", n, shape, ToBandwidth(toZero, peer), "GB/s", "", NotANumber });
  results.Add({ "peer copy both ways at once (sum)", n, shape, ToBandwidth(bothWays, peer), "GB/s", "", NotANumber });

  struct Work
  {
    std::string                                   name;
    const std::vector<float> *                    expected;
    itk::CudaDeviceSplitter::ElementwiseFunction function;
  };
  const Work works[2] = {
    { "square", &squares,
      [](const void * a, void * b, size_t c, cudaStream_t s) {
        itk::CudaSquareImage<float>(c, static_cast<const float *>(a), static_cast<float *>(b), s);
      } },
    { "1000 FMA/pixel", &iterated,
      [](const void * a, void * b, size_t c, cudaStream_t s) {
        CudaBenchmark::IterateAffine(static_cast<const float *>(a), static_cast<float *>(b), c, Iterations, s);
      } },
  };
  const std::vector<std::vector<double>> weights = { { 1.0, 1.0 }, { 3.0, 1.0 }, { 4.0, 1.0 }, { 9.0, 1.0 } };
  for (const Work & work : works)
  {
    const auto alone = [&] { work.function(in, out, count, nullptr); };
    check(alone, *work.expected, work.name + " on device 0");
    const Samples oneDevice = ToBandwidth(timer.Time(WarmUpRuns, options.repeats, noop, alone), traffic);
    results.Add({ work.name + ", device 0 alone", n, CubeShape(n), oneDevice, "GB/s", "", NotANumber });
    for (const auto & weight : weights)
    {
      itk::CudaDeviceSplitter splitter;
      splitter.SetDevices({ 0, 1 }, weight);
      const auto split = [&] { splitter.Run(in, out, count, sizeof(float), 0, nullptr, work.function); };
      const int  share = static_cast<int>(std::lround(100.0 * weight[0] / (weight[0] + weight[1])));
      const std::string name = work.name + ", devices 0+1, " + std::to_string(share) + "% on device 0";
      check(split, *work.expected, name);
      const Samples twoDevices = ToBandwidth(timer.Time(WarmUpRuns, options.repeats, noop, split), traffic);
      results.Add({ name, n, CubeShape(n), twoDevices, "GB/s", work.name + " on device 0 alone", oneDevice.median });
    }
  }
}

std::string
DescribeDevice(int device)
{
  cudaDeviceProp properties{};
  CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  int driver = 0;
  int runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  std::ostringstream text;
  text << "CUDA device " << device << ": " << properties.name << ", compute capability " << properties.major << '.'
       << properties.minor << ", " << properties.multiProcessorCount << " SMs, " << std::fixed << std::setprecision(1)
       << static_cast<double>(properties.totalGlobalMem) / (1u << 30) << " GiB, L2 "
       << static_cast<double>(properties.l2CacheSize) / (1u << 20) << " MiB, driver " << driver / 1000 << '.'
       << (driver % 1000) / 10 << ", runtime " << runtime / 1000 << '.' << (runtime % 1000) / 10;
  return text.str();
}

int
RunBenchmark(const Options & options)
{
  Results results;
  results.repeats = options.repeats;
  results.itkThreads = itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads();

  std::cout << "CudaCommon " << CudaCommon_VERSION_STRING << " benchmark\n";
  const bool gpu = itk::IsCudaAvailable();
  if (gpu)
  {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaFree(nullptr)); // create the context before anything is timed
    results.device = DescribeDevice(device);
    std::cout << "GPU rows: measured on " << results.device << '\n';
  }
  else
  {
    results.skipReason = "no usable CUDA device (" + itk::CudaUnavailableReason() + ")";
    std::cout << "GPU rows: skipped, " << results.skipReason << "; only the CPU rows run\n";
  }
  std::cout << "Sizes:";
  for (const unsigned long n : options.sizes)
  {
    std::cout << ' ' << CubeShape(n);
  }
  std::cout << "; " << options.repeats << " timed runs after " << WarmUpRuns << " warm-up runs; ITK threads "
            << results.itkThreads << '\n';

  MeasurePerImageCost(results);
  std::unique_ptr<DeviceTimer> timer;
  if (gpu)
  {
    timer = std::make_unique<DeviceTimer>();
  }
  for (const unsigned long n : options.sizes)
  {
    double                    copyBandwidth = NotANumber;
    std::pair<double, double> pinned{ NotANumber, NotANumber };
    if (gpu)
    {
      pinned = MeasureTransfers(results, n, options);
      copyBandwidth = MeasureSquareKernel<float>(results, *timer, n, options, 0.5, 1.5, true);
      MeasureSquareKernel<unsigned char>(results, *timer, n, options, 1.0, 15.0, false);
      MeasureSquareKernel<double>(results, *timer, n, options, 0.5, 1.5, false);
    }
    MeasureEndToEnd(results, n, options, gpu);
    MeasureAllocateAgain(results, n, options, gpu);
    if (gpu)
    {
      MeasureChain(results, n, options, copyBandwidth);
    }
    MeasureCPUAccessOfGPUImage(results, n, options, gpu, pinned);
    if (gpu)
    {
      MeasureFirstUse(results, n, options);
    }
  }
  if (gpu)
  {
    const auto & sizes = options.sizes;
    MeasureColdChain(results,
                     std::find(sizes.begin(), sizes.end(), OneShotChainEdge) != sizes.end()
                       ? OneShotChainEdge
                       : *std::max_element(sizes.begin(), sizes.end()),
                     options);
  }
  std::vector<cudaDeviceProp> devices;
  if (gpu && options.splitSize > 0 && itk::CudaGetAvailableDevices(devices) >= 2)
  {
    MeasureTwoDevices(results, *timer, options.splitSize, options);
  }
  else if (gpu && options.splitSize > 0)
  {
    results.AddNote("two-GPU rows: skipped, this machine has one CUDA device");
  }
  timer.reset();

  std::cout << '\n';
  results.PrintTable(std::cout);
  if (!options.jsonFile.empty())
  {
    results.WriteJson(options.jsonFile);
    std::cout << "Wrote " << options.jsonFile << '\n';
  }
  return EXIT_SUCCESS;
}
} // namespace

int
main(int argc, char * argv[])
{
  Options options;
  bool    helpRequested = false;
  if (!ParseArguments(argc, argv, options, helpRequested))
  {
    PrintUsage(std::cerr, argv[0]);
    return EXIT_FAILURE;
  }
  if (helpRequested)
  {
    PrintUsage(std::cout, argv[0]);
    return EXIT_SUCCESS;
  }
  try
  {
    return options.coldChainSize > 0 ? RunColdChain(options.coldChainSize) : RunBenchmark(options);
  }
  catch (const itk::ExceptionObject & error)
  {
    std::cerr << "Error: " << error << '\n';
  }
  catch (const std::exception & error)
  {
    std::cerr << "Error: " << error.what() << '\n';
  }
  return EXIT_FAILURE;
}
