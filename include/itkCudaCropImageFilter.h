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
#ifndef itkCudaCropImageFilter_h
#define itkCudaCropImageFilter_h

#include "itkCropImageFilter.h"
#include "itkCudaExtractImageFilter.h" // CudaDetail::ExtractOnDevice

#include <type_traits>

namespace itk
{
/** \class CudaCropImageFilter
 * \brief An image with its borders removed, copied on the GPU: ITK's
 * CropImageFilter (SetBoundaryCropSize(), SetUpperBoundaryCropSize(),
 * SetLowerBoundaryCropSize() and the output's geometry are its own; it runs
 * without a GPU, or with GPUEnabled off).
 *
 * The kept box is copied device to device, a strided 3-D copy per 3-D slab,
 * on the output's stream: no host round trip, the output made on the device
 * alone; a streamed output copies its piece. Input and output are CudaImages
 * of one pixel type and dimension. In place (InPlaceOn(), nothing cropped),
 * the output is the input's buffer, as in ITK's.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage>
class ITK_TEMPLATE_EXPORT CudaCropImageFilter
  : public CudaInPlaceImageFilter<TInputImage, TOutputImage, CropImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaCropImageFilter);
  static_assert(std::is_same<typename TInputImage::PixelType, typename TOutputImage::PixelType>::value,
                "CudaCropImageFilter copies pixels: the input and output pixel types must be one");

  using Self = CudaCropImageFilter;
  using Superclass = CudaInPlaceImageFilter<TInputImage, TOutputImage, CropImageFilter<TInputImage, TOutputImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = CropImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaCropImageFilter, CudaInPlaceImageFilter);

  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;

protected:
  CudaCropImageFilter() = default;
  ~CudaCropImageFilter() override = default;

  void
  GPUGenerateData() override
  {
    CudaDetail::ExtractOnDevice(
      this->GetInput(),
      this->GetOutput(),
      this->GetRunningInPlace(),
      this->m_OutputImageRegion,
      [this](auto & inputRegion, const auto & outputRegion) {
        this->CallCopyOutputRegionToInputRegion(inputRegion, outputRegion);
      },
      this->GetCudaStream());
  }

  /** False: the copies are queued on GetCudaStream(). */
  bool
  GPUGenerateDataUsesLegacyStream() const override
  {
    return false;
  }
};
} // namespace itk

#endif
