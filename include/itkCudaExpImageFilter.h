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
#ifndef itkCudaExpImageFilter_h
#define itkCudaExpImageFilter_h

#include "itkExpImageFilter.h"
#include "itkCudaFunctors.h"
#include "itkCudaUnaryFunctorImageFilter.h"

namespace itk
{
/** \class CudaExpImageFilter
 * \brief The exponential of every pixel, on the GPU: ITK's ExpImageFilter (which
 * runs without a GPU, or with GPUEnabled off), computing the same pixels
 * (CudaExpFunctor: in double, converted to the output type).
 *
 * Input and output are CudaImages of one dimension, of float or of double
 * pixels (src/itkCudaElementaryFunctionImage.cu). Not in place by default.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT CudaExpImageFilter
  : public CudaUnaryFunctorImageFilter<TInputImage, TOutputImage, CudaExpFunctor<typename TInputImage::PixelType, typename TOutputImage::PixelType>, ExpImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaExpImageFilter);

  using Self = CudaExpImageFilter;
  using Superclass = CudaUnaryFunctorImageFilter<TInputImage, TOutputImage, CudaExpFunctor<typename TInputImage::PixelType, typename TOutputImage::PixelType>, ExpImageFilter<TInputImage, TOutputImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = ExpImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::CudaFunctorType;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaExpImageFilter, CudaUnaryFunctorImageFilter);

protected:
  CudaExpImageFilter() = default;
  ~CudaExpImageFilter() override = default;
};
} // namespace itk

#endif
