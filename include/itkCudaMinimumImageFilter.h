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
#ifndef itkCudaMinimumImageFilter_h
#define itkCudaMinimumImageFilter_h

#include "itkMinimumImageFilter.h"
#include "itkCudaBinaryFunctorImageFilter.h"
#include "itkCudaFunctors.h"

namespace itk
{
/** \class CudaMinimumImageFilter
 * \brief The pixel-wise minimum (the smaller pixel) of two images, or of an
 * image and a constant (SetConstant1() / SetConstant2()), on the GPU: ITK's
 * MinimumImageFilter (which runs without a GPU, or with GPUEnabled off),
 * computing the same pixels (CudaMinimumFunctor).
 *
 * Inputs and output are CudaImages of one dimension and one scalar pixel
 * type among unsigned char, signed char, short, unsigned short, int,
 * unsigned int, unsigned long, float and double
 * (src/itkCudaBinaryArithmeticImage.cu). Not in place by default, as
 * MinimumImageFilter; InPlaceOn() reuses the first input's buffers.
 * \ingroup CudaCommon
 */
template <typename TInputImage1, typename TInputImage2 = TInputImage1, typename TOutputImage = TInputImage1>
class ITK_TEMPLATE_EXPORT CudaMinimumImageFilter
  : public CudaBinaryFunctorImageFilter<TInputImage1,
                                        TInputImage2,
                                        TOutputImage,
                                        CudaMinimumFunctor<CudaDevicePixelType<typename TInputImage1::PixelType>,
                                                            CudaDevicePixelType<typename TInputImage2::PixelType>,
                                                            CudaDevicePixelType<typename TOutputImage::PixelType>>,
                                        MinimumImageFilter<TInputImage1, TInputImage2, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaMinimumImageFilter);

  using Self = CudaMinimumImageFilter;
  using Superclass =
    CudaBinaryFunctorImageFilter<TInputImage1,
                                 TInputImage2,
                                 TOutputImage,
                                 CudaMinimumFunctor<CudaDevicePixelType<typename TInputImage1::PixelType>,
                                                     CudaDevicePixelType<typename TInputImage2::PixelType>,
                                                     CudaDevicePixelType<typename TOutputImage::PixelType>>,
                                 MinimumImageFilter<TInputImage1, TInputImage2, TOutputImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = MinimumImageFilter<TInputImage1, TInputImage2, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaMinimumImageFilter, CudaBinaryFunctorImageFilter);

protected:
  CudaMinimumImageFilter() = default;
  ~CudaMinimumImageFilter() override = default;
};
} // namespace itk

#endif
