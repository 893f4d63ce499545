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

// The shared infrastructure of CudaCommonBenchmark (CudaBenchmarkSupport.h).

#include "CudaBenchmarkSupport.h"

#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace CudaBenchmark
{
void
PrintUsage(std::ostream & os, const char * program)
{
  os << "Usage: " << program << " [--sizes N[,N...]] [--repeats R] [--split-size N] [--kernels-only]\n"
     << "       [--neighborhood-only] [--json FILE]\n"
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
     << "  --kernels-only    only the device kernel rows (square, add, reductions, regions, Gaussian; GPU)\n"
     << "  --neighborhood-only  only the neighborhood filters' kernel rows (separable passes, stencils; GPU)\n"
     << "  --json FILE       also write every row to FILE as JSON\n"
     << "  --help            print this help\n"
     << "\n"
     << "Rows (per size in --sizes unless noted; (GPU): only with a CUDA device):\n"
     << "  per-image cost         CudaImage New+SetRegions+Allocate, 16x16, vs itk::Image; and (GPU) the\n"
     << "                         round trip New+SetRegions+Allocate+FillBuffer+GetGPUBufferPointer+destroy\n"
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

namespace
{
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
} // namespace

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
    if (argument == "--kernels-only" || argument == "--neighborhood-only")
    {
      options.kernelsOnly = true;
      options.neighborhoodOnly = argument == "--neighborhood-only";
      continue;
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

namespace
{
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
} // namespace

void
Results::PrintTable(std::ostream & os) const
{
  const std::vector<std::string> header{ "measurement", "size", "value", "unit", "ceiling", "ceiling value", "ratio" };
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
Results::WriteJson(const std::string & fileName) const
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
// CUDA resources (raw CUDA runtime: the ceilings must not go through CudaCommon)

DeviceMemory
AllocateDeviceMemory(size_t bytes)
{
  void * pointer = nullptr;
  CUDA_CHECK(cudaMalloc(&pointer, bytes));
  return DeviceMemory(pointer);
}

PinnedMemory
AllocatePinnedMemory(size_t bytes)
{
  void * pointer = nullptr;
  CUDA_CHECK(cudaMallocHost(&pointer, bytes));
  return PinnedMemory(pointer);
}

// ---------------------------------------------------------------------------
// Timing

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
} // namespace CudaBenchmark
