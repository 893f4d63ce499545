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
#ifndef itkCudaShiftScaleImageFilter_h
#define itkCudaShiftScaleImageFilter_h

#include "itkCudaImageToImageFilter.h"
#include "itkShiftScaleImageFilter.h"

namespace itk
{
/** \class CudaShiftScaleImageFilter
 * \brief (pixel + Shift) * Scale on the GPU; ITK's ShiftScaleImageFilter on the CPU.
 *
 * A CUDA filter written outside CudaCommon, against its installed headers:
 * the parameters (SetShift(), SetScale()) are the CPU parent's, and
 * GPUGenerateData() runs the kernel of itkCudaShiftScaleImage.cu. Without a
 * CUDA device, or with GPUEnabled off, ShiftScaleImageFilter runs instead.
 * Values outside the pixel type's range are clamped as on the CPU, but the GPU
 * path does not update GetUnderflowCount() / GetOverflowCount().
 * TImage is a CudaImage of float or double pixels.
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaShiftScaleImageFilter
  : public CudaImageToImageFilter<TImage, TImage, ShiftScaleImageFilter<TImage, TImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaShiftScaleImageFilter);

  using Self = CudaShiftScaleImageFilter;
  using Superclass = CudaImageToImageFilter<TImage, TImage, ShiftScaleImageFilter<TImage, TImage>>;
  using CPUSuperclass = ShiftScaleImageFilter<TImage, TImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaShiftScaleImageFilter, CudaImageToImageFilter);

  using ImageType = TImage;
  using PixelType = typename TImage::PixelType;

protected:
  CudaShiftScaleImageFilter() = default;
  ~CudaShiftScaleImageFilter() override = default;

  void
  GPUGenerateData() override;
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkCudaShiftScaleImageFilter.hxx"
#endif

#endif
