// SPDX-License-Identifier: Apache-2.0
#pragma once
#include "ConsumerKernels.hcu"
#include "itkCudaImageToImageFilter.h"
#include "itkCudaUnaryFunctorImageFilter.h"
#include "itkShiftScaleImageFilter.h"
#include "itkUnaryGeneratorImageFilter.h"

// [readme-snippet]
// A functor filter: the base takes the device pointers, runs in place,
// streams host images through the device in chunks and falls back to the CPU
// parent (ITK's UnaryGeneratorImageFilter, with the same functor).
template <typename TImage>
class CudaClampImageFilter
  : public itk::CudaUnaryFunctorImageFilter<TImage, TImage, ClampFunctor, itk::UnaryGeneratorImageFilter<TImage, TImage>>
{
public:
  using Self = CudaClampImageFilter;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  void
  SetBounds(float lower, float upper)
  {
    this->SetCudaFunctor({ lower, upper }); // the GPU path
    this->SetFunctor(ClampFunctor{ lower, upper }); // the CPU parent
  }
};

// A filter with a kernel of its own: ITK's filter is the CPU parent (and its
// parameters the filter's), the kernel runs on the filter's stream.
template <typename TImage>
class CudaShiftScaleImageFilter
  : public itk::CudaImageToImageFilter<TImage, TImage, itk::ShiftScaleImageFilter<TImage, TImage>>
{
public:
  using Self = CudaShiftScaleImageFilter;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);

protected:
  bool
  GPUGenerateDataUsesLegacyStream() const override
  {
    return false; // all its work goes to GetCudaStream()
  }
  void
  GPUGenerateData() override
  {
    const TImage * input = this->GetInput();
    TImage *       output = this->GetOutput();
    if (input->GetBufferedRegion() != output->GetBufferedRegion())
    {
      itkExceptionMacro("expected the input's buffered region to be the output's, got "
                        << input->GetBufferedRegion() << " and " << output->GetBufferedRegion());
    }
    // Read only (uploaded if stale); written whole (nothing uploaded).
    const auto * in = static_cast<const float *>(input->GetCudaDataManager()->GetConstGPUBufferPointer());
    auto *       out = static_cast<float *>(output->GetCudaDataManager()->GetGPUBufferPointerForOverwrite());
    CudaShiftScale(in, out, output->GetBufferedRegion().GetNumberOfPixels(), this->GetShift(), this->GetScale(),
                   this->GetCudaStream());
  }
};
// [readme-snippet-end]
