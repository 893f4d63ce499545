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

// CudaCommonBenchmark: the two-GPU rows.

#include "CudaBenchmarkSupport.h"

#include "CudaBenchmarkKernels.hcu"
#include "itkCudaDeviceSplitter.h"
#include "itkCudaDiscreteGaussianImageFilter.h"
#include "itkCudaMeanImageFilter.h"
#include "itkCudaSquareImage.hcu"

#include <cstring>

namespace CudaBenchmark
{
namespace
{
/** A neighborhood filter of an n^3 float CudaImage resident on device 0, by
 * device 0 alone and in slabs on devices 0 and 1 (SetSplitDevices: each
 * slab's planes and halo copied to device 1, its output copied back); each
 * timed from Update() to the device's idle, `traffic` bytes moved a run. The
 * split's output is checked equal to device 0's, pixel for pixel. */
template <typename TFilter, typename TSetup>
void
MeasureNeighborhoodSplit(Results &           results,
                         DeviceTimer &       timer,
                         unsigned long       n,
                         const Options &     options,
                         const std::string & name,
                         double              traffic,
                         TSetup &&           setup)
{
  using ImageType = itk::CudaImage<float, 3>;
  const size_t count = static_cast<size_t>(n) * n * n;
  auto         image = ImageType::New();
  ImageType::SizeType size;
  size.Fill(n);
  image->SetRegions(size);
  image->Allocate();
  FillPattern(image->GetBufferPointer(), count, -1.0, 1.0, 23);
  image->GetCudaDataManager()->GetConstGPUBufferPointer(); // resident on device 0
  const auto run = [&](const std::vector<int> & devices, const std::vector<double> & weights, std::vector<float> * out) {
    auto filter = TFilter::New();
    filter->SetInput(image);
    setup(*filter);
    filter->SetSplitDevices(devices, weights);
    const auto update = [&] {
      filter->Modified();
      filter->Update();
      CUDA_CHECK(cudaDeviceSynchronize());
    };
    const Samples times = timer.Time(WarmUpRuns, options.repeats, [] {}, update);
    out->resize(count);
    std::memcpy(out->data(), filter->GetOutput()->GetBufferPointer(), count * sizeof(float)); // downloads
    return ToBandwidth(times, traffic);
  };
  std::vector<float> alone;
  const Samples      oneDevice = run({}, {}, &alone);
  results.Add({ name + ", device 0 alone", n, CubeShape(n), oneDevice, "GB/s", "", NotANumber });
  for (const auto & weights : std::vector<std::vector<double>>{ { 1.0, 1.0 }, { 3.0, 1.0 } })
  {
    std::vector<float> split;
    const Samples      twoDevices = run({ 0, 1 }, weights, &split);
    const int          share = static_cast<int>(std::lround(100.0 * weights[0] / (weights[0] + weights[1])));
    const std::string  row = name + ", slabs on devices 0+1, " + std::to_string(share) + "% on device 0";
    if (std::memcmp(split.data(), alone.data(), count * sizeof(float)) != 0)
    {
      itkGenericExceptionMacro("the " << row << " differs from device 0 alone");
    }
    results.Add({ row, n, CubeShape(n), twoDevices, "GB/s", name + ", device 0 alone", oneDevice.median });
  }
}
} // namespace

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
  inBuffer.reset();
  outBuffer.reset();

  // Neighborhood filters in slabs with halos (CudaSlabSplitter), bandwidth
  // counted as their floors count it: three passes 24 bytes a voxel, one box
  // pass 8.
  const double voxels = static_cast<double>(count);
  MeasureNeighborhoodSplit<itk::CudaDiscreteGaussianImageFilter<itk::CudaImage<float, 3>>>(
    results, timer, n, options, "Gaussian sigma 2 (11 taps, 3 passes)", 24.0 * voxels, [](auto & f) {
      f.SetVariance(4.0);
      f.SetUseImageSpacing(false);
    });
  MeasureNeighborhoodSplit<itk::CudaMeanImageFilter<itk::CudaImage<float, 3>>>(
    results, timer, n, options, "mean radius 2 (one box pass)", 8.0 * voxels, [](auto & f) { f.SetRadius(2); });
}
} // namespace CudaBenchmark
