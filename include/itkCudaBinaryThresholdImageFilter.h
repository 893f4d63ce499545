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
#ifndef itkCudaBinaryThresholdImageFilter_h
#define itkCudaBinaryThresholdImageFilter_h

#include "itkBinaryThresholdImageFilter.h"
#include "itkCudaFunctors.h"
#include "itkCudaUnaryFunctorImageFilter.h"

namespace itk
{
/** \class CudaBinaryThresholdImageFilter
 * \brief InsideValue where the pixel lies between the thresholds, else
 * OutsideValue, on the GPU: ITK's BinaryThresholdImageFilter (its
 * thresholds, given as values or as decorated inputs, and its inside and
 * outside values; it runs without a GPU, or with GPUEnabled off), computing
 * the same pixels (CudaBinaryThresholdFunctor). A lower threshold above the
 * upper one is refused as ITK refuses it.
 *
 * The input is a CudaImage of unsigned char, short, unsigned short, float
 * or double pixels, the output one of the same dimension, of unsigned char
 * pixels or of the input's (src/itkCudaThresholdImage.cu). Not in place by
 * default.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT CudaBinaryThresholdImageFilter
  : public CudaUnaryFunctorImageFilter<TInputImage, TOutputImage, CudaBinaryThresholdFunctor<typename TInputImage::PixelType, typename TOutputImage::PixelType>, BinaryThresholdImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaBinaryThresholdImageFilter);

  using Self = CudaBinaryThresholdImageFilter;
  using Superclass = CudaUnaryFunctorImageFilter<TInputImage, TOutputImage, CudaBinaryThresholdFunctor<typename TInputImage::PixelType, typename TOutputImage::PixelType>, BinaryThresholdImageFilter<TInputImage, TOutputImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = BinaryThresholdImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::CudaFunctorType;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaBinaryThresholdImageFilter, CudaUnaryFunctorImageFilter);

protected:
  CudaBinaryThresholdImageFilter() = default;
  ~CudaBinaryThresholdImageFilter() override = default;

  /** The parent's thresholds and values, checked as ITK checks them.
   * \throws itk::ExceptionObject for a lower threshold above the upper one. */
  CudaFunctorType
  MakeCudaFunctor() const override
  {
    CudaFunctorType functor;
    functor.Lower = this->GetLowerThreshold();
    functor.Upper = this->GetUpperThreshold();
    if (functor.Lower > functor.Upper)
    {
      itkExceptionMacro("Lower threshold cannot be greater than upper threshold.");
    }
    functor.InsideValue = this->GetInsideValue();
    functor.OutsideValue = this->GetOutsideValue();
    return functor;
  }
};
} // namespace itk

#endif
