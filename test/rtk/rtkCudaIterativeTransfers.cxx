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

// What RTK's CUDA conjugate-gradient reconstruction moves between host and
// device per iteration, and its time, with and without CudaCommon's filter
// factory (which makes the ITK filters RTK builds its CG operator from, on
// CudaImages, their CUDA counterparts). Two reconstructions in this process,
// of FIRST and FIRST + K iterations, each with new filters on inputs already
// on the device; the difference over K is the per-iteration cost. Counts
// are CudaGetProcessTransferStatistics(): every data manager of the process.
//   rtkCudaIterativeTransfers [--size N] [--projections P] [--detector D]
//     [--iterations K] [--factory 0|1] [--rtk-sources 0|1] [--cuda-cg 0|1]
//     [--method cg|admm] [--output FILE] [--require-resident 0|1]
// Defaults: the geometry of RTK's rtkconjugategradientreconstructiontest
// (64^3 volume, 180 projections of 64^2), K = 6 after FIRST = 2, RTK's CUDA
// CG (its default; --cuda-cg 0 runs its CPU CG on the CudaImages). --output
// writes the longer run's volume as raw float32 (x fastest). --rtk-sources 1
// registers, through ITK's object factory, RTK's own CudaConstantVolumeSource
// for its CPU rtk::ConstantImageSource<CudaImage<float, 3>> (RTK's CG operator
// has that swap commented out, so its zero volume and zero projections are
// filled on the host and uploaded every iteration). --require-resident 1
// fails the run if an iteration copies anything between host and device.
// --method admm runs RTK's ADMM with total variation instead (an iteration:
// one augmented-Lagrangian iteration of 2 CG iterations; no weights). Prints
// one line per run, the per-iteration line and the error against the phantom.

#include "itkCudaImage.h"
#include "itkCudaImageFilterFactory.h"
#include "itkCudaProcessTransfers.h"
#include "itkImageRegionConstIterator.h"
#include "itkVersion.h"
#include "rtkCudaConstantVolumeSource.h"
#include "itkCovariantVector.h"
#include "rtkADMMTotalVariationConeBeamReconstructionFilter.h"
#include "rtkConjugateGradientConeBeamReconstructionFilter.h"
#include "rtkConstantImageSource.h"
#include "rtkDrawEllipsoidImageFilter.h"
#include "rtkRayEllipsoidIntersectionImageFilter.h"
#include "rtkThreeDCircularProjectionGeometry.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>

namespace
{
using ImageType = itk::CudaImage<float, 3>;
using Clock = std::chrono::steady_clock;

/** A constant image, as a pipeline source (not disconnected): RTK's
 * filters run in place on their inputs and release them, and an input with
 * a source is made again when a later step asks for it, as in RTK's tests. */
rtk::ConstantImageSource<ImageType>::Pointer
Constant(unsigned int nx, unsigned int nz, double spacing, float value)
{
  auto source = rtk::ConstantImageSource<ImageType>::New();
  const double half = -0.5 * spacing * (nx - 1);
  source->SetOrigin(itk::MakePoint(half, half, -0.5 * spacing * (nz - 1)));
  source->SetSpacing(itk::MakeVector(spacing, spacing, spacing));
  source->SetSize(itk::MakeSize(nx, nx, nz));
  source->SetConstant(value);
  source->Update();
  return source;
}

/** Makes rtk::ConstantImageSource<CudaImage<float, 3>>::New() return RTK's
 * CudaConstantVolumeSource (its subclass), as CudaImageFilterFactory does for
 * ITK's filters: what an RTK application can register to keep its constant
 * sources on the device, without changing RTK. */
class RTKConstantSourceFactory : public itk::ObjectFactoryBase
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(RTKConstantSourceFactory);
  using Self = RTKConstantSourceFactory;
  using Superclass = itk::ObjectFactoryBase;
  using Pointer = itk::SmartPointer<Self>;
  itkFactorylessNewMacro(Self);
  itkOverrideGetNameOfClassMacro(RTKConstantSourceFactory);

  const char *
  GetITKSourceVersion() const override
  {
    return ITK_SOURCE_VERSION;
  }
  const char *
  GetDescription() const override
  {
    return "RTK's CudaConstantVolumeSource for rtk::ConstantImageSource<CudaImage<float, 3>>";
  }

protected:
  RTKConstantSourceFactory()
  {
    this->RegisterOverride(typeid(rtk::ConstantImageSource<ImageType>).name(),
                           typeid(rtk::CudaConstantVolumeSource).name(),
                           "rtk::CudaConstantVolumeSource",
                           true,
                           itk::CreateObjectFunction<rtk::CudaConstantVolumeSource>::New());
  }
};

struct Run
{
  double                      Milliseconds;
  itk::CudaTransferStatistics Copies;
  ImageType::Pointer          Volume;
};

/** RTK's CG (`admm` false) or its ADMM with total variation (`admm`:
 * `iterations` augmented-Lagrangian iterations of 2 CG iterations each, the
 * alpha and beta of RTK's test), CUDA projectors, on a new zero volume. */
