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
// CudaCommonBenchmark: the region filters' device work (the crop's box copy,
// the constant pad's fill and copy, the paste's copies) against a
// device-to-device cudaMemcpy of the output, timed in turns with them.

#include "CudaBenchmarkSupport.h"

#include "itkCudaRegionCopy.h"

namespace CudaBenchmark
{
namespace
{
using Region = itk::ImageRegion<3>;

Region
Cube(itk::IndexValueType start, unsigned long size)
{
  return Region({ { start, start, start } }, { { size, size, size } });
}

/** Time `launch`, which writes the `outputBytes` of `out` moving `bytes` in
 * all, against a device-to-device copy of `outputBytes` into `out`; check
 * the pixels it wrote against `expected` first. */
template <typename TLaunch>
void
MeasureRegionWork(Results &                  results,
                  DeviceTimer &              timer,
                  unsigned long              n,
                  const Options &            options,
                  const std::string &        what,
                  void *                     out,
                  const void *               copySource,
                  size_t                     outputBytes,
                  double                     bytes,
                  const std::vector<float> & expected,
                  TLaunch &&                 launch)
{
  std::cout << "[" << CubeShape(n) << "] " << what << '\n';
  launch();
  CheckDeviceBuffer(out, expected.data(), expected.size(), what);
  const auto copy = [&] {
    CUDA_CHECK(cudaMemcpyAsync(out, copySource, outputBytes, cudaMemcpyDeviceToDevice, nullptr));
  };
  const auto times = timer.TimeInTurns(WarmUpRuns, options.repeats, [] {}, copy, [] {}, launch);
  results.Add({ what,
                n,
                CubeShape(n),
                ToBandwidth(times.second, bytes),
                "GB/s",
                "device-to-device cudaMemcpy of the output",
                ToBandwidth(times.first, 2.0 * static_cast<double>(outputBytes)).median });
}
} // namespace

void
MeasureRegionKernels(Results & results, DeviceTimer & timer, unsigned long n, const Options & options)
{
  // The whole image (n^3 float), a border of b pixels, the inner cube of n - 2b.
  const unsigned long b = n / 32;
  const unsigned long m = n - 2 * b;
  const size_t        big = static_cast<size_t>(n) * n * n;
  const size_t        small = static_cast<size_t>(m) * m * m;
  std::vector<float>  whole(big);
  std::vector<float>  inner(small);
  FillPattern(whole.data(), big, -1.0, 1.0, 11);
  FillPattern(inner.data(), small, -1.0, 1.0, 12);
  DeviceMemory wholeBuffer = AllocateDeviceMemory(big * sizeof(float));
  DeviceMemory innerBuffer = AllocateDeviceMemory(small * sizeof(float));
  DeviceMemory outBuffer = AllocateDeviceMemory(big * sizeof(float));
  CUDA_CHECK(cudaMemcpy(wholeBuffer.get(), whole.data(), big * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(innerBuffer.get(), inner.data(), small * sizeof(float), cudaMemcpyHostToDevice));
  const auto at = [](const Region & region, long x, long y, long z) {
    const auto & size = region.GetSize();
    return (static_cast<size_t>(z - region.GetIndex(2)) * size[1] + static_cast<size_t>(y - region.GetIndex(1))) *
             size[0] +
           static_cast<size_t>(x - region.GetIndex(0));
  };
  // Calls f(x, y, z) for each pixel of the inner cube, in its own coordinates.
  const auto forInner = [m](auto && f) {
    for (long z = 0; z < static_cast<long>(m); ++z)
    {
      for (long y = 0; y < static_cast<long>(m); ++y)
      {
        for (long x = 0; x < static_cast<long>(m); ++x)
        {
          f(x, y, z);
        }
      }
    }
  };
  const Region wholeRegion = Cube(0, n);
  const Region innerRegion = Cube(static_cast<itk::IndexValueType>(b), m);
  const float  constant = 0.5f;

  // Crop: the inner cube of the whole image, into a compact buffer.
  std::vector<float> expected(small);
  forInner([&](long x, long y, long z) { expected[at(Cube(0, m), x, y, z)] = whole[at(wholeRegion, x + b, y + b, z + b)]; });
  MeasureRegionWork(results, timer, n, options, "crop kernel float (1 read + 1 write of the kept box)",
                    outBuffer.get(), wholeBuffer.get(), small * sizeof(float), 2.0 * small * sizeof(float), expected,
                    [&] {
                      itk::CudaCopyImageBoxAsync(outBuffer.get(), innerRegion, innerRegion, wholeBuffer.get(),
                                                 wholeRegion, innerRegion.GetIndex(), sizeof(float), nullptr);
                    });

  // The same copy by the CUDA runtime's own strided copy (cudaMemcpy3DAsync
  // between pitched device buffers): what a user gets without CudaCommon's
  // kernel, for comparison (slower than the crop kernel on an H100, stop 47).
  MeasureRegionWork(results, timer, n, options, "crop by cudaMemcpy3DAsync float (the runtime's strided copy)",
                    outBuffer.get(), wholeBuffer.get(), small * sizeof(float), 2.0 * small * sizeof(float), expected,
                    [&] {
                      cudaMemcpy3DParms copy{};
                      copy.srcPtr = make_cudaPitchedPtr(wholeBuffer.get(), n * sizeof(float), n, n);
                      copy.srcPos = make_cudaPos(b * sizeof(float), b, b);
                      copy.dstPtr = make_cudaPitchedPtr(outBuffer.get(), m * sizeof(float), m, m);
                      copy.extent = make_cudaExtent(m * sizeof(float), m, m);
                      copy.kind = cudaMemcpyDeviceToDevice;
                      CUDA_CHECK(cudaMemcpy3DAsync(&copy, nullptr));
                    });

  // The same box one pixel further along x: its rows start 4 bytes past 16, so 4-byte words.
  const Region shifted({ { static_cast<itk::IndexValueType>(b + 1), static_cast<itk::IndexValueType>(b),
                           static_cast<itk::IndexValueType>(b) } },
                       innerRegion.GetSize());
  forInner([&](long x, long y, long z) { expected[at(Cube(0, m), x, y, z)] = whole[at(wholeRegion, x + b + 1, y + b, z + b)]; });
  MeasureRegionWork(results, timer, n, options, "crop kernel float, rows 4 bytes past 16 (4-byte words)",
                    outBuffer.get(), wholeBuffer.get(), small * sizeof(float), 2.0 * small * sizeof(float), expected,
                    [&] {
                      itk::CudaCopyImageBoxAsync(outBuffer.get(), shifted, shifted, wholeBuffer.get(), wholeRegion,
                                                 shifted.GetIndex(), sizeof(float), nullptr);
                    });

  // Constant pad: the inner cube grown back to n^3, one pass (the input inside, the constant outside).
  expected.assign(big, constant);
  forInner([&](long x, long y, long z) { expected[at(wholeRegion, x + b, y + b, z + b)] = inner[at(Cube(0, m), x, y, z)]; });
  MeasureRegionWork(results, timer, n, options, "constant pad kernel float (1 read of the input + 1 write)",
                    outBuffer.get(), wholeBuffer.get(), big * sizeof(float), (small + big) * sizeof(float), expected,
                    [&] {
                      itk::CudaComposeImageBoxAsync(outBuffer.get(), wholeRegion, innerRegion, innerBuffer.get(),
                                                    innerRegion, innerRegion.GetIndex(), nullptr, wholeRegion,
                                                    &constant, sizeof(float), nullptr);
                    });

  // Paste: the inner cube over the middle of the whole image, one pass (each output pixel read from the
  // destination or the source and written once).
  expected = whole;
  forInner([&](long x, long y, long z) { expected[at(wholeRegion, x + b, y + b, z + b)] = inner[at(Cube(0, m), x, y, z)]; });
  MeasureRegionWork(results, timer, n, options, "paste kernel float (destination around, source inside)",
                    outBuffer.get(), wholeBuffer.get(), big * sizeof(float), 2.0 * big * sizeof(float), expected,
                    [&] {
                      itk::CudaComposeImageBoxAsync(outBuffer.get(), wholeRegion, innerRegion, innerBuffer.get(),
                                                    innerRegion, innerRegion.GetIndex(), wholeBuffer.get(),
                                                    wholeRegion, nullptr, sizeof(float), nullptr);
                    });
}
} // namespace CudaBenchmark
