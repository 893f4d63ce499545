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
#ifndef itkCudaDivideOrZeroOutImageFilter_h
#define itkCudaDivideOrZeroOutImageFilter_h

#include "itkDivideOrZeroOutImageFilter.h"
#include "itkCudaBinaryFunctorImageFilter.h"
#include "itkCudaFunctors.h"

namespace itk
{
/** \class CudaDivideOrZeroOutImageFilter
 * \brief The pixel-wise quotient of two images, or of an image and a
 * constant, with a constant where the denominator is below a threshold, on
 * the GPU: ITK's DivideOrZeroOutImageFilter (SetThreshold(), SetConstant();
 * it runs without a GPU, or with GPUEnabled off), computing the same pixels
 * (CudaDivideOrZeroOutFunctor).
 *
 * Inputs and output are CudaImages of one dimension, of float or of double
 * pixels (src/itkCudaBinaryArithmeticImage.cu). Not in place by default.
 * \ingroup CudaCommon
 */
template <typename TInputImage1, typename TInputImage2 = TInputImage1, typename TOutputImage = TInputImage1>
class ITK_TEMPLATE_EXPORT CudaDivideOrZeroOutImageFilter
  : public CudaBinaryFunctorImageFilter<TInputImage1, TInputImage2, TOutputImage, CudaDivideOrZeroOutFunctor<CudaDevicePixelType<typename TInputImage1::PixelType>, CudaDevicePixelType<typename TInputImage2::PixelType>, CudaDevicePixelType<typename TOutputImage::PixelType>>, DivideOrZeroOutImageFilter<TInputImage1, TInputImage2, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaDivideOrZeroOutImageFilter);

  using Self = CudaDivideOrZeroOutImageFilter;
  using Superclass = CudaBinaryFunctorImageFilter<TInputImage1, TInputImage2, TOutputImage, CudaDivideOrZeroOutFunctor<CudaDevicePixelType<typename TInputImage1::PixelType>, CudaDevicePixelType<typename TInputImage2::PixelType>, CudaDevicePixelType<typename TOutputImage::PixelType>>, DivideOrZeroOutImageFilter<TInputImage1, TInputImage2, TOutputImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = DivideOrZeroOutImageFilter<TInputImage1, TInputImage2, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::CudaFunctorType;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaDivideOrZeroOutImageFilter, CudaBinaryFunctorImageFilter);

protected:
  CudaDivideOrZeroOutImageFilter() = default;
  ~CudaDivideOrZeroOutImageFilter() override = default;

  /** The parent's threshold and constant, so both paths use one setting. */
  CudaFunctorType
  MakeCudaFunctor() const override
  {
    CudaFunctorType functor;
    functor.Threshold = this->GetThreshold();
    functor.Constant = this->GetConstant();
    return functor;
  }
};
} // namespace itk

#endif
