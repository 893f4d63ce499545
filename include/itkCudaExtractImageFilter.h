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
#ifndef itkCudaExtractImageFilter_h
#define itkCudaExtractImageFilter_h

#include "itkCudaElementwiseImageFilter.h" // CudaForEachRegionSlab
#include "itkCudaInPlaceImageFilter.h"
#include "itkExtractImageFilter.h"

#include <type_traits>

namespace itk
{
namespace CudaDetail
{
/** The GPU side of ExtractImageFilter and of its subclasses (CropImageFilter):
 * in place, the output (the input's buffer, grafted) takes the extracted
 * region `extracted` as its largest; else the input's pixels of the region
 * that `outputToInput` maps the output's buffered region to are copied,
 * device to device, a strided 3-D copy per 3-D slab, on `stream`. */
template <typename TInputImage, typename TOutputImage, typename TMapRegion>
void
ExtractOnDevice(const TInputImage *                       input,
                TOutputImage *                            output,
                bool                                      inPlace,
                const typename TOutputImage::RegionType & extracted,
                TMapRegion &&                             outputToInput,
                cudaStream_t                              stream)
{
  using PixelType = typename TOutputImage::PixelType;
  if (inPlace)
  {
    // The graft took the input's geometry: the extraction's, as ITK's filter sets it back.
    output->SetLargestPossibleRegion(extracted);
    return;
  }
  const auto & outputRegion = output->GetBufferedRegion();
  if (outputRegion.GetNumberOfPixels() == 0)
  {
    return;
  }
  typename TInputImage::RegionType inputRegion;
  outputToInput(inputRegion, outputRegion);
  const auto * in = static_cast<const char *>(input->GetCudaDataManager()->GetConstGPUBufferPointer());
  auto *       out = static_cast<char *>(output->GetCudaDataManager()->GetGPUBufferPointerForOverwrite());
  // The region in the input's dimensions, its collapsed ones of size 1:
  // its pixels in order are the output's.
  CudaForEachRegionSlab(input->GetBufferedRegion(),
                        inputRegion,
                        [&](size_t inputOffset, size_t outputOffset, const CudaRegionGeometry & geometry) {
                          CudaCopyRegionAsync(out + outputOffset * sizeof(PixelType),
                                              in + inputOffset * sizeof(PixelType),
                                              geometry,
                                              sizeof(PixelType),
                                              stream);
                        });
}
} // namespace CudaDetail

/** \class CudaExtractImageFilter
 * \brief A region of an image, of its dimension or of fewer (a slice of a
 * volume, a volume of a 4-D series), copied on the GPU: ITK's
 * ExtractImageFilter (SetExtractionRegion(), SetDirectionCollapseToStrategy()
 * and the output's geometry are its own; it runs without a GPU, or with
 * GPUEnabled off).
 *
 * The pixels are copied device to device, a strided 3-D copy per 3-D slab
 * of the region (CudaCopyRegionAsync()), on the output's stream: no host
 * round trip, and the output is made on the device alone. A streamed
 * output (a smaller requested region) copies its piece. Input and output
 * are CudaImages of one pixel type, any (the copy moves bytes); in place
 * (InPlaceOn(), one image type, the whole input extracted) the output is the
 * input's buffer, as in ITK's.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage>
class ITK_TEMPLATE_EXPORT CudaExtractImageFilter
  : public CudaInPlaceImageFilter<TInputImage, TOutputImage, ExtractImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaExtractImageFilter);
  static_assert(std::is_same<typename TInputImage::PixelType, typename TOutputImage::PixelType>::value,
                "CudaExtractImageFilter copies pixels: the input and output pixel types must be one");

  using Self = CudaExtractImageFilter;
  using Superclass = CudaInPlaceImageFilter<TInputImage, TOutputImage, ExtractImageFilter<TInputImage, TOutputImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = ExtractImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaExtractImageFilter, CudaInPlaceImageFilter);

  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;
  using PixelType = typename TOutputImage::PixelType;

protected:
  CudaExtractImageFilter() = default;
  ~CudaExtractImageFilter() override = default;

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
