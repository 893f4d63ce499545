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
#ifndef itkCudaLogImageFilter_h
#define itkCudaLogImageFilter_h

#include "itkLogImageFilter.h"
#include "itkCudaFunctors.h"
#include "itkCudaUnaryFunctorImageFilter.h"

namespace itk
{
/** \class CudaLogImageFilter
 * \brief The natural logarithm of every pixel, on the GPU: ITK's LogImageFilter (which
 * runs without a GPU, or with GPUEnabled off), computing the same pixels
 * (CudaLogFunctor: in double, converted to the output type).
 *
 * Input and output are CudaImages of one dimension, of float or of double
 * pixels (src/itkCudaElementaryFunctionImage.cu). Not in place by default.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT CudaLogImageFilter
  : public CudaUnaryFunctorImageFilter<TInputImage, TOutputImage, CudaLogFunctor<typename TInputImage::PixelType, typename TOutputImage::PixelType>, LogImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaLogImageFilter);

  using Self = CudaLogImageFilter;
  using Superclass = CudaUnaryFunctorImageFilter<TInputImage, TOutputImage, CudaLogFunctor<typename TInputImage::PixelType, typename TOutputImage::PixelType>, LogImageFilter<TInputImage, TOutputImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = LogImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::CudaFunctorType;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaLogImageFilter, CudaUnaryFunctorImageFilter);

protected:
  CudaLogImageFilter() = default;
  ~CudaLogImageFilter() override = default;
};
} // namespace itk

#endif
