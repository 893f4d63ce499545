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
#ifndef itkCudaSquareImageFilter_h
#define itkCudaSquareImageFilter_h

#include "itkCudaFunctors.h"
#include "itkCudaUnaryFunctorImageFilter.h"
#include "itkSquareImageFilter.h"

namespace itk
{
/** \class CudaSquareImageFilter
 * \brief Squares every pixel on the GPU; the example CUDA filter.
 *
 * TImage is a CudaImage of any dimension. Runs in place by default, unlike
 * ITK's SquareImageFilter: the output reuses the input's buffers and the input
 * is released after the update; call InPlaceOff() to keep the input. Without
 * a CUDA device, or with GPUEnabled off, ITK's SquareImageFilter computes the
 * same pixels on the CPU.
 *
 * What it takes to write one: a device functor (CudaSquareFunctor, in
 * itkCudaFunctors.h), the kernels' instantiation for it in a `.cu` file
 * (src/itkCudaSquareImage.cu) and the class below. CudaUnaryFunctorImageFilter
 * and CudaElementwiseImageFilter give the rest: the CPU fallback, in-place
 * runs, streaming (when the output's region is a piece of a larger input
 * buffer, the input is uploaded once and each piece squared from it),
 * sharing an update between devices (SetSplitDevices()), progress events,
 * and the ordering of the kernels after the uploads and before later use of
 * the images. The launch functions of itkCudaSquareImage.hcu stay for code
 * that calls them on device pointers.
 * \ingroup CudaCommon
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaSquareImageFilter
  : public CudaUnaryFunctorImageFilter<TImage,
                                       TImage,
                                       CudaSquareFunctor<typename TImage::PixelType>,
                                       SquareImageFilter<TImage, TImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaSquareImageFilter);

  using Self = CudaSquareImageFilter;
  using Superclass = CudaUnaryFunctorImageFilter<TImage,
                                                 TImage,
                                                 CudaSquareFunctor<typename TImage::PixelType>,
                                                 SquareImageFilter<TImage, TImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = SquareImageFilter<TImage, TImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaSquareImageFilter, CudaUnaryFunctorImageFilter);

  using ImageType = TImage;
  using PixelType = typename TImage::PixelType;

  static_assert(std::is_same<TImage, CudaImage<PixelType, TImage::ImageDimension>>::value,
                "CudaSquareImageFilter expects an itk::CudaImage");

protected:
  CudaSquareImageFilter() { this->InPlaceOn(); }
  ~CudaSquareImageFilter() override = default;
};
} // namespace itk

#endif
