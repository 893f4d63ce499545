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
#ifndef itkCudaImageFromImageFilter_h
#define itkCudaImageFromImageFilter_h

#include "itkCudaImage.h"
#include "itkImageToImageFilter.h"

namespace itk
{
/** \class CudaImageFromImageFilter
 * \brief Presents an itk::Image as a CudaImage without copying its pixels.
 *
 * The output shares the input's pixel container (host memory) and buffered
 * region; its device copy is made from that memory when a CUDA filter asks
 * for it. Metadata and requested regions propagate as in any ITK filter.
 * \ingroup CudaCommon
 */
template <typename TInputImage>
class ITK_TEMPLATE_EXPORT CudaImageFromImageFilter
  : public ImageToImageFilter<TInputImage, CudaImage<typename TInputImage::PixelType, TInputImage::ImageDimension>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaImageFromImageFilter);

  using InputImageType = TInputImage;
  using OutputImageType = CudaImage<typename TInputImage::PixelType, TInputImage::ImageDimension>;
  using Self = CudaImageFromImageFilter;
  using Superclass = ImageToImageFilter<InputImageType, OutputImageType>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaImageFromImageFilter, ImageToImageFilter);

protected:
  CudaImageFromImageFilter() = default;
  ~CudaImageFromImageFilter() override = default;

  /** Share the input's pixel container instead of allocating. */
  void
  GenerateData() override
  {
    const InputImageType * input = this->GetInput();
    OutputImageType *      output = this->GetOutput();
    output->SetBufferedRegion(input->GetBufferedRegion());
    output->SetPixelContainer(
      const_cast<typename OutputImageType::PixelContainer *>(input->GetPixelContainer()));
  }
};
} // namespace itk

#endif