Run
Reconstruct(const ImageType * projections,
            const ImageType * weights,
            const rtk::ThreeDCircularProjectionGeometry * geometry,
            unsigned int n,
            int          iterations,
            bool         cudaCG,
            bool         admm)
{
  using CGType = rtk::ConjugateGradientConeBeamReconstructionFilter<ImageType>;
  using GradientImageType = itk::CudaImage<itk::CovariantVector<float, 3>, 3>;
  using ADMMType = rtk::ADMMTotalVariationConeBeamReconstructionFilter<ImageType, GradientImageType>;
  auto volume = Constant(n, n, 256.0 / n, 0.0f);
  volume->GetOutput()->GetCudaDataManager()->GetConstGPUBufferPointer(); // on the device, as a CUDA pipeline leaves it
  itk::ImageToImageFilter<ImageType, ImageType>::Pointer filter;
  if (admm)
  {
    auto tv = ADMMType::New();
    tv->SetInput(volume->GetOutput());
    tv->SetInput(1, const_cast<ImageType *>(projections));
    tv->SetGeometry(const_cast<rtk::ThreeDCircularProjectionGeometry *>(geometry));
    tv->SetAlpha(100);
    tv->SetBeta(1000);
    tv->SetAL_iterations(iterations);
    tv->SetCG_iterations(2);
    tv->SetForwardProjectionFilter(ADMMType::FP_CUDARAYCAST);
    tv->SetBackProjectionFilter(ADMMType::BP_CUDAVOXELBASED);
    filter = tv;
  }
  else
  {
    auto cg = CGType::New();
    cg->SetInput(volume->GetOutput());
    cg->SetInput(1, const_cast<ImageType *>(projections));
    cg->SetInputWeights(const_cast<ImageType *>(weights));
    cg->SetGeometry(const_cast<rtk::ThreeDCircularProjectionGeometry *>(geometry));
    cg->SetNumberOfIterations(iterations);
    cg->SetForwardProjectionFilter(CGType::FP_CUDARAYCAST);
    cg->SetBackProjectionFilter(CGType::BP_CUDAVOXELBASED);
    cg->SetCudaConjugateGradient(cudaCG);
    filter = cg;
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  const itk::CudaTransferStatistics before = itk::CudaGetProcessTransferStatistics();
  const auto                        start = Clock::now();
  filter->Update();
  CUDA_CHECK(cudaDeviceSynchronize());
  Run run;
  run.Milliseconds = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  run.Copies = itk::CudaGetProcessTransferStatistics() - before;
  run.Volume = filter->GetOutput();
  run.Volume->DisconnectPipeline();
  return run;
}

void
Print(const std::string & what, double milliseconds, const itk::CudaTransferStatistics & copies)
{
  std::cout << what << ": " << milliseconds << " ms, host->device " << copies.HostToDeviceCount << " copies "
            << copies.HostToDeviceBytes << " bytes, device->host " << copies.DeviceToHostCount << " copies "
            << copies.DeviceToHostBytes << " bytes\n";
}
} // namespace

