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

// This file: main() and the driver; CudaBenchmarkSupport.h lists the other files.

#include "CudaBenchmarkSupport.h"

#include "itkMultiThreaderBase.h"

#include <cstdlib>
#include <iomanip>
#include <sstream>

namespace CudaBenchmark
{
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

namespace
{
/** The table, and the JSON file when asked for. */
int
Report(const Results & results, const Options & options)
{
  std::cout << '\n';
  results.PrintTable(std::cout);
  if (!options.jsonFile.empty())
  {
    results.WriteJson(options.jsonFile);
    std::cout << "Wrote " << options.jsonFile << '\n';
  }
  return EXIT_SUCCESS;
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

  std::unique_ptr<DeviceTimer> timer;
  if (options.kernelsOnly)
  {
    if (gpu)
    {
      timer = std::make_unique<DeviceTimer>();
      for (const unsigned long n : options.sizes)
      {
        if (!options.neighborhoodOnly)
        {
          MeasureSquareKernel<float>(results, *timer, n, options, 0.5, 1.5, true);
          MeasureAddKernel(results, *timer, n, options);
          MeasureReductionKernels(results, *timer, n, options);
          MeasureRegionKernels(results, *timer, n, options);
        }
        MeasureNeighborhoodKernels(results, *timer, n, options);
      }
      timer.reset();
    }
    return Report(results, options);
  }
  MeasurePerImageCost(results);
  if (gpu)
  {
    MeasureSmallImageRoundTrip(results);
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
      MeasureSquareKernel<unsigned char>(results, *timer, n, options, 1.0, 15.0, true);
      MeasureSquareKernel<double>(results, *timer, n, options, 0.5, 1.5, true);
      MeasureAddKernel(results, *timer, n, options);
      MeasureReductionKernels(results, *timer, n, options);
      MeasureRegionKernels(results, *timer, n, options);
      MeasureNeighborhoodKernels(results, *timer, n, options);
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
  return Report(results, options);
}
} // namespace
} // namespace CudaBenchmark

int
main(int argc, char * argv[])
{
  using namespace CudaBenchmark;
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
