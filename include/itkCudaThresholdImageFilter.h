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
#ifndef itkCudaThresholdImageFilter_h
#define itkCudaThresholdImageFilter_h

#include "itkThresholdImageFilter.h"
#include "itkCudaFunctors.h"
#include "itkCudaUnaryFunctorImageFilter.h"

namespace itk
{
/** \class CudaThresholdImageFilter
 * \brief Every pixel outside [Lower, Upper] set to OutsideValue, on the GPU:
 * ITK's ThresholdImageFilter (SetLower(), SetUpper(), ThresholdAbove(),
 * ThresholdBelow(), ThresholdOutside(), SetOutsideValue(); it runs without
 * a GPU, or with GPUEnabled off), computing the same pixels
 * (CudaThresholdFunctor).
 *
 * The image is a CudaImage of unsigned char, short, unsigned short, float
 * or double pixels (src/itkCudaThresholdImage.cu). Not in place by default,
 * as ThresholdImageFilter.
 * \ingroup CudaCommon
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaThresholdImageFilter
  : public CudaUnaryFunctorImageFilter<TImage, TImage, CudaThresholdFunctor<typename TImage::PixelType>, ThresholdImageFilter<TImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaThresholdImageFilter);

  using Self = CudaThresholdImageFilter;
  using Superclass = CudaUnaryFunctorImageFilter<TImage, TImage, CudaThresholdFunctor<typename TImage::PixelType>, ThresholdImageFilter<TImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = ThresholdImageFilter<TImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::CudaFunctorType;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaThresholdImageFilter, CudaUnaryFunctorImageFilter);

protected:
  CudaThresholdImageFilter() = default;
  ~CudaThresholdImageFilter() override = default;

  /** The parent's bounds and outside value, so both paths use one setting. */
  CudaFunctorType
  MakeCudaFunctor() const override
  {
    CudaFunctorType functor;
    functor.Lower = this->GetLower();
    functor.Upper = this->GetUpper();
    functor.OutsideValue = this->GetOutsideValue();
    return functor;
  }
};
} // namespace itk

#endif
