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

// CudaCommonBenchmark: the square kernel, end-to-end filter and device-resident chain rows.

#include "CudaBenchmarkSupport.h"

#include "itkAddImageFilter.h"
#include "itkCudaAddImageFilter.h"
#include "itkCudaFunctorLaunch.h"
#include "itkCudaFunctors.h"
#include "itkCudaHostMemoryPool.h"
#include "itkCudaSquareImage.hcu"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaStreamedTransform.h"
#include "itkMultiThreaderBase.h"
#include "itkSquareImageFilter.h"

namespace CudaBenchmark
{
namespace
{
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

/** Update() of `filter`, then the host pointer of its output, which brings a
 * result computed on the GPU down (or finds it there). */
template <typename TFilter>
void
UpdateAndReadOnHost(TFilter * filter)
{
  filter->Update();
  using OutputImageType = typename TFilter::OutputImageType;
  if (static_cast<const OutputImageType *>(filter->GetOutput())->GetBufferPointer() == nullptr)
  {
    itkGenericExceptionMacro(<< filter->GetNameOfClass() << " produced no host buffer");
  }
}
} // namespace

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
  const auto copy = [&] { CUDA_CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, nullptr)); };
  const std::string ceilingName = "cudaMemcpy D2D, read+write";
  // Each row against a copy timed in turns with it (its ceiling).
  double     firstCeiling = 0.0;
  const auto addRow = [&](const std::string & name, const std::string & shape, auto && setup, auto && launch) {
    const auto   times = timer.TimeInTurns(WarmUpRuns, options.repeats, noop, copy, setup, launch);
    const double ceiling = ToBandwidth(times.first, traffic).median;
    firstCeiling = firstCeiling > 0.0 ? firstCeiling : ceiling;
    results.Add({ name, n, shape, ToBandwidth(times.second, traffic), "GB/s", ceilingName, ceiling });
  };

  int        size3[3] = { static_cast<int>(n), static_cast<int>(n), static_cast<int>(n) };
  const auto launch3 = [&] { itk::CudaSquareImage3D<T>(size3, in, out); };
  CheckKernel(launch3, out, expected, "square kernel " + pixel + " 3-D");
  addRow("square kernel " + pixel + " 3-D", CubeShape(n), noop, launch3);

  int        size2[2] = { static_cast<int>(n * n), static_cast<int>(n) };
  const auto launch2 = [&] { itk::CudaSquareImage2D<T>(size2, in, out); };
  CheckKernel(launch2, out, expected, "square kernel " + pixel + " 2-D");
  addRow("square kernel " + pixel + " 2-D", PlaneShape(n * n, n), noop, launch2);

  if (inPlaceRow)
  {
    // Each run squares a fresh copy of the input (restored outside the events).
    const auto restore = [&] { CUDA_CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, nullptr)); };
    const auto launchInPlace = [&] { itk::CudaSquareImage<T>(count, out, out); };
    restore();
    launchInPlace();
    CUDA_CHECK(cudaDeviceSynchronize());
    CheckDeviceBuffer(out, expected.data(), count, "square kernel " + pixel + " in place");
    addRow("square kernel " + pixel + " 3-D in place", CubeShape(n), restore, launchInPlace);
  }
  return firstCeiling;
}

// The pixel types RunBenchmark measures.
template double
MeasureSquareKernel<float>(Results &, DeviceTimer &, unsigned long, const Options &, double, double, bool);
template double
MeasureSquareKernel<unsigned char>(Results &, DeviceTimer &, unsigned long, const Options &, double, double, bool);
template double
MeasureSquareKernel<double>(Results &, DeviceTimer &, unsigned long, const Options &, double, double, bool);

