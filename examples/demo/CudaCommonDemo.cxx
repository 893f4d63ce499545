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

// CudaCommonDemo: a pipeline that mixes CUDA filters and an ordinary ITK CPU
// filter on CudaImages, checked voxel by voxel against the same pipeline of
// ITK CPU filters on itk::Images. Without a CUDA device the CUDA filters run
// their CPU fallback and the check still applies.

#include "itkCudaCommonConfiguration.h"
#include "itkCudaImage.h"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaUtil.h"

#include "itkCudaDiscreteGaussianImageFilter.h"
#include "itkDiscreteGaussianImageFilter.h"
#include "itkImage.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkMetaImageIOFactory.h"
#include "itkNrrdImageIOFactory.h"
#include "itkSquareImageFilter.h"
#include "itkTimeProbe.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

namespace
{
constexpr unsigned int Dimension = 3;
using PixelType = float;
using CudaImageType = itk::CudaImage<PixelType, Dimension>;
using CPUImageType = itk::Image<PixelType, Dimension>;

// Variance (in pixels) of the Gaussian smoothing between the two squares.
constexpr double GaussianVariance = 1.0;
// Largest --size accepted: four volumes of N^3 floats must fit in memory.
constexpr unsigned long MaximumSize = 1024;

struct Options
{
  unsigned long size{ 128 };
  bool          sizeGiven{ false };
  std::string   input;
  std::string   output;
};

void
PrintUsage(std::ostream & os, const char * program)
{
  os << "Usage: " << program << " [--size N | --input FILE] [--output FILE]\n"
     << "\n"
     << "Runs CudaSquareImageFilter -> CudaDiscreteGaussianImageFilter -> CudaSquareImageFilter\n"
     << "on a 3-D float CudaImage, on the GPU alone, and checks every voxel against ITK's CPU filters.\n"
     << "\n"
     << "  --size N       generate an N x N x N test volume (default 128, at most " << MaximumSize << ")\n"
     << "  --input FILE   read the input volume from FILE (any format ITK reads: .mha, .nrrd, ...)\n"
     << "  --output FILE  write the result of the CUDA pipeline to FILE\n"
     << "  --help         print this help\n";
}

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
    if (argument != "--size" && argument != "--input" && argument != "--output")
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
    if (argument == "--size")
    {
      char *              end = nullptr;
      const unsigned long size = std::strtoul(value.c_str(), &end, 10);
      if (value.empty() || value[0] == '-' || *end != '\0' || size == 0 || size > MaximumSize)
      {
        std::cerr << "--size expects an integer from 1 to " << MaximumSize << ", got '" << value << "'.\n";
        return false;
      }
      options.size = size;
      options.sizeGiven = true;
    }
    else if (argument == "--input")
    {
      options.input = value;
    }
    else
    {
      options.output = value;
    }
  }
  if (options.sizeGiven && !options.input.empty())
  {
    std::cerr << "Give either --size or --input, not both.\n";
    return false;
  }
  return true;
}

/** An N^3 volume with a smooth part and a deterministic high-frequency part,
 * values in [0.25, 1], so that squaring twice stays well inside float range. */
CudaImageType::Pointer
MakeTestVolume(unsigned long n)
{
  auto                    image = CudaImageType::New();
  CudaImageType::SizeType size;
  size.Fill(n);
  image->SetRegions(size);
  image->Allocate();

  // The non-const buffer pointer marks the (not yet existing) GPU copy stale.
  PixelType * buffer = image->GetBufferPointer();
  size_t      offset = 0;
  for (unsigned long z = 0; z < n; ++z)
  {
    for (unsigned long y = 0; y < n; ++y)
    {
      for (unsigned long x = 0; x < n; ++x, ++offset)
      {
        const double smooth = 0.5 + 0.5 * std::sin(0.37 * x + 0.11 * z) * std::cos(0.23 * y);
        const double noise = static_cast<double>((7 * x + 13 * y + 29 * z) % 17) / 16.0;
        buffer[offset] = static_cast<PixelType>(0.25 + 0.5 * smooth + 0.25 * noise);
      }
    }
  }
  return image;
}

