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

// CudaCommonBenchmark: the rows of CPU access to CPU- and GPU-current images.

#include "CudaBenchmarkSupport.h"

#include "itkImageRegionConstIterator.h"

#include <numeric>

namespace CudaBenchmark
{
namespace
{
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
} // namespace

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
} // namespace CudaBenchmark
