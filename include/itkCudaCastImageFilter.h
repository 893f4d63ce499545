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
#ifndef itkCudaCastImageFilter_h
#define itkCudaCastImageFilter_h

#include "itkCastImageFilter.h"
#include "itkCudaFunctors.h"
#include "itkCudaUnaryFunctorImageFilter.h"

namespace itk
{
/** \class CudaCastImageFilter
 * \brief Every pixel converted to the output's pixel type, on the GPU:
 * ITK's CastImageFilter (which runs without a GPU, or with GPUEnabled off),
 * computing the same pixels (CudaCastFunctor: static_cast as x86-64 computes
 * it, also for floating-point values out of an integer type's range).
 *
 * Input and output are CudaImages of one dimension and scalar pixels among
 * unsigned char, short, unsigned short, int, float and double, every pair
 * (src/itkCudaCastImage.cu). Not in place by default; in place (one pixel
 * type) the output is the input and nothing runs, as in ITK's.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT CudaCastImageFilter
  : public CudaUnaryFunctorImageFilter<TInputImage, TOutputImage, CudaCastFunctor<typename TInputImage::PixelType, typename TOutputImage::PixelType>, CastImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaCastImageFilter);

  using Self = CudaCastImageFilter;
  using Superclass = CudaUnaryFunctorImageFilter<TInputImage, TOutputImage, CudaCastFunctor<typename TInputImage::PixelType, typename TOutputImage::PixelType>, CastImageFilter<TInputImage, TOutputImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = CastImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::CudaFunctorType;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaCastImageFilter, CudaUnaryFunctorImageFilter);

protected:
  CudaCastImageFilter() = default;
  ~CudaCastImageFilter() override = default;

  void
  GPUGenerateData() override
  {
    if (this->GetInPlace() && this->CanRunInPlace())
    {
      return; // the output is the input's buffer: nothing to convert
    }
    Superclass::GPUGenerateData();
  }
};
} // namespace itk

#endif
