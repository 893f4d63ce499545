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

// CudaCommonBenchmark: the reduction kernels (statistics, extrema with their
// positions, dot product) against a read-only kernel timed in turns with them.

#include "CudaBenchmarkKernels.hcu"
#include "CudaBenchmarkSupport.h"

#include "itkCudaPixelReduction.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace CudaBenchmark
{
namespace
{
/** Fail unless `got` is within `tolerance` of `expected`. */
void
ExpectClose(double got, double expected, double tolerance, const std::string & what)
{
  if (!(std::abs(got - expected) <= tolerance))
  {
    itkGenericExceptionMacro(<< what << ": got " << got << ", expected " << expected << " (tolerance " << tolerance
                             << ")");
  }
}

template <typename T>
void
MeasureStatistics(Results &       results,
                  DeviceTimer &   timer,
                  unsigned long   n,
                  const Options & options,
                  double          low,
                  double          high,
                  bool            positions)
{
  const size_t      count = static_cast<size_t>(n) * n * n;
  const size_t      bytes = count * sizeof(T);
  const std::string pixel = PixelName(T{});
  const std::string what = positions ? "extrema and positions kernel " + pixel : "statistics kernel " + pixel;
  std::cout << "[" << CubeShape(n) << "] " << what << '\n';
  std::vector<T> values(count);
  FillPattern(values.data(), count, low, high, 9);
  double sum = 0.0;
  double squares = 0.0;
  for (const T value : values)
  {
    sum += static_cast<double>(value);
    squares += static_cast<double>(value) * static_cast<double>(value);
  }
  DeviceMemory inBuffer = AllocateDeviceMemory(bytes);
  DeviceMemory scratchBuffer = AllocateDeviceMemory(256 + itk::CudaPixelReductionScratchBytes<T>());
  DeviceMemory sink = AllocateDeviceMemory(ReadAllBlocks * sizeof(unsigned int));
  const auto * in = static_cast<const T *>(inBuffer.get());
  auto *       accumulator = static_cast<itk::CudaPixelStatistics<T> *>(scratchBuffer.get());
  void *       partials = static_cast<char *>(scratchBuffer.get()) + 256;
  CUDA_CHECK(cudaMemcpy(inBuffer.get(), values.data(), bytes, cudaMemcpyHostToDevice));

  const T                            lowest = std::numeric_limits<T>::max();
  const T                            highest = std::numeric_limits<T>::lowest();
  const itk::CudaPixelStatistics<T> initial{ 0.0, 0.0, lowest, highest, itk::CudaPixelNotFound, itk::CudaPixelNotFound };
  itk::CudaRegionGeometry            box{};
  for (unsigned int d = 0; d < 3; ++d)
  {
    box.InputSize[d] = n;
    box.OutputSize[d] = n;
  }
  const auto reset = [&] {
    CUDA_CHECK(cudaMemcpyAsync(accumulator, &initial, sizeof(initial), cudaMemcpyHostToDevice, nullptr));
  };
  const auto launch = [&] {
    itk::CudaReducePixelsAsync(in, box, 0, positions, lowest, highest, accumulator, partials, nullptr);
  };
  reset();
  launch();
  itk::CudaPixelStatistics<T> result{};
  CUDA_CHECK(cudaMemcpy(&result, accumulator, sizeof(result), cudaMemcpyDeviceToHost));
  ExpectClose(result.Sum, sum, 1e-9 * static_cast<double>(count), what + " sum");
  ExpectClose(result.SumOfSquares, squares, 1e-9 * static_cast<double>(count), what + " sum of squares");
  const auto extrema = std::minmax_element(values.begin(), values.end());
  ExpectClose(result.Minimum, *extrema.first, 0.0, what + " minimum");
  ExpectClose(result.Maximum, *extrema.second, 0.0, what + " maximum");
  if (positions)
  {
    ExpectClose(static_cast<double>(result.PositionOfMinimum),
                static_cast<double>(extrema.first - values.begin()), 0.0, what + " position of the minimum");
  }

  const auto readAll = [&] { ReadAll(in, bytes, static_cast<unsigned int *>(sink.get()), nullptr); };
  const auto times = timer.TimeInTurns(WarmUpRuns, options.repeats, [] {}, readAll, reset, launch);
  results.Add({ what + " (1 read)",
                n,
                CubeShape(n),
                ToBandwidth(times.second, static_cast<double>(bytes)),
                "GB/s",
                "read-only kernel, 16-byte loads",
                ToBandwidth(times.first, static_cast<double>(bytes)).median });
}

void
MeasureDotProduct(Results & results, DeviceTimer & timer, unsigned long n, const Options & options)
{
  const size_t count = static_cast<size_t>(n) * n * n;
  const size_t bytes = count * sizeof(float);
  std::cout << "[" << CubeShape(n) << "] dot product kernel, float pixels\n";
  std::vector<float> x(count);
  std::vector<float> y(count);
  FillPattern(x.data(), count, -1.0, 1.0, 3);
  FillPattern(y.data(), count, -1.0, 1.0, 4);
  double expected = 0.0;
  for (size_t i = 0; i < count; ++i)
  {
    expected += static_cast<double>(x[i]) * static_cast<double>(y[i]);
  }
  DeviceMemory xBuffer = AllocateDeviceMemory(bytes);
  DeviceMemory yBuffer = AllocateDeviceMemory(bytes);
  DeviceMemory scratchBuffer = AllocateDeviceMemory(256 + itk::CudaPixelReductionScratchBytes<float>());
  DeviceMemory sink = AllocateDeviceMemory(ReadAllBlocks * sizeof(unsigned int));
  CUDA_CHECK(cudaMemcpy(xBuffer.get(), x.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(yBuffer.get(), y.data(), bytes, cudaMemcpyHostToDevice));
  auto *     result = static_cast<double *>(scratchBuffer.get());
  void *     partials = static_cast<char *>(scratchBuffer.get()) + 256;
  const auto launch = [&] {
    itk::CudaDotProductAsync(
      static_cast<const float *>(xBuffer.get()), static_cast<const float *>(yBuffer.get()), count, result, partials, nullptr);
  };
  launch();
  double got = 0.0;
  CUDA_CHECK(cudaMemcpy(&got, result, sizeof(got), cudaMemcpyDeviceToHost));
  ExpectClose(got, expected, 1e-9 * static_cast<double>(count), "dot product kernel float");

  const auto readAll = [&] { ReadAll(xBuffer.get(), bytes, static_cast<unsigned int *>(sink.get()), nullptr); };
  const auto times = timer.TimeInTurns(WarmUpRuns, options.repeats, [] {}, readAll, [] {}, launch);
  results.Add({ "dot product kernel float (2 reads)",
                n,
                CubeShape(n),
                ToBandwidth(times.second, 2.0 * static_cast<double>(bytes)),
                "GB/s",
                "read-only kernel, 16-byte loads",
                ToBandwidth(times.first, static_cast<double>(bytes)).median });
}
} // namespace

void
MeasureReductionKernels(Results & results, DeviceTimer & timer, unsigned long n, const Options & options)
{
  MeasureStatistics<float>(results, timer, n, options, -1.0, 1.0, false);
  MeasureStatistics<float>(results, timer, n, options, -1.0, 1.0, true);
  MeasureStatistics<double>(results, timer, n, options, -1.0, 1.0, false);
  MeasureStatistics<unsigned char>(results, timer, n, options, 0.0, 255.0, false);
  MeasureDotProduct(results, timer, n, options);
}
} // namespace CudaBenchmark
