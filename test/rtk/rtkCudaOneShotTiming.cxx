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

// One-shot costs of RTK's CUDA filters on CudaCommon, as a user who runs a
// reconstruction once sees them: in this (fresh) process, RTK's CUDA FDK and
// CUDA crop are run twice each, every run with new filters and new input
// images, and each run is timed from Update() until the result is readable
// on the host. The CUDA context is made first and timed on its own.
//   rtkCudaOneShotTiming [--size N] [--projections P]
// Defaults: a 128^3 volume from 64 projections of 128^2 (the geometry of
// RTK's rtkfdktest, with fewer projections); crop: a 128^3 volume, 10 voxels
// off each side. Prints one line per measurement and checks the results.

#include "itkCudaImage.h"
#include "itkImageRegionConstIterator.h"
#include "rtkConstantImageSource.h"
#include "rtkCudaCropImageFilter.h"
#include "rtkCudaFDKConeBeamReconstructionFilter.h"
#include "rtkDrawSheppLoganFilter.h"
#include "rtkSheppLoganPhantomFilter.h"
#include "rtkThreeDCircularProjectionGeometry.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <string>

namespace
{
using ImageType = itk::CudaImage<float, 3>;
using Clock = std::chrono::steady_clock;

double
MillisecondsSince(Clock::time_point start)
{
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

ImageType::Pointer
Constant(unsigned int nx, unsigned int ny, unsigned int nz, double spacing, float value)
{
  auto source = rtk::ConstantImageSource<ImageType>::New();
  source->SetOrigin(itk::MakePoint(-0.5 * spacing * (nx - 1), -0.5 * spacing * (ny - 1), -0.5 * spacing * (nz - 1)));
  source->SetSpacing(itk::MakeVector(spacing, spacing, spacing));
  source->SetSize(itk::MakeSize(nx, ny, nz));
  source->SetConstant(value);
  source->Update();
  ImageType::Pointer image = source->GetOutput();
  image->DisconnectPipeline();
  return image;
}

/** Sum of the pixels read on the host (a const CPU access, as ITK code reads). */
double
HostSum(const ImageType * image)
{
  double sum = 0.0;
  for (itk::ImageRegionConstIterator<ImageType> it(image, image->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    sum += it.Get();
  }
  return sum;
}

/** One FDK reconstruction, timed from Update() to the volume on the host;
 * the projections of a Shepp-Logan phantom are made before, untimed. */
double
TimeFDK(unsigned int n, unsigned int projections, double & centreValue, double & phantomValue)
{
  auto geometry = rtk::ThreeDCircularProjectionGeometry::New();
  for (unsigned int i = 0; i < projections; ++i)
  {
    geometry->AddProjection(600., 1200., i * 360. / projections);
  }
  auto stack = Constant(n, n, projections, 512.0 / n, 0.0f);
  auto phantom = rtk::SheppLoganPhantomFilter<ImageType, ImageType>::New();
  phantom->SetInput(stack);
  phantom->SetGeometry(geometry);
  phantom->SetPhantomScale(116);
  phantom->Update();
  ImageType::Pointer projectionImages = phantom->GetOutput();
  projectionImages->DisconnectPipeline();
  auto volume = Constant(n, n, n, 256.0 / n, 0.0f);

  const auto start = Clock::now();
  auto       fdk = rtk::CudaFDKConeBeamReconstructionFilter::New();
  fdk->SetInput(0, volume);
  fdk->SetInput(1, projectionImages);
  fdk->SetGeometry(geometry);
  fdk->Update();
  const ImageType * reconstruction = fdk->GetOutput();
  reconstruction->GetBufferPointer(); // on the host
  const double milliseconds = MillisecondsSince(start);

  ImageType::IndexType centre;
  centre.Fill(n / 2);
  centreValue = reconstruction->GetPixel(centre);
  // What the reconstruction should approach: the phantom drawn in a volume of
  // the same geometry (the FDK filter ran in place on `volume`).
  auto drawn = rtk::DrawSheppLoganFilter<ImageType, ImageType>::New();
  drawn->SetInput(Constant(n, n, n, 256.0 / n, 0.0f));
  drawn->SetPhantomScale(116);
  drawn->Update();
  phantomValue = drawn->GetOutput()->GetPixel(centre);
  return milliseconds;
}

/** One crop of an n^3 volume, 10 voxels off each side, timed likewise. */
double
TimeCrop(unsigned int n, double & sum)
{
  auto image = Constant(n, n, n, 1.0, 1.5f);
  image->GetCudaDataManager()->GetConstGPUBufferPointer(); // as an upstream CUDA filter leaves it

  const auto start = Clock::now();
  auto       crop = rtk::CudaCropImageFilter::New();
  crop->SetInput(image);
  ImageType::SizeType margin;
  margin.Fill(10);
  crop->SetLowerBoundaryCropSize(margin);
  crop->SetUpperBoundaryCropSize(margin);
  crop->Update();
  const ImageType * cropped = crop->GetOutput();
  cropped->GetBufferPointer();
  const double milliseconds = MillisecondsSince(start);
  sum = HostSum(cropped);
  return milliseconds;
}
} // namespace

int
main(int argc, char * argv[])
{
  unsigned int n = 128;
  unsigned int projections = 64;
  for (int i = 1; i + 1 < argc; i += 2)
  {
    const std::string option = argv[i];
    const auto        value = static_cast<unsigned int>(std::stoul(argv[i + 1]));
    if (option == "--size" && value >= 24 && value <= 1024)
    {
      n = value;
    }
    else if (option == "--projections" && value >= 8 && value <= 4096)
    {
      projections = value;
    }
    else
    {
      std::cerr << "usage: " << argv[0] << " [--size N (24..1024)] [--projections P (8..4096)]\n";
      return 2;
    }
  }
  try
  {
    const auto start = Clock::now();
    CUDA_CHECK(cudaFree(nullptr)); // the CUDA context
    std::cout << std::fixed << std::setprecision(2) << "CUDA context: " << MillisecondsSince(start) << " ms\n";
    bool ok = true;
    for (int run = 1; run <= 2; ++run)
    {
      double       centre = 0.0;
      double       phantom = 0.0;
      const double fdk = TimeFDK(n, projections, centre, phantom);
      const bool   close = std::isfinite(centre) && std::abs(centre - phantom) <= 0.05 * std::abs(phantom) + 0.01;
      std::cout << "FDK " << n << "^3 from " << projections << " projections of " << n << "^2, run " << run << ": "
                << fdk << " ms (centre " << centre << ", phantom " << phantom << (close ? "" : ": too far") << ")\n";
      ok = ok && close;
    }
    for (int run = 1; run <= 2; ++run)
    {
      double       sum = 0.0;
      const double crop = TimeCrop(n, sum);
      const double expected = 1.5 * std::pow(static_cast<double>(n - 20), 3);
      const bool   right = std::abs(sum - expected) <= 1e-6 * expected;
      std::cout << "crop " << n << "^3 by 10 voxels a side, run " << run << ": " << crop << " ms (sum " << sum
                << (right ? "" : ", expected " + std::to_string(expected)) << ")\n";
      ok = ok && right;
    }
    std::cout << (ok ? "results as expected\n" : "unexpected results\n");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
  }
  catch (const itk::ExceptionObject & error)
  {
    std::cerr << "Error: " << error << '\n';
    return EXIT_FAILURE;
  }
}
