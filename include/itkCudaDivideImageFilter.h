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
#ifndef itkCudaDivideImageFilter_h
#define itkCudaDivideImageFilter_h

#include "itkDivideImageFilter.h"
#include "itkCudaBinaryFunctorImageFilter.h"
#include "itkCudaFunctors.h"

namespace itk
{
/** \class CudaDivideImageFilter
 * \brief The pixel-wise quotient of two images, or of an image and a
 * constant, on the GPU: ITK's DivideImageFilter (which runs without a GPU,
 * or with GPUEnabled off), computing the same pixels (CudaDivideFunctor: the
 * output type's largest value where the divisor is zero). A constant divisor
 * of zero is refused as ITK refuses it (VerifyPreconditions()).
 *
 * Inputs and output are CudaImages of one dimension and one pixel type among
 * unsigned char, short, unsigned short, int, unsigned int, float and double
 * (src/itkCudaBinaryArithmeticImage.cu). Not in place by default.
 * \ingroup CudaCommon
 */
template <typename TInputImage1, typename TInputImage2 = TInputImage1, typename TOutputImage = TInputImage1>
class ITK_TEMPLATE_EXPORT CudaDivideImageFilter
  : public CudaBinaryFunctorImageFilter<TInputImage1, TInputImage2, TOutputImage, CudaDivideFunctor<CudaDevicePixelType<typename TInputImage1::PixelType>, CudaDevicePixelType<typename TInputImage2::PixelType>, CudaDevicePixelType<typename TOutputImage::PixelType>>, DivideImageFilter<TInputImage1, TInputImage2, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaDivideImageFilter);

  using Self = CudaDivideImageFilter;
  using Superclass = CudaBinaryFunctorImageFilter<TInputImage1, TInputImage2, TOutputImage, CudaDivideFunctor<CudaDevicePixelType<typename TInputImage1::PixelType>, CudaDevicePixelType<typename TInputImage2::PixelType>, CudaDevicePixelType<typename TOutputImage::PixelType>>, DivideImageFilter<TInputImage1, TInputImage2, TOutputImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = DivideImageFilter<TInputImage1, TInputImage2, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::CudaFunctorType;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaDivideImageFilter, CudaBinaryFunctorImageFilter);

protected:
  CudaDivideImageFilter() = default;
  ~CudaDivideImageFilter() override = default;
};
} // namespace itk

#endif