int
main(int argc, char * argv[])
{
  unsigned int n = 64;
  unsigned int projectionCount = 180;
  unsigned int detector = 64;
  unsigned int more = 6;
  bool         factory = false;
  bool         rtkSources = false;
  bool         requireResident = false;
  bool         cudaCG = true; // RTK's default
  bool         admm = false;
  std::string  output;
  for (int i = 1; i + 1 < argc; i += 2)
  {
    const std::string option = argv[i];
    const std::string text = argv[i + 1];
    const auto        value = option == "--output" || option == "--method" ? 0ul : std::stoul(text);
    if (option == "--size" && value >= 8 && value <= 1024)
    {
      n = static_cast<unsigned int>(value);
    }
    else if (option == "--projections" && value >= 8 && value <= 4096)
    {
      projectionCount = static_cast<unsigned int>(value);
    }
    else if (option == "--detector" && value >= 8 && value <= 4096)
    {
      detector = static_cast<unsigned int>(value);
    }
    else if (option == "--iterations" && value >= 1 && value <= 1000)
    {
      more = static_cast<unsigned int>(value);
    }
    else if (option == "--factory" && value <= 1)
    {
      factory = value == 1;
    }
    else if (option == "--rtk-sources" && value <= 1)
    {
      rtkSources = value == 1;
    }
    else if (option == "--require-resident" && value <= 1)
    {
      requireResident = value == 1;
    }
    else if (option == "--cuda-cg" && value <= 1)
    {
      cudaCG = value == 1;
    }
    else if (option == "--method" && (text == "cg" || text == "admm"))
    {
      admm = text == "admm";
    }
    else if (option == "--output")
    {
      output = text;
    }
    else
    {
      std::cerr << "usage: " << argv[0]
                << " [--size N] [--projections P] [--detector D] [--iterations K] [--factory 0|1]"
                   " [--rtk-sources 0|1] [--cuda-cg 0|1] [--method cg|admm] [--output FILE] [--require-resident 0|1]\n";
      return 2;
    }
  }
  try
  {
    if (factory)
    {
      itk::CudaImageFilterFactory::RegisterOneFactory();
    }
    if (rtkSources)
    {
      itk::ObjectFactoryBase::RegisterFactory(RTKConstantSourceFactory::New());
    }
    auto geometry = rtk::ThreeDCircularProjectionGeometry::New();
    for (unsigned int i = 0; i < projectionCount; ++i)
    {
      geometry->AddProjection(600., 1200., i * 360. / projectionCount);
    }
    // The projections of an ellipsoid (semi-axes 90 mm, density 1), as in RTK's test.
    using REIType = rtk::RayEllipsoidIntersectionImageFilter<ImageType, ImageType>;
    auto rei = REIType::New();
    REIType::VectorType axis;
    REIType::VectorType centre;
    axis.Fill(90.);
    centre.Fill(0.);
    rei->SetAngle(0.);
    rei->SetDensity(1.);
    rei->SetCenter(centre);
    rei->SetAxis(axis);
    auto stack = Constant(detector, projectionCount, 512.0 / detector, 0.0f);
    rei->SetInput(stack->GetOutput());
    rei->SetGeometry(geometry);
    rei->Update();
    ImageType * projections = rei->GetOutput();
    auto        weightsSource = Constant(detector, projectionCount, 512.0 / detector, 1.0f);
    ImageType * weights = weightsSource->GetOutput();
    projections->GetCudaDataManager()->GetConstGPUBufferPointer();
    weights->GetCudaDataManager()->GetConstGPUBufferPointer();

    std::cout << std::fixed << std::setprecision(2) << (admm ? "ADMM TV " : "CG ") << n << "^3 from " << projectionCount
              << " projections of " << detector << "^2, factory " << (factory ? "on" : "off") << ", RTK's CUDA sources "
              << (rtkSources ? "on" : "off") << ", CUDA CG "
              << (cudaCG ? "on" : "off") << '\n';
    constexpr int first = 2;
    Reconstruct(projections, weights, geometry, n, 1, cudaCG, admm); // warm: contexts, plans, pools
    const Run     shorter = Reconstruct(projections, weights, geometry, n, first, cudaCG, admm);
    const Run     longer = Reconstruct(projections, weights, geometry, n, first + static_cast<int>(more), cudaCG, admm);
    Print(std::to_string(first) + " iterations", shorter.Milliseconds, shorter.Copies);
    Print(std::to_string(first + more) + " iterations", longer.Milliseconds, longer.Copies);
    const itk::CudaTransferStatistics inLoop = longer.Copies - shorter.Copies;
    Print("per iteration", (longer.Milliseconds - shorter.Milliseconds) / more, [&] {
      itk::CudaTransferStatistics each = inLoop;
      each.HostToDeviceCount /= more;
      each.HostToDeviceBytes /= more;
      each.DeviceToHostCount /= more;
      each.DeviceToHostBytes /= more;
      return each;
    }());
    const bool resident = inLoop.HostToDeviceCount == 0 && inLoop.DeviceToHostCount == 0;
    if (requireResident && !resident)
    {
      std::cerr << "Error: the " << more << " more iterations copied between host and device\n";
    }

    // The error against the ellipsoid drawn in the volume's geometry (RTK's test asks RMSE <= 0.08 at 5 iterations).
    auto drawn = rtk::DrawEllipsoidImageFilter<ImageType, ImageType>::New();
    auto drawnVolume = Constant(n, n, 256.0 / n, 0.0f);
    drawn->SetInput(drawnVolume->GetOutput());
    drawn->SetAxis(axis);
    drawn->SetCenter(centre);
    drawn->SetDensity(1.);
    drawn->Update();
    double squares = 0.0;
    itk::ImageRegionConstIterator<ImageType> it(longer.Volume, longer.Volume->GetBufferedRegion());
    itk::ImageRegionConstIterator<ImageType> reference(drawn->GetOutput(), longer.Volume->GetBufferedRegion());
    for (; !it.IsAtEnd(); ++it, ++reference)
    {
      const double difference = static_cast<double>(it.Get()) - reference.Get();
      squares += difference * difference;
    }
    const double rmse = std::sqrt(squares / longer.Volume->GetBufferedRegion().GetNumberOfPixels());
    std::cout << std::setprecision(5) << "RMSE against the phantom after " << first + more << " iterations: " << rmse
              << '\n';
    if (!output.empty())
    {
      std::ofstream file(output, std::ios::binary);
      file.write(reinterpret_cast<const char *>(longer.Volume->GetBufferPointer()),
                 static_cast<std::streamsize>(longer.Volume->GetBufferedRegion().GetNumberOfPixels() * sizeof(float)));
    }
    // RTK's CG test asks RMSE <= 0.08 after 5 iterations; for ADMM only a finite result is asked here.
    return std::isfinite(rmse) && (admm || rmse <= 0.08) && (resident || !requireResident) ? EXIT_SUCCESS
                                                                                          : EXIT_FAILURE;
  }
  catch (const itk::ExceptionObject & error)
  {
    std::cerr << "Error: " << error << '\n';
    return EXIT_FAILURE;
  }
}