void
MeasureAddKernel(Results & results, DeviceTimer & timer, unsigned long n, const Options & options)
{
  const size_t      count = static_cast<size_t>(n) * n * n;
  const size_t      bytes = count * sizeof(float);
  const std::string pixel = PixelName(float{});
  std::cout << "[" << CubeShape(n) << "] add kernel, " << pixel << " pixels\n";
  std::vector<float> first(count);
  std::vector<float> second(count);
  std::vector<float> expected(count);
  FillPattern(first.data(), count, 0.5, 1.5, 5);
  FillPattern(second.data(), count, -1.0, 1.0, 7);
  const itk::CudaAddFunctor<float> add;
  std::transform(first.begin(), first.end(), second.begin(), expected.begin(), add);
  DeviceMemory in1Buffer = AllocateDeviceMemory(bytes);
  DeviceMemory in2Buffer = AllocateDeviceMemory(bytes);
  DeviceMemory outBuffer = AllocateDeviceMemory(bytes);
  auto *       in1 = static_cast<float *>(in1Buffer.get());
  auto *       in2 = static_cast<float *>(in2Buffer.get());
  auto *       out = static_cast<float *>(outBuffer.get());
  CUDA_CHECK(cudaMemcpy(in1, first.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(in2, second.data(), bytes, cudaMemcpyHostToDevice));
  const auto        noop = [] {};
  const auto        copy = [&] { CUDA_CHECK(cudaMemcpyAsync(out, in1, bytes, cudaMemcpyDeviceToDevice, nullptr)); };
  const std::string ceilingName = "cudaMemcpy D2D, read+write";
  const double      traffic = 3.0 * static_cast<double>(bytes);
  // Each row against a copy timed in turns with it (its ceiling).
  const auto addRow = [&](const std::string & name, auto && setup, auto && launch) {
    const auto times = timer.TimeInTurns(WarmUpRuns, options.repeats, noop, copy, setup, launch);
    results.Add({ name,
                  n,
                  CubeShape(n),
                  ToBandwidth(times.second, traffic),
                  "GB/s",
                  ceilingName,
                  ToBandwidth(times.first, 2.0 * static_cast<double>(bytes)).median });
  };

  const auto launch = [&] { itk::CudaTransformElements(count, in1, in2, out, add, nullptr); };
  CheckKernel(launch, out, expected, "add kernel " + pixel);
  addRow("add kernel " + pixel + " 3-D (2 reads + 1 write)", noop, launch);
  // In place on the first input, restored outside the events.
  const auto restore = [&] { CUDA_CHECK(cudaMemcpyAsync(out, in1, bytes, cudaMemcpyDeviceToDevice, nullptr)); };
  const auto launchInPlace = [&] { itk::CudaTransformElements(count, out, in2, out, add, nullptr); };
  restore();
  launchInPlace();
  CUDA_CHECK(cudaDeviceSynchronize());
  CheckDeviceBuffer(out, expected.data(), count, "add kernel " + pixel + " in place");
  addRow("add kernel " + pixel + " 3-D in place (2 reads + 1 write)", restore, launchInPlace);
}

/** The same filter on pageable host buffers (CudaHostPinning::Never: what a
 * one-shot pipeline's fresh image has), which go up and come down whole
 * through the staged copy; the bound of streaming them instead is the host's
 * memcpy (bench/experiments/pageable_stream.cu). */
void
MeasurePageableEndToEnd(Results & results, unsigned long n, const Options & options, const std::string & cpuName,
                        double cpuMedian)
{
  using CudaImageType = itk::CudaImage<float, 3>;
  auto &                     pool = itk::CudaHostMemoryPool::GetInstance();
  const itk::CudaHostPinning previous = pool.GetPinning();
  pool.SetPinning(itk::CudaHostPinning::Never);
  pool.ReleaseCache();
  try
  {
    auto input = MakeVolume<CudaImageType>(n, 0.5, 1.5, 6);
    auto filter = itk::CudaSquareImageFilter<CudaImageType>::New();
    filter->InPlaceOff();
    filter->SetInput(input);
    const Samples time = TimeOnHost(
      WarmUpRuns,
      options.repeats,
      true,
      [&] { input->Modified(); },
      [&] { UpdateAndReadOnHost(filter.GetPointer()); },
      [] {});
    const bool pinned =
      itk::CudaIsPinnedHostMemory(input->GetBufferPointer()) ||
      itk::CudaIsPinnedHostMemory(static_cast<const CudaImageType *>(filter->GetOutput())->GetBufferPointer());
    results.Add({ std::string("CudaSquareImageFilter Update + host read, pageable host buffers") +
                    (pinned ? " (PINNED: not measured as named)" : ""),
                  n,
                  CubeShape(n),
                  time,
                  "ms",
                  cpuName,
                  cpuMedian });
  }
  catch (...)
  {
    pool.SetPinning(previous);
    throw;
  }
  pool.SetPinning(previous);
}

/** CudaAddImageFilter::Update() of two host-resident pinned images, then
 * reading the sum on the host: streamed in chunks (both uploads overlapping
 * the download), and with whole copies; ITK's AddImageFilter beside them. */
void
MeasureAddEndToEnd(Results & results, unsigned long n, const Options & options)
{
  using PlainImageType = itk::Image<float, 3>;
  using CudaImageType = itk::CudaImage<float, 3>;
  const size_t       count = static_cast<size_t>(n) * n * n;
  const std::string  shape = CubeShape(n);
  const unsigned int threads = itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads();
  std::cout << "[" << shape << "] add filter end to end\n";

  auto cpuFirst = MakeVolume<PlainImageType>(n, 0.5, 1.5, 8);
  auto cpuSecond = MakeVolume<PlainImageType>(n, -1.0, 1.0, 9);
  auto cpuFilter = itk::AddImageFilter<PlainImageType>::New();
  cpuFilter->SetInput1(cpuFirst);
  cpuFilter->SetInput2(cpuSecond);
  const std::string cpuName = "ITK AddImageFilter Update, CPU " + std::to_string(threads) + " threads";
  const Samples     cpu = TimeOnHost(
    WarmUpRuns, options.repeats, false, [&] { cpuFirst->Modified(); }, [&] { cpuFilter->Update(); }, [] {});
  results.Add({ cpuName, n, shape, cpu, "ms", "", NotANumber });
  const float * expected = cpuFilter->GetOutput()->GetBufferPointer();

  auto &                     pool = itk::CudaHostMemoryPool::GetInstance();
  const itk::CudaHostPinning previous = pool.GetPinning();
  pool.SetPinning(itk::CudaHostPinning::Always); // every run streams, the first ones too
  try
  {
    auto first = CudaImageType::New();
    auto second = CudaImageType::New();
    for (auto & [image, source] : { std::make_pair(first, cpuFirst), std::make_pair(second, cpuSecond) })
    {
      image->SetRegions(CubeSize<CudaImageType>(n));
      image->Allocate();
      std::copy(source->GetBufferPointer(), source->GetBufferPointer() + count, image->GetBufferPointer());
    }
    auto filter = itk::CudaAddImageFilter<CudaImageType>::New();
    filter->SetInput1(first);
    filter->SetInput2(second);
    filter->Update();
    CheckPixels(static_cast<const CudaImageType *>(filter->GetOutput())->GetBufferPointer(),
                expected,
                count,
                "CudaAddImageFilter");
    unsigned int streamedRuns = 0;
    const auto   timeRuns = [&] {
      return TimeOnHost(
        WarmUpRuns,
        options.repeats,
        true,
        [&] {
          filter->GetOutput()->GetCudaDataManager()->ResetTransferStatistics();
          first->Modified();
          second->Modified();
        },
        [&] { UpdateAndReadOnHost(filter.GetPointer()); },
        [&] { streamedRuns += filter->GetOutput()->GetCudaDataManager()->GetTransferStatistics().HostToDeviceCount > 0; });
    };
    const Samples streamed = timeRuns();
    results.Add({ "CudaAddImageFilter Update + host read, pinned inputs", n, shape, streamed, "ms", cpuName, cpu.median });
    results.AddNote("add end to end at " + shape + ": " + std::to_string(streamedRuns) + " of " +
                    std::to_string(WarmUpRuns + options.repeats) + " runs streamed");
    CheckPixels(static_cast<const CudaImageType *>(filter->GetOutput())->GetBufferPointer(),
                expected,
                count,
                "CudaAddImageFilter, streamed");
    filter->SetTransferChunkBytes(0);
    results.Add({ "CudaAddImageFilter Update + host read, pinned inputs, whole copies (TransferChunkBytes 0)",
                  n,
                  shape,
                  timeRuns(),
                  "ms",
                  cpuName,
                  cpu.median });
  }
  catch (...)
  {
    pool.SetPinning(previous);
    throw;
  }
  pool.SetPinning(previous);
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
  unsigned int  streamedRuns = 0;
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
    [&] { UpdateAndReadOnHost(filter.GetPointer()); },
    [&] {
      const auto in = input->GetCudaDataManager()->GetTransferStatistics();
      const auto out = outputManager()->GetTransferStatistics();
      uploads = std::max(uploads, in.HostToDeviceCount + out.HostToDeviceCount);
      streamedRuns += out.HostToDeviceCount > 0 ? 1 : 0; // the streamed path counts its copies there
      downloads = std::max(downloads, in.DeviceToHostCount + out.DeviceToHostCount);
    });
  results.Add({ "CudaSquareImageFilter Update + host read", n, shape, gpuTime, "ms", cpuName, cpu.median });
  if (uploads != 1 || downloads != 1)
  {
    results.AddNote("end to end at " + shape + ": a run made up to " + std::to_string(uploads) + " host->device and " +
                    std::to_string(downloads) + " device->host copies (one of each expected)");
  }
  results.AddNote("end to end at " + shape + ": " + std::to_string(streamedRuns) + " of " +
                  std::to_string(WarmUpRuns + options.repeats) + " runs streamed through the device in chunks of " +
                  std::to_string(filter->GetTransferChunkBytes() >> 20) + " MiB on " +
                  std::to_string(filter->GetTransferStreams()) + " streams (pinned host buffers: input " +
                  (itk::CudaIsPinnedHostMemory(input->GetBufferPointer()) ? "yes" : "no") + ", output " +
                  (itk::CudaIsPinnedHostMemory(
                     static_cast<const CudaImageType *>(filter->GetOutput())->GetBufferPointer())
                     ? "yes"
                     : "no") +
                  " at the end)");
  // The same with the chunks off: whole upload, kernel, whole download.
  filter->SetTransferChunkBytes(0);
  const Samples whole = TimeOnHost(
    WarmUpRuns,
    options.repeats,
    true,
    [&] { input->Modified(); },
    [&] { UpdateAndReadOnHost(filter.GetPointer()); },
    [] {});
  results.Add({ "CudaSquareImageFilter Update + host read, whole copies (TransferChunkBytes 0)",
                n,
                shape,
                whole,
                "ms",
                cpuName,
                cpu.median });
  MeasurePageableEndToEnd(results, n, options, cpuName, cpu.median);
  MeasureAddEndToEnd(results, n, options);
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
} // namespace CudaBenchmark
