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
// CudaCommonBenchmark: the separable neighborhood passes of
// CudaDiscreteGaussianImageFilter (σ = 2 in pixels, ITK's kernel) and
// CudaMeanImageFilter (radius 2) on an n^3 float image, against a
// device-to-device cudaMemcpy of the image timed in turns with them: three
// passes, each one read and one write of the image (24 bytes per voxel), is
// the floor they are measured against; the mean also as CudaMeanImageFilter
// runs it on a 3-D image, one box pass (8 bytes per voxel). The derivative stencils of
// CudaGradientMagnitudeImageFilter, CudaLaplacianImageFilter and
// CudaGradientImageFilter (one pass: one read of the image and one write of
// the output, a float or a 3-vector per voxel) are measured the same way.

#include "CudaBenchmarkSupport.h"

#include "itkCudaAxisStencil.hcu"
#include "itkCudaBoxFilter.hcu"
#include "itkCudaSeparableConvolution.hcu"
#include "itkGaussianOperator.h"

#include <cmath>

namespace CudaBenchmark
{
namespace
{
/** Throws unless line (y, z) = (n / 2, n / 3) of `result` (on the device) is
 * within 1e-5 of the host's sums of `weights` along each axis of `image`
 * (nearest-pixel edges). */
void
CheckLine(const std::vector<float> &  image,
          const float *               result,
          unsigned long               n,
          const std::vector<double> & weights,
          const std::string &         name)
{
  std::vector<float> line(n);
  const size_t       y = n / 2;
  const size_t       z = n / 3;
  CUDA_CHECK(cudaMemcpy(line.data(), result + (z * n + y) * n, n * sizeof(float), cudaMemcpyDeviceToHost));
  const long radius = static_cast<long>(weights.size() / 2);
  const auto clamp = [n](long i) { return static_cast<size_t>(std::min<long>(std::max<long>(i, 0), n - 1)); };
  double     worst = 0.0;
  for (size_t x = 0; x < n; ++x)
  {
    double sum = 0.0;
    for (long i = -radius; i <= radius; ++i)
    {
      for (long j = -radius; j <= radius; ++j)
      {
        for (long k = -radius; k <= radius; ++k)
        {
          sum += weights[i + radius] * weights[j + radius] * weights[k + radius] *
                 image[(clamp(static_cast<long>(z) + i) * n + clamp(static_cast<long>(y) + j)) * n +
                       clamp(static_cast<long>(x) + k)];
        }
      }
    }
    worst = std::max(worst, std::abs(sum - static_cast<double>(line[x])));
  }
  if (!(worst <= 1e-5))
  {
    itkGenericExceptionMacro("the " << name << " differs from the host's sums by " << worst);
  }
}

/** Three passes of one 1-D kernel (the last axis first, as ITK's filters),
 * checked on a line of voxels against the same sums on the host, then timed
 * in turns with the D2D copy; each pass alone after. */
void
MeasureSeparable(Results &                   results,
                 DeviceTimer &               timer,
                 unsigned long               n,
                 const Options &             options,
                 const std::string &         name,
                 const std::vector<double> & weights)
{
  const size_t       count = static_cast<size_t>(n) * n * n;
  std::vector<float> image(count);
  FillPattern(image.data(), count, -1.0, 1.0, 21);
  DeviceMemory input = AllocateDeviceMemory(count * sizeof(float));
  DeviceMemory first = AllocateDeviceMemory(count * sizeof(float));
  DeviceMemory second = AllocateDeviceMemory(count * sizeof(float));
  CUDA_CHECK(cudaMemcpy(input.get(), image.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  const auto taps = static_cast<unsigned int>(weights.size());
  const auto pass = [&](unsigned int axis, float * out, const float * in) {
    itk::CudaConvolutionAxis geometry{ 1, n, 1 };
    geometry.Inner = axis == 0 ? 1 : (axis == 1 ? n : static_cast<size_t>(n) * n);
    geometry.Outer = axis == 2 ? 1 : (axis == 1 ? n : static_cast<size_t>(n) * n);
    itk::CudaConvolveAxisAsync(out, in, geometry, weights.data(), taps, itk::CudaBoundary::ZeroFluxNeumann, 0.0,
                               nullptr);
  };
  auto * in = static_cast<const float *>(input.get());
  auto * a = static_cast<float *>(first.get());
  auto * b = static_cast<float *>(second.get());
  const auto filter = [&] {
    pass(2, a, in);
    pass(1, b, a);
    pass(0, a, b);
  };

  filter();
  CheckLine(image, a, n, weights, name + " passes");
  const std::string what = name + " float, " + std::to_string(taps) + " taps, 3 passes (24 B/voxel floor)";
  std::cout << "[" << CubeShape(n) << "] " << what << '\n';
  const auto copy = [&] {
    CUDA_CHECK(cudaMemcpyAsync(b, in, count * sizeof(float), cudaMemcpyDeviceToDevice, nullptr));
  };
  const auto times = timer.TimeInTurns(WarmUpRuns, options.repeats, [] {}, copy, [] {}, filter);
  results.Add({ what,
                n,
                CubeShape(n),
                ToBandwidth(times.second, 6.0 * static_cast<double>(count) * sizeof(float)),
                "GB/s",
                "device-to-device cudaMemcpy of the image",
                ToBandwidth(times.first, 2.0 * static_cast<double>(count) * sizeof(float)).median });
  std::cout << "  " << name << " passes: median " << times.second.median << " ms for " << count
            << " voxels; D2D copy " << times.first.median << " ms\n";
  for (unsigned int axis = 0; axis < 3; ++axis)
  {
    const auto one = timer.Time(WarmUpRuns, options.repeats, [] {}, [&] { pass(axis, b, in); });
    std::cout << "  pass along axis " << axis << ": median " << one.median << " ms\n";
  }
}

/** The mean of radius r as one pass (CudaBoxFilterAsync, which
 * CudaMeanImageFilter runs for a 3-D image), checked as the passes are, then
 * timed in turns with the D2D copy. */
void
MeasureBox(Results & results, DeviceTimer & timer, unsigned long n, const Options & options, unsigned int r)
{
  const size_t       count = static_cast<size_t>(n) * n * n;
  std::vector<float> image(count);
  FillPattern(image.data(), count, -1.0, 1.0, 21);
  DeviceMemory input = AllocateDeviceMemory(count * sizeof(float));
  DeviceMemory output = AllocateDeviceMemory(count * sizeof(float));
  CUDA_CHECK(cudaMemcpy(input.get(), image.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  auto *                in = static_cast<const float *>(input.get());
  auto *                out = static_cast<float *>(output.get());
  itk::CudaBoxGeometry  box{ { n, n, n }, { n, n, n }, { 0, 0, 0 }, { r, r, r } };
  const double          taps = 2.0 * r + 1.0;
  const auto            filter = [&] {
    itk::CudaBoxFilterAsync(out, in, box, 1.0 / (taps * taps * taps), itk::CudaBoundary::ZeroFluxNeumann, 0.0, nullptr);
  };
  filter();
  const std::string name = "Mean radius " + std::to_string(r);
  CheckLine(image, out, n, std::vector<double>(2 * r + 1, 1.0 / taps), name + " box");
  const std::string what = name + " float, one box pass (8 B/voxel floor)";
  std::cout << "[" << CubeShape(n) << "] " << what << '\n';
  DeviceMemory copied = AllocateDeviceMemory(count * sizeof(float));
  const auto   copy = [&] {
    CUDA_CHECK(cudaMemcpyAsync(copied.get(), in, count * sizeof(float), cudaMemcpyDeviceToDevice, nullptr));
  };
  const auto times = timer.TimeInTurns(WarmUpRuns, options.repeats, [] {}, copy, [] {}, filter);
  results.Add({ what,
                n,
                CubeShape(n),
                ToBandwidth(times.second, 2.0 * static_cast<double>(count) * sizeof(float)),
                "GB/s",
                "device-to-device cudaMemcpy of the image",
                ToBandwidth(times.first, 2.0 * static_cast<double>(count) * sizeof(float)).median });
  std::cout << "  " << name << " box: median " << times.second.median << " ms for " << count << " voxels; D2D copy "
            << times.first.median << " ms\n";
}

/** One derivative stencil of an n^3 float image (nearest-pixel edges),
 * checked on a line of voxels against the same sums on the host, then timed
 * in turns with the D2D copy of the image. */
void
MeasureStencil(Results &                         results,
               DeviceTimer &                     timer,
               unsigned long                     n,
               const Options &                   options,
               const std::string &               name,
               itk::CudaStencilOutput            output,
               const itk::CudaStencilWeights &   weights)
{
  const size_t       count = static_cast<size_t>(n) * n * n;
  const unsigned int components = output == itk::CudaStencilOutput::Gradient ? 3 : 1;
  std::vector<float> image(count);
  FillPattern(image.data(), count, -1.0, 1.0, 22);
  DeviceMemory input = AllocateDeviceMemory(count * sizeof(float));
  DeviceMemory result = AllocateDeviceMemory(count * components * sizeof(float));
  DeviceMemory copied = AllocateDeviceMemory(count * sizeof(float));
  CUDA_CHECK(cudaMemcpy(input.get(), image.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  itk::CudaStencilGeometry geometry;
  geometry.Dimension = 3;
  for (unsigned int a = 0; a < 3; ++a)
  {
    geometry.InputSize[a] = n;
    geometry.OutputSize[a] = n;
  }
  auto *     in = static_cast<const float *>(input.get());
  auto *     out = static_cast<float *>(result.get());
  const auto stencil = [&] {
    itk::CudaAxisStencilAsync(out, in, geometry, weights, output, itk::CudaBoundary::ZeroFluxNeumann, 0.0, nullptr);
  };
  stencil();
  const size_t       y = n / 2;
  const size_t       z = n / 3;
  std::vector<float> line(static_cast<size_t>(n) * components);
  CUDA_CHECK(cudaMemcpy(line.data(), out + (z * n + y) * n * components, line.size() * sizeof(float),
                        cudaMemcpyDeviceToHost));
  const auto at = [&](long x, long yy, long zz) {
    const auto clamp = [n](long i) { return static_cast<size_t>(std::min<long>(std::max<long>(i, 0), n - 1)); };
    return static_cast<double>(image[(clamp(zz) * n + clamp(yy)) * n + clamp(x)]);
  };
  double worst = 0.0;
  for (long x = 0; x < static_cast<long>(n); ++x)
  {
    const long   c[3] = { x, static_cast<long>(y), static_cast<long>(z) };
    double       d[3];
    double       laplacian = weights.Middle * at(c[0], c[1], c[2]);
    for (unsigned int a = 0; a < 3; ++a)
    {
      long minus[3] = { c[0], c[1], c[2] };
      long plus[3] = { c[0], c[1], c[2] };
      --minus[a];
      ++plus[a];
      const double below = at(minus[0], minus[1], minus[2]);
      const double above = at(plus[0], plus[1], plus[2]);
      d[a] = weights.Minus[a] * below + weights.Center[a] * at(c[0], c[1], c[2]) + weights.Plus[a] * above;
      laplacian += weights.Minus[a] * below + weights.Plus[a] * above;
    }
    for (unsigned int k = 0; k < components; ++k)
    {
      double expected = laplacian;
      if (output == itk::CudaStencilOutput::GradientMagnitude)
      {
        expected = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      }
      else if (output == itk::CudaStencilOutput::Gradient)
      {
        expected = d[k];
      }
      worst = std::max(worst, std::abs(expected - static_cast<double>(line[x * components + k])));
    }
  }
  if (!(worst <= 1e-5))
  {
    itkGenericExceptionMacro("the " << name << " stencil differs from the host's sums by " << worst);
  }
  const double      bytes = static_cast<double>(count) * sizeof(float) * (1 + components);
  const std::string what = name + " float, one pass (" + std::to_string(4 * (1 + components)) + " B/voxel floor)";
  std::cout << "[" << CubeShape(n) << "] " << what << '\n';
  const auto copy = [&] {
    CUDA_CHECK(cudaMemcpyAsync(copied.get(), in, count * sizeof(float), cudaMemcpyDeviceToDevice, nullptr));
  };
  const auto times = timer.TimeInTurns(WarmUpRuns, options.repeats, [] {}, copy, [] {}, stencil);
  results.Add({ what,
                n,
                CubeShape(n),
                ToBandwidth(times.second, bytes),
                "GB/s",
                "device-to-device cudaMemcpy of the image",
                ToBandwidth(times.first, 2.0 * static_cast<double>(count) * sizeof(float)).median });
  std::cout << "  " << name << ": median " << times.second.median << " ms for " << count << " voxels; D2D copy "
            << times.first.median << " ms\n";
}
} // namespace

void
MeasureNeighborhoodKernels(Results & results, DeviceTimer & timer, unsigned long n, const Options & options)
{
  // ITK's kernel for variance 4 (pixels), its default maximum error and width.
  itk::GaussianOperator<double, 3> oper;
  oper.SetDirection(0);
  oper.SetVariance(4.0);
  oper.SetMaximumError(0.01);
  oper.SetMaximumKernelWidth(32);
  oper.CreateDirectional();
  MeasureSeparable(results, timer, n, options, "Gaussian sigma 2", std::vector<double>(oper.Begin(), oper.End()));
  // CudaMeanImageFilter's passes for radius 2.
  MeasureSeparable(results, timer, n, options, "Mean radius 2", std::vector<double>(5, 1.0 / 5.0));
  MeasureBox(results, timer, n, options, 2);
  // Central differences (spacing 1) and the 7-point Laplacian.
  itk::CudaStencilWeights derivative;
  for (unsigned int a = 0; a < 3; ++a)
  {
    derivative.Minus[a] = -0.5;
    derivative.Plus[a] = 0.5;
  }
  MeasureStencil(results, timer, n, options, "GradientMagnitude", itk::CudaStencilOutput::GradientMagnitude, derivative);
  MeasureStencil(results, timer, n, options, "Gradient (3-vectors)", itk::CudaStencilOutput::Gradient, derivative);
  itk::CudaStencilWeights laplacian;
  laplacian.Middle = -6.0;
  for (unsigned int a = 0; a < 3; ++a)
  {
    laplacian.Minus[a] = 1.0;
    laplacian.Plus[a] = 1.0;
  }
  MeasureStencil(results, timer, n, options, "Laplacian", itk::CudaStencilOutput::Laplacian, laplacian);
}
} // namespace CudaBenchmark
