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

#include "itkCudaDeviceSplitter.h"
#include "itkCudaInPlaceImageFilter.h"
#include "itkSquareImageFilter.h"

#include <memory>

namespace itk
{
/** \class CudaSquareImageFilter
 * \brief Squares every pixel on the GPU; the example CUDA filter.
 *
 * TImage is a CudaImage of any dimension. Runs in place by default, unlike
 * ITK's SquareImageFilter: the output reuses the input's buffers and the input
 * is released after the update; call InPlaceOff() to keep the input. Without a CUDA device, or with GPUEnabled off, ITK's
 * SquareImageFilter computes the same pixels on the CPU.
 *
 * Streaming works: when the output's region is a piece of a larger input
 * buffer (a StreamingImageFilter downstream of a fully buffered image), the
 * GPU path squares just that piece, in any dimension; the input is uploaded
 * once and stays on the device for the next pieces.
 *
 * Several devices can share one update (SetSplitDevices()): the output stays
 * on its device, which computes its share in place, and the other devices
 * compute theirs from peer copies (see CudaDeviceSplitter for when that
 * pays). Streaming pieces are computed on the output's device alone.
 * \ingroup CudaCommon
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaSquareImageFilter
  : public CudaInPlaceImageFilter<TImage, TImage, SquareImageFilter<TImage, TImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaSquareImageFilter);

  using Self = CudaSquareImageFilter;
  using Superclass = CudaInPlaceImageFilter<TImage, TImage, SquareImageFilter<TImage, TImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = SquareImageFilter<TImage, TImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaSquareImageFilter, CudaInPlaceImageFilter);

  using ImageType = TImage;
  using PixelType = typename TImage::PixelType;

  static_assert(std::is_same<TImage, CudaImage<PixelType, TImage::ImageDimension>>::value,
                "CudaSquareImageFilter expects an itk::CudaImage");

  /** The devices that share the work of an update and their weights (equal
   * when empty), as CudaDeviceSplitter::SetDevices() takes them. Empty (the
   * default): the output's device alone, which is also what one GPU gives.
   * \throws itk::ExceptionObject for repeated or negative devices or bad
   * weights; Update() throws for an index beyond the device count. */
  void
  SetSplitDevices(const std::vector<int> & devices, const std::vector<double> & weights = {});
  const std::vector<int> &
  GetSplitDevices() const
  {
    return m_Splitter->GetDevices();
  }
  const std::vector<double> &
  GetSplitWeights() const
  {
    return m_Splitter->GetWeights();
  }

  /** Share the work of an update between every visible device, equally (on
   * one GPU it simply uses that one); Off returns to the output's device
   * alone. SetSplitDevices() replaces this choice. */
  void
  SetSplitAcrossAllDevices(bool all);
  bool
  GetSplitAcrossAllDevices() const
  {
    return m_Splitter->GetAllDevices();
  }
  itkBooleanMacro(SplitAcrossAllDevices);

  /** The splitter behind SetSplitDevices(): chunk size, pieces of the last update. */
  CudaDeviceSplitter &
  GetDeviceSplitter()
  {
    return *m_Splitter;
  }

protected:
  CudaSquareImageFilter() { this->InPlaceOn(); }
  ~CudaSquareImageFilter() override = default;

  void
  GPUGenerateData() override;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  void
  GenerateRegionOnGPU(const ImageType * input, ImageType * output);

  /** Runs launch(in, out, stream) with the device pointers of input and
   * output on the output's stream, ordered after the input's copies; later
   * work on the input waits for it. The input's pointer is taken first: when
   * running in place, both are the same buffer and the input's data must
   * reach the device before the output claims it. */
  template <typename TLaunch>
  void
  LaunchOnOutputStream(const ImageType * input, ImageType * output, TLaunch && launch);

  std::unique_ptr<CudaDeviceSplitter> m_Splitter{ std::make_unique<CudaDeviceSplitter>() };
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkCudaSquareImageFilter.hxx"
#endif

#endif