CudaImageType::Pointer
ReadVolume(const std::string & fileName)
{
  using ReaderType = itk::ImageFileReader<CudaImageType>;
  auto reader = ReaderType::New();
  reader->SetFileName(fileName);
  reader->Update();
  CudaImageType::Pointer image = reader->GetOutput();
  image->DisconnectPipeline();
  return image;
}

/** A plain itk::Image with the same geometry and pixels (a copy). */
CPUImageType::Pointer
CopyToCPUImage(const CudaImageType * image)
{
  auto copy = CPUImageType::New();
  copy->CopyInformation(image);
  copy->SetRegions(image->GetBufferedRegion());
  copy->Allocate();
  const size_t count = image->GetBufferedRegion().GetNumberOfPixels();
  // Const access: the CPU copy is made current, the GPU copy is left alone.
  const PixelType * source = image->GetBufferPointer();
  std::copy(source, source + count, copy->GetBufferPointer());
  return copy;
}

/** Create the CUDA context and load the square kernel on a tiny image, so that
 * the timing of the pipeline does not include this one-time start-up. */
void
WarmUpCuda()
{
  auto                    image = CudaImageType::New();
  CudaImageType::SizeType size;
  size.Fill(2);
  image->SetRegions(size);
  image->Allocate();
  image->FillBuffer(1.0f);
  auto square = itk::CudaSquareImageFilter<CudaImageType>::New();
  square->SetInput(image);
  square->Update();
  static_cast<const CudaImageType *>(square->GetOutput())->GetBufferPointer();
}

template <typename TImage>
void
ConfigureGaussian(itk::DiscreteGaussianImageFilter<TImage, TImage> * filter)
{
  filter->SetVariance(GaussianVariance);
  filter->SetUseImageSpacing(false);
}

void
PrintTransfers(const char * name, const CudaImageType * image)
{
  const itk::CudaTransferStatistics statistics = image->GetCudaDataManager()->GetTransferStatistics();
  std::cout << "  " << std::left << std::setw(14) << name << std::right << " host->device " << statistics.HostToDeviceCount
            << " (" << statistics.HostToDeviceBytes << " bytes), device->host " << statistics.DeviceToHostCount << " ("
            << statistics.DeviceToHostBytes << " bytes)\n";
}

/** Index of a linear offset in `region`, for messages. */
CudaImageType::IndexType
IndexOfOffset(const CudaImageType::RegionType & region, size_t offset)
{
  CudaImageType::IndexType index = region.GetIndex();
  for (unsigned int d = 0; d < Dimension; ++d)
  {
    const size_t extent = region.GetSize(d);
    index[d] += static_cast<itk::IndexValueType>(offset % extent);
    offset /= extent;
  }
  return index;
}

/** Compare every voxel with relative tolerance 1e-5 (absolute 1e-5 below
 * magnitude 1); prints the first mismatch. */
bool
CompareVoxels(const CudaImageType * result, const CPUImageType * reference)
{
  const auto & region = result->GetBufferedRegion();
  if (region != reference->GetBufferedRegion())
  {
    std::cerr << "Mismatch: CUDA result has buffered region " << region << " but the CPU reference has "
              << reference->GetBufferedRegion() << '\n';
    return false;
  }
  constexpr double  tolerance = 1e-5;
  const size_t      count = region.GetNumberOfPixels();
  const PixelType * actual = result->GetBufferPointer();
  const PixelType * expected = reference->GetBufferPointer();
  double            maximumDifference = 0.0;
  for (size_t i = 0; i < count; ++i)
  {
    const double a = actual[i];
    const double e = expected[i];
    const double difference = std::abs(a - e);
    const double scale = std::max({ std::abs(a), std::abs(e), 1.0 });
    if (!(difference <= tolerance * scale)) // also catches NaN
    {
      std::cerr << "Mismatch at voxel " << IndexOfOffset(region, i) << ": CUDA pipeline " << std::setprecision(9) << a
                << ", CPU reference " << e << " (difference " << difference << ", tolerance " << tolerance * scale
                << ")\n";
      return false;
    }
    maximumDifference = std::max(maximumDifference, difference);
  }
  std::cout << "Compared " << count << " voxels: all match (largest difference " << maximumDifference << ")\n";
  return true;
}

