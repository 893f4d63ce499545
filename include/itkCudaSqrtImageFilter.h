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
#ifndef itkCudaSqrtImageFilter_h
#define itkCudaSqrtImageFilter_h

#include "itkSqrtImageFilter.h"
#include "itkCudaFunctors.h"
#include "itkCudaUnaryFunctorImageFilter.h"

namespace itk
{
/** \class CudaSqrtImageFilter
 * \brief The square root of every pixel, on the GPU: ITK's SqrtImageFilter (which
 * runs without a GPU, or with GPUEnabled off), computing the same pixels
 * (CudaSqrtFunctor: in double, converted to the output type).
 *
 * Input and output are CudaImages of one dimension, of float or of double
 * pixels (src/itkCudaElementaryFunctionImage.cu). Not in place by default.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT CudaSqrtImageFilter
  : public CudaUnaryFunctorImageFilter<TInputImage, TOutputImage, CudaSqrtFunctor<typename TInputImage::PixelType, typename TOutputImage::PixelType>, SqrtImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaSqrtImageFilter);

  using Self = CudaSqrtImageFilter;
  using Superclass = CudaUnaryFunctorImageFilter<TInputImage, TOutputImage, CudaSqrtFunctor<typename TInputImage::PixelType, typename TOutputImage::PixelType>, SqrtImageFilter<TInputImage, TOutputImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = SqrtImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::CudaFunctorType;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaSqrtImageFilter, CudaUnaryFunctorImageFilter);

protected:
  CudaSqrtImageFilter() = default;
  ~CudaSqrtImageFilter() override = default;
};
} // namespace itk

#endif
