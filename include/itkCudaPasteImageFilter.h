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
#ifndef itkCudaPasteImageFilter_h
#define itkCudaPasteImageFilter_h

#include "itkCudaInPlaceImageFilter.h"
#include "itkCudaRegionCopy.h"
#include "itkPasteImageFilter.h"

#include <type_traits>

namespace itk
{
/** \class CudaPasteImageFilter
 * \brief A region of one image, or a constant, pasted into another on the
 * GPU: ITK's PasteImageFilter (SetDestinationImage(), SetSourceImage() or
 * SetConstant(), SetSourceRegion(), SetDestinationIndex(),
 * SetDestinationSkipAxes() for a source of fewer dimensions, in place; it
 * runs without a GPU, or with GPUEnabled off).
 *
 * Not in place, one kernel per 3-D slab writes each output pixel once: the
 * source's (or the constant) in the pasted region, the destination's around
 * it (CudaComposeImageBoxAsync()), on the output's stream: no host round
 * trip, the output made on the device alone; a streamed output makes its
 * piece. In place (InPlaceOn(), the destination not the source), the output
 * is the destination's buffer and only the pasted region is written. The three images are CudaImages of one pixel type.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TSourceImage = TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT CudaPasteImageFilter
  : public CudaInPlaceImageFilter<TInputImage,
                                  TOutputImage,
                                  PasteImageFilter<TInputImage, TSourceImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaPasteImageFilter);
  static_assert(std::is_same<typename TInputImage::PixelType, typename TOutputImage::PixelType>::value &&
                  std::is_same<typename TSourceImage::PixelType, typename TOutputImage::PixelType>::value,
                "CudaPasteImageFilter copies pixels: the three images' pixel types must be one");

  using Self = CudaPasteImageFilter;
  using Superclass =
    CudaInPlaceImageFilter<TInputImage, TOutputImage, PasteImageFilter<TInputImage, TSourceImage, TOutputImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = PasteImageFilter<TInputImage, TSourceImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaPasteImageFilter, CudaInPlaceImageFilter);

  using InputImageType = TInputImage;
  using SourceImageType = TSourceImage;
  using OutputImageType = TOutputImage;
  using PixelType = typename TOutputImage::PixelType;
  static constexpr unsigned int ImageDimension = TOutputImage::ImageDimension;
  static constexpr unsigned int SourceImageDimension = TSourceImage::ImageDimension;

protected:
  CudaPasteImageFilter() = default;
  ~CudaPasteImageFilter() override = default;

  void
  GPUGenerateData() override
  {
    OutputImageType * output = this->GetOutput();
    const auto &      outputRegion = output->GetBufferedRegion();
    if (outputRegion.GetNumberOfPixels() == 0)
    {
      return;
    }
    // In place the output is the destination: its pixels outside the pasted region stay.
    const bool   inPlace = this->GetRunningInPlace();
    cudaStream_t stream = this->GetCudaStream();
    ImageRegion<ImageDimension> pasted(this->GetDestinationIndex(), this->GetPresumedDestinationSize());
    if (!pasted.Crop(outputRegion))
    {
      pasted = ImageRegion<ImageDimension>(outputRegion.GetIndex(), Size<ImageDimension>{}); // nothing pasted here
    }
    const bool any = pasted.GetNumberOfPixels() > 0;
    if (inPlace && !any)
    {
      return;
    }
    void * out = inPlace ? output->GetCudaDataManager()->GetGPUBufferPointer()
                         : output->GetCudaDataManager()->GetGPUBufferPointerForOverwrite();
    // The source's buffer seen in the output's dimensions (a skipped axis:
    // size 1, at the pasted region's index), and where the copy starts in it;
    // without a source image, the constant (ITK's input that only then is set).
    const SourceImageType * source = this->GetSourceImage();
    const PixelType         constant = source == nullptr ? this->GetConstant() : PixelType{};
    source = any ? source : nullptr;
    const void *                from = nullptr;
    ImageRegion<ImageDimension> buffer;
    Index<ImageDimension>       start = pasted.GetIndex();
    if (source != nullptr)
    {
      const auto & sourceBuffer = source->GetBufferedRegion();
      const auto   skip = this->GetDestinationSkipAxes();
      for (unsigned int d = 0, s = 0; d < ImageDimension; ++d)
      {
        if (skip[d])
        {
          buffer.SetIndex(d, pasted.GetIndex(d));
          buffer.SetSize(d, 1);
          continue;
        }
        buffer.SetIndex(d, sourceBuffer.GetIndex(s));
        buffer.SetSize(d, sourceBuffer.GetSize(s));
        start[d] = pasted.GetIndex(d) + this->GetSourceRegion().GetIndex(s) - this->GetDestinationIndex()[d];
        ++s;
      }
      source->GetCudaDataManager()->SetDevice(output->GetCudaDataManager()->GetDevice());
      from = source->GetCudaDataManager()->GetConstGPUBufferPointer();
    }
    if (inPlace)
    {
      if (from != nullptr)
      {
        CudaCopyImageBoxAsync(out, outputRegion, pasted, from, buffer, start, sizeof(PixelType), stream);
      }
      else
      {
        CudaFillImageBoxAsync(out, outputRegion, pasted, true, &constant, sizeof(PixelType), stream);
      }
      return;
    }
    const InputImageType * destination = this->GetDestinationImage();
    CudaComposeImageBoxAsync(out,
                             outputRegion,
                             pasted,
                             from,
                             buffer,
                             start,
                             destination->GetCudaDataManager()->GetConstGPUBufferPointer(),
                             destination->GetBufferedRegion(),
                             &constant,
                             sizeof(PixelType),
                             stream);
  }

  /** False: the copies and kernels are queued on GetCudaStream(). */
  bool
  GPUGenerateDataUsesLegacyStream() const override
  {
    return false;
  }
};
} // namespace itk

#endif
