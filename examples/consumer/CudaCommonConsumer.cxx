// SPDX-License-Identifier: Apache-2.0
// CudaCommonConsumer: built against an installed CudaCommon (CMakeLists.txt),
// it squares a ramp (CudaSquareImageFilter), shifts and scales it with a
// kernel of its own and clamps it with a functor filter (ConsumerFilters.h),
// and checks every pixel against what ITK's CPU filters compute. Without a
// GPU the filters run their CPU parents. Returns nonzero on any mismatch.

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

#include "ConsumerFilters.h"
#include "itkCudaCommonConfiguration.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

// What code written for ITKCudaCommon 2.x (RTK) expects of the headers.
#if !defined(CUDACOMMON_VERSION_MAJOR) || CUDACOMMON_VERSION_MAJOR != CudaCommon_VERSION_MAJOR
#  error "CUDACOMMON_VERSION_MAJOR is not CudaCommon_VERSION_MAJOR"
#endif
static_assert(sizeof(make_float3(0.0f, 1.0f, 2.0f)) == 3 * sizeof(float), "make_float3 from itkCudaUtil.h");

int
main()
try
{
  std::cout << "CudaCommon " << CudaCommon_VERSION_STRING << ": "
            << (itk::IsCudaAvailable() ? "the filters run on the GPU\n" : "no CUDA device, the filters run on the CPU\n");
  auto shiftScale = CudaShiftScaleImageFilter<ImageType>::New();
  shiftScale->SetInput(SquareRamp());
  shiftScale->SetShift(-3.0);
  shiftScale->SetScale(0.25);
  auto clamp = CudaClampImageFilter<ImageType>::New();
  clamp->SetInput(shiftScale->GetOutput());
  clamp->SetBounds(0.0f, 8.0f);
  clamp->Update(); // the three filters on the GPU, nothing copied to the host

  const ImageType * result = clamp->GetOutput();
  const float *     pixels = result->GetBufferPointer(); // one download
  const size_t      count = result->GetBufferedRegion().GetNumberOfPixels();
  size_t            mismatches = 0;
  for (size_t i = 0; i < count; ++i)
  {
    // What ITK's CPU filters compute: the square in float, the shift and
    // scale in double rounded to float, then the clamp.
    const float v = static_cast<float>(i % 17) - 8.0f;
    const float shifted = static_cast<float>((static_cast<double>(v * v) - 3.0) * 0.25);
    mismatches += pixels[i] != std::min(std::max(shifted, 0.0f), 8.0f) ? 1 : 0;
  }
  if (mismatches != 0)
  {
    std::cerr << mismatches << " of " << count << " pixels differ\n";
    return EXIT_FAILURE;
  }
  std::cout << "All " << count << " pixels are correct\n";
  return EXIT_SUCCESS;
}
catch (const itk::ExceptionObject & error)
{
  std::cerr << "Error: " << error << '\n';
  return EXIT_FAILURE;
}
