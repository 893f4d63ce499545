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
#ifndef itkCudaBinaryFunctorImageFilter_hxx
#define itkCudaBinaryFunctorImageFilter_hxx

#include "itkCudaElementwiseImageFilter.h" // CudaForEachRegionSlab

namespace itk
{
namespace CudaDetail
{
/** The pixels of `image` in `region` on `device`, ready on the filter's
 * stream: its own buffer when it holds `region` alone, else a compact copy
 * queued on `stream` into `scratch` (kept alive by the caller until the
 * kernel is queued; freed in the stream's order). */
template <typename TImage>
const typename TImage::PixelType *
DevicePixelsOf(const TImage *                                 image,
               const ImageRegion<TImage::ImageDimension> &    region,
               int                                            device,
               cudaStream_t                                   stream,
               GPUMemPointer::Pointer &                       scratch)
{
  using PixelType = typename TImage::PixelType;
  image->GetCudaDataManager()->SetDevice(device);
  const auto * pixels = static_cast<const PixelType *>(image->GetCudaDataManager()->GetConstGPUBufferPointer());
  if (image->GetBufferedRegion() == region)
  {
    return pixels;
  }
  scratch = GPUMemPointer::New();
  scratch->Allocate(region.GetNumberOfPixels() * sizeof(PixelType), device, stream);
  auto * compact = static_cast<PixelType *>(scratch->GetPointer());
  CudaForEachRegionSlab(image->GetBufferedRegion(), region,
                        [&](size_t inputOffset, size_t outputOffset, const CudaRegionGeometry & geometry) {
                          CudaCopyRegionAsync(compact + outputOffset, pixels + inputOffset, geometry,
                                              sizeof(PixelType), stream);
                        });
  return compact;
}
} // namespace CudaDetail

template <typename TInputImage1,
          typename TInputImage2,
          typename TOutputImage,
          typename TFunctor,
          typename TParentImageFilter>
void
CudaBinaryFunctorImageFilter<TInputImage1, TInputImage2, TOutputImage, TFunctor, TParentImageFilter>::
  GPUGenerateData()
{
  OutputImageType * output = this->GetOutput();
  const auto &      region = output->GetBufferedRegion();
  const size_t      count = region.GetNumberOfPixels();
  if (count == 0)
  {
    return;
  }
  const auto * image1 = dynamic_cast<const TInputImage1 *>(this->ProcessObject::GetInput(0));
  const auto * image2 = dynamic_cast<const TInputImage2 *>(this->ProcessObject::GetInput(1));
  if (image1 == nullptr && image2 == nullptr)
  {
    itkExceptionMacro("expected at least one image input, got two constants");
  }
  cudaStream_t stream = this->GetCudaStream();
  // Host-resident images, streamed in chunks when that applies.
  const bool sameRegions = (image1 == nullptr || image1->GetBufferedRegion() == region) &&
                           (image2 == nullptr || image2->GetBufferedRegion() == region);
  std::vector<CudaStreamedImage> hostImages;
  if (image1 != nullptr)
  {
    hostImages.push_back({ image1->GetCudaDataManager(), sizeof(Input1PixelType) });
  }
  if (image2 != nullptr)
  {
    hostImages.push_back({ image2->GetCudaDataManager(), sizeof(Input2PixelType) });
  }
  if (sameRegions && this->GPUStreamImagesFromHost(
                       hostImages,
                       [&](const void * const * in, void * out, size_t chunkCount, cudaStream_t chunkStream) {
                         const void * first = image1 != nullptr ? in[0] : nullptr;
                         const void * second = image2 != nullptr ? in[image1 != nullptr ? 1 : 0] : nullptr;
                         this->Compute(static_cast<const Input1DevicePixelType *>(first),
                                       static_cast<const Input2DevicePixelType *>(second),
                                       static_cast<OutputDevicePixelType *>(out),
                                       chunkCount,
                                       chunkStream);
                       },
                       { m_TransferChunkBytes, m_TransferStreams }))
  {
    return;
  }
  const int device = output->GetCudaDataManager()->GetDevice();
  // The inputs first: in place, the first one's buffer is the output's.
  GPUMemPointer::Pointer scratch1;
  GPUMemPointer::Pointer scratch2;
  const Input1DevicePixelType * in1 =
    image1 != nullptr ? CudaAsDevicePixels(CudaDetail::DevicePixelsOf(image1, region, device, stream, scratch1))
                      : nullptr;
  const Input2DevicePixelType * in2 =
    image2 != nullptr ? CudaAsDevicePixels(CudaDetail::DevicePixelsOf(image2, region, device, stream, scratch2))
                      : nullptr;
  auto * out = CudaAsDevicePixels(
    static_cast<OutputPixelType *>(output->GetCudaDataManager()->GetGPUBufferPointerForOverwrite()));
  this->Compute(in1, in2, out, count, stream);
}

template <typename TInputImage1,
          typename TInputImage2,
          typename TOutputImage,
          typename TFunctor,
          typename TParentImageFilter>
void
CudaBinaryFunctorImageFilter<TInputImage1, TInputImage2, TOutputImage, TFunctor, TParentImageFilter>::Compute(
  const Input1DevicePixelType * in1,
  const Input2DevicePixelType * in2,
  OutputDevicePixelType *       out,
  size_t                        count,
  cudaStream_t                  stream) const
{
  const CudaFunctorType functor = this->MakeCudaFunctor();
  if (in1 != nullptr && in2 != nullptr)
  {
    CudaTransformElements(count, in1, in2, out, functor, stream);
  }
  else if (in1 != nullptr)
  {
    CudaTransformElements(count,
                          in1,
                          out,
                          CudaBindSecond<CudaFunctorType, Input2DevicePixelType>{
                            functor, CudaAsDevicePixel(this->GetConstant2()) },
                          stream);
  }
  else
  {
    CudaTransformElements(count,
                          in2,
                          out,
                          CudaBindFirst<CudaFunctorType, Input1DevicePixelType>{
                            functor, CudaAsDevicePixel(this->GetConstant1()) },
                          stream);
  }
}

template <typename TInputImage1,
          typename TInputImage2,
          typename TOutputImage,
          typename TFunctor,
          typename TParentImageFilter>
void
CudaBinaryFunctorImageFilter<TInputImage1, TInputImage2, TOutputImage, TFunctor, TParentImageFilter>::PrintSelf(
  std::ostream & os,
  Indent         indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "TransferChunkBytes: " << m_TransferChunkBytes << std::endl;
  os << indent << "TransferStreams: " << m_TransferStreams << std::endl;
}
} // namespace itk

#endif