int
RunDemo(const Options & options)
{
  std::cout << "CudaCommon " << CudaCommon_VERSION_STRING << " demo\n";
  if (itk::IsCudaAvailable())
  {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp properties{};
    CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
    std::cout << "CUDA device " << device << ": " << properties.name << " (compute capability " << properties.major
              << '.' << properties.minor << ")\n";
    WarmUpCuda();
  }
  else
  {
    std::cout << "No usable CUDA device (" << itk::CudaUnavailableReason()
              << "): the CUDA filters run their CPU fallback (itk::SquareImageFilter).\n";
  }

  CudaImageType::Pointer input = options.input.empty() ? MakeTestVolume(options.size) : ReadVolume(options.input);
  const auto &           size = input->GetBufferedRegion().GetSize();
  std::cout << "Input: " << (options.input.empty() ? std::string("generated") : options.input) << ", " << size[0]
            << " x " << size[1] << " x " << size[2] << " float voxels\n";
  CPUImageType::Pointer referenceInput = CopyToCPUImage(input);

  // --- CUDA pipeline on CudaImages.
  using CudaSquareType = itk::CudaSquareImageFilter<CudaImageType>;
  using CudaGaussianType = itk::CudaDiscreteGaussianImageFilter<CudaImageType, CudaImageType>;
  auto firstSquare = CudaSquareType::New();
  // Out of place: the input is kept (its transfers are reported below).
  firstSquare->InPlaceOff();
  firstSquare->SetInput(input);
  auto gaussian = CudaGaussianType::New();
  ConfigureGaussian(gaussian.GetPointer());
  gaussian->SetInput(firstSquare->GetOutput());
  auto secondSquare = CudaSquareType::New();
  secondSquare->SetInput(gaussian->GetOutput());

  itk::TimeProbe cudaProbe;
  cudaProbe.Start();
  secondSquare->Update();
  CudaImageType::Pointer result = secondSquare->GetOutput();
  // A const read brings the result to the host (and waits for the device).
  static_cast<const CudaImageType *>(result.GetPointer())->GetBufferPointer();
  cudaProbe.Stop();

  // --- The same with ITK's CPU filters on plain Images.
  using CPUSquareType = itk::SquareImageFilter<CPUImageType, CPUImageType>;
  using CPUGaussianType = itk::DiscreteGaussianImageFilter<CPUImageType, CPUImageType>;
  auto referenceFirstSquare = CPUSquareType::New();
  referenceFirstSquare->SetInput(referenceInput);
  auto referenceGaussian = CPUGaussianType::New();
  ConfigureGaussian(referenceGaussian.GetPointer());
  referenceGaussian->SetInput(referenceFirstSquare->GetOutput());
  auto referenceSecondSquare = CPUSquareType::New();
  referenceSecondSquare->SetInput(referenceGaussian->GetOutput());

  itk::TimeProbe cpuProbe;
  cpuProbe.Start();
  referenceSecondSquare->Update();
  cpuProbe.Stop();

  std::cout << "Pipeline: square -> Gaussian smoothing (variance " << GaussianVariance << ") -> square\n";
  std::cout << std::fixed << std::setprecision(2) << "  CUDA pipeline: " << 1000.0 * cudaProbe.GetTotal()
            << " ms (result back on the host" << (itk::IsCudaAvailable() ? "" : ", CPU fallback") << ")\n"
            << "  CPU reference: " << 1000.0 * cpuProbe.GetTotal() << " ms\n"
            << std::defaultfloat;
  std::cout << "Host/device transfers:\n";
  PrintTransfers("input", input);
  PrintTransfers("first square", firstSquare->GetOutput());
  PrintTransfers("output", result);

  const bool match = CompareVoxels(result, referenceSecondSquare->GetOutput());

  if (!options.output.empty())
  {
    using WriterType = itk::ImageFileWriter<CudaImageType>;
    auto writer = WriterType::New();
    writer->SetFileName(options.output);
    writer->SetInput(result);
    writer->Update();
    std::cout << "Wrote " << options.output << '\n';
  }
  return match ? EXIT_SUCCESS : EXIT_FAILURE;
}
} // namespace

int
main(int argc, char * argv[])
{
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

  // This project does not use ITK's generated IO factory registration, so the
  // formats the demo reads and writes are registered here.
  itk::MetaImageIOFactory::RegisterOneFactory();
  itk::NrrdImageIOFactory::RegisterOneFactory();

  try
  {
    return RunDemo(options);
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
