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
#ifndef itkCudaAbsImageFilter_h
#define itkCudaAbsImageFilter_h

#include "itkAbsImageFilter.h"
#include "itkCudaFunctors.h"
#include "itkCudaUnaryFunctorImageFilter.h"

#include <type_traits>
#include <utility>

namespace itk
{
/** Whether itk::Math::abs of this ITK is std::abs for `int` and floating
 * point (later releases) rather than vnl_math's (ITK 5.2): see
 * CudaAbsFunctor. */
constexpr bool CudaITKMathAbsIsStdAbs = std::is_same<decltype(Math::abs(std::declval<int>())), int>::value;

/** \class CudaAbsImageFilter
 * \brief The absolute value of every pixel, on the GPU: ITK's AbsImageFilter
 * (which runs without a GPU, or with GPUEnabled off), computing the same
 * pixels (CudaAbsFunctor).
 *
 * Input and output are CudaImages of one dimension, of the same pixel type
 * among unsigned char, signed char, short, unsigned short, int, unsigned
 * int, unsigned long, float and double (the kernels instantiated in
 * src/itkCudaAbsImage.cu). Not in place by default, as AbsImageFilter;
 * InPlaceOn() reuses the input's buffers.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT CudaAbsImageFilter
  : public CudaUnaryFunctorImageFilter<
      TInputImage,
      TOutputImage,
      CudaAbsFunctor<typename TInputImage::PixelType, typename TOutputImage::PixelType, CudaITKMathAbsIsStdAbs>,
      AbsImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaAbsImageFilter);

  using Self = CudaAbsImageFilter;
  using Superclass = CudaUnaryFunctorImageFilter<
    TInputImage,
    TOutputImage,
    CudaAbsFunctor<typename TInputImage::PixelType, typename TOutputImage::PixelType, CudaITKMathAbsIsStdAbs>,
    AbsImageFilter<TInputImage, TOutputImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = AbsImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaAbsImageFilter, CudaUnaryFunctorImageFilter);

protected:
  CudaAbsImageFilter() = default;
  ~CudaAbsImageFilter() override = default;
};
} // namespace itk

#endif
