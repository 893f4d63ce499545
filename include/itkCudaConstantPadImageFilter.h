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
#ifndef itkCudaConstantPadImageFilter_h
#define itkCudaConstantPadImageFilter_h

#include "itkConstantBoundaryCondition.h"
#include "itkConstantPadImageFilter.h"
#include "itkCudaImageToImageFilter.h"
#include "itkCudaRegionCopy.h"

#include <type_traits>

namespace itk
{
/** \class CudaConstantPadImageFilter
 * \brief An image grown by borders of a constant, made on the GPU: ITK's
 * ConstantPadImageFilter (SetPadBound(), SetPadLowerBound(),
 * SetPadUpperBound(), SetConstant() and the output's geometry are its own;
 * it runs without a GPU, or with GPUEnabled off).
 *
 * One kernel per 3-D slab writes each output pixel once, the input's where
 * the input has it and the constant elsewhere (CudaComposeImageBoxAsync()),
 * on the output's stream: no host round trip, the output made on the device
 * alone; a streamed output makes its piece. Input and output are CudaImages
 * of one pixel type and dimension. A boundary condition other than a
 * constant one, set through PadImageFilterBase::SetBoundaryCondition(), runs
 * ITK's code.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT CudaConstantPadImageFilter
  : public CudaImageToImageFilter<TInputImage, TOutputImage, ConstantPadImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaConstantPadImageFilter);
  static_assert(std::is_same<typename TInputImage::PixelType, typename TOutputImage::PixelType>::value,
                "CudaConstantPadImageFilter copies pixels: the input and output pixel types must be one");

  using Self = CudaConstantPadImageFilter;
  using Superclass =
    CudaImageToImageFilter<TInputImage, TOutputImage, ConstantPadImageFilter<TInputImage, TOutputImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = ConstantPadImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaConstantPadImageFilter, CudaImageToImageFilter);

  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;
  using PixelType = typename TOutputImage::PixelType;

protected:
  CudaConstantPadImageFilter() = default;
  ~CudaConstantPadImageFilter() override = default;

  using ConstantCondition = ConstantBoundaryCondition<TInputImage, TOutputImage>;

  void
  GenerateData() override
  {
    if (dynamic_cast<const ConstantCondition *>(this->GetBoundaryCondition()) == nullptr)
    {
      CPUSuperclass::GenerateData(); // another boundary condition: ITK's code
      return;
    }
    Superclass::GenerateData();
  }

  void
  GPUGenerateData() override
  {
    OutputImageType * output = this->GetOutput();
    const auto &      outputRegion = output->GetBufferedRegion();
    if (outputRegion.GetNumberOfPixels() == 0)
    {
      return;
    }
    const InputImageType * input = this->GetInput();
    auto                   inside = outputRegion;
    if (!inside.Crop(input->GetLargestPossibleRegion()))
    {
      inside.SetSize(typename OutputImageType::SizeType{}); // all padding
    }
    if (inside.GetNumberOfPixels() > 0 && !input->GetBufferedRegion().IsInside(inside))
    {
      itkExceptionMacro("the input's buffered region " << input->GetBufferedRegion() << " lacks the pixels of "
                                                       << inside << " that the output needs");
    }
    const PixelType constant =
      static_cast<const ConstantCondition *>(this->GetBoundaryCondition())->GetConstant();
    // One pass: each output pixel written once, from the input or the constant.
    const bool any = inside.GetNumberOfPixels() > 0;
    CudaComposeImageBoxAsync(output->GetCudaDataManager()->GetGPUBufferPointerForOverwrite(),
                             outputRegion,
                             inside,
                             any ? input->GetCudaDataManager()->GetConstGPUBufferPointer() : nullptr,
                             input->GetBufferedRegion(),
                             inside.GetIndex(),
                             nullptr,
                             outputRegion,
                             &constant,
                             sizeof(PixelType),
                             this->GetCudaStream());
  }

  /** False: the kernel is queued on GetCudaStream(). */
  bool
  GPUGenerateDataUsesLegacyStream() const override
  {
    return false;
  }
};
} // namespace itk

#endif
