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

// CudaCommonConsumer: builds against an installed CudaCommon (see
// CMakeLists.txt), runs a CudaSquareImageFilter and this project's own
// CudaShiftScaleImageFilter, and checks every pixel. Works without a GPU: the
// filters then run their CPU parents. Returns nonzero on any mismatch.

// [readme-snippet]
#include "itkCudaImage.h"
#include "itkCudaSquareImageFilter.h"

using ImageType = itk::CudaImage<float, 3>;

ImageType::Pointer
SquareRamp()
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 32, 24, 16 } });
  image->Allocate();
  // Non-const access: the CPU copy is written, the GPU copy becomes stale.
  float *      pixels = image->GetBufferPointer();
  const size_t count = image->GetBufferedRegion().GetNumberOfPixels();
  for (size_t i = 0; i < count; ++i)
  {
    pixels[i] = static_cast<float>(i % 17) - 8.0f;
  }

  // Uploads the image once, squares it on the GPU (in place: the output
  // takes over the input's buffers). Without a GPU: itk::SquareImageFilter.
  auto square = itk::CudaSquareImageFilter<ImageType>::New();
  square->SetInput(image);
  square->Update();
  return square->GetOutput(); // downloaded only when the CPU reads it
}
// [readme-snippet-end]

#include "itkCudaCommonConfiguration.h"
#include "itkCudaShiftScaleImageFilter.h"
#include "itkCudaUtil.h"

#include <cstdlib>
#include <iomanip>
#include <iostream>

// What code written for ITKCudaCommon 2.x (RTK) expects of the headers: the
// 2.0 spelling of the version, and the CUDA runtime's host helpers.
#if !defined(CUDACOMMON_VERSION_MAJOR) || CUDACOMMON_VERSION_MAJOR != CudaCommon_VERSION_MAJOR
#  error "CUDACOMMON_VERSION_MAJOR is not CudaCommon_VERSION_MAJOR"
#endif
static_assert(sizeof(make_float3(0.0f, 1.0f, 2.0f)) == 3 * sizeof(float), "make_float3 from itkCudaUtil.h");

namespace
{
constexpr double Shift = -3.0;
constexpr double Scale = 0.25;

// The value SquareRamp() gives pixel `i` before squaring.
float
InputValue(size_t i)
{
  return static_cast<float>(i % 17) - 8.0f;
}

int
Run()
{
  std::cout << "CudaCommon " << CudaCommon_VERSION_STRING << ": ";
  if (itk::IsCudaAvailable())
  {
    std::cout << "CUDA device available, the filters run on the GPU\n";
  }
  else
  {
    std::cout << "no CUDA device (" << itk::CudaUnavailableReason() << "), the filters run on the CPU\n";
  }

  ImageType::Pointer squared = SquareRamp();

  using ShiftScaleType = itk::CudaShiftScaleImageFilter<ImageType>;
  auto shiftScale = ShiftScaleType::New();
  shiftScale->SetInput(squared);
  shiftScale->SetShift(Shift);
  shiftScale->SetScale(Scale);
  shiftScale->Update();

  // Const reads: the CPU copies are made current, the GPU copies kept.
  const ImageType * squaredImage = squared;
  const ImageType * result = shiftScale->GetOutput();
  const float *     squaredPixels = squaredImage->GetBufferPointer();
  const float *     resultPixels = result->GetBufferPointer();

  const size_t count = result->GetBufferedRegion().GetNumberOfPixels();
  size_t       mismatches = 0;
  for (size_t i = 0; i < count; ++i)
  {
    // Exactly what ITK's CPU filters compute: the square rounded to float, the
    // shift and scale in double, rounded to float.
    const float v = InputValue(i);
    const float expectedSquare = v * v;
    const float expectedResult = static_cast<float>((static_cast<double>(expectedSquare) + Shift) * Scale);
    if (squaredPixels[i] != expectedSquare || resultPixels[i] != expectedResult)
    {
      if (mismatches == 0)
      {
        std::cerr << std::setprecision(9) << "Mismatch at pixel offset " << i << ": square " << squaredPixels[i]
                  << " (expected " << expectedSquare << "), shift-scale " << resultPixels[i] << " (expected "
                  << expectedResult << ")\n";
      }
      ++mismatches;
    }
  }
  if (mismatches != 0)
  {
    std::cerr << mismatches << " of " << count << " pixels differ\n";
    return EXIT_FAILURE;
  }
  std::cout << "All " << count << " pixels are correct\n";
  return EXIT_SUCCESS;
}
} // namespace

int
main()
{
  try
  {
    return Run();
  }
  catch (const itk::ExceptionObject & error)
  {
    std::cerr << "Error: " << error << '\n';
  }
  return EXIT_FAILURE;
}
