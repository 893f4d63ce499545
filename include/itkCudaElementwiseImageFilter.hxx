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
#ifndef itkCudaElementwiseImageFilter_hxx
#define itkCudaElementwiseImageFilter_hxx

namespace itk
{
template <unsigned int VDimension, typename TFunction>
void
CudaForEachRegionSlab(const ImageRegion<VDimension> & inputRegion,
                      const ImageRegion<VDimension> & outputRegion,
                      TFunction &&                    function)
{
  if (!inputRegion.IsInside(outputRegion))
  {
    itkGenericExceptionMacro("expected a region inside the input's buffered region " << inputRegion << ", got "
                                                                                      << outputRegion);
  }
  CudaRegionGeometry geometry{ { 1, 1, 1 }, { 0, 0, 0 }, { 1, 1, 1 } };
  size_t             inputSlab = 1;
  size_t             outputSlab = 1;
  for (unsigned int d = 0; d < VDimension && d < 3; ++d)
  {
    geometry.InputSize[d] = inputRegion.GetSize(d);
    geometry.Offset[d] = static_cast<size_t>(outputRegion.GetIndex(d) - inputRegion.GetIndex(d));
    geometry.OutputSize[d] = outputRegion.GetSize(d);
    inputSlab *= geometry.InputSize[d];
    outputSlab *= geometry.OutputSize[d];
  }
  if (outputSlab == 0)
  {
    return;
  }
  // Dimensions past the third are walked here, slab by slab.
  const size_t slabs = outputRegion.GetNumberOfPixels() / outputSlab;
  for (size_t slab = 0; slab < slabs; ++slab)
  {
    size_t rest = slab;
    size_t inputOffset = 0;
    size_t inputStride = inputSlab;
    for (unsigned int d = 3; d < VDimension; ++d)
    {
      const size_t index = rest % outputRegion.GetSize(d);
      rest /= outputRegion.GetSize(d);
      inputOffset += (index + static_cast<size_t>(outputRegion.GetIndex(d) - inputRegion.GetIndex(d))) * inputStride;
      inputStride *= inputRegion.GetSize(d);
    }
    function(inputOffset, slab * outputSlab, static_cast<const CudaRegionGeometry &>(geometry));
  }
}

namespace CudaDetail
{
/** The device pixels of `input` in `region`, ready on `stream`: its own
 * buffer when it holds `region` alone, else a compact copy queued on
 * `stream` into `scratch` (kept alive by the caller until the kernel is
 * queued; freed in the stream's order). */
template <unsigned int VDimension>
const void *
ElementwiseInputPixels(const CudaElementwiseInput<VDimension> & input,
                       const ImageRegion<VDimension> &          region,
                       int                                      device,
                       cudaStream_t                             stream,
                       GPUMemPointer::Pointer &                 scratch)
{
  const auto * pixels = static_cast<const char *>(input.Manager->GetConstGPUBufferPointer());
  if (input.BufferedRegion == region)
  {
    return pixels;
  }
  scratch = GPUMemPointer::New();
  scratch->Allocate(region.GetNumberOfPixels() * input.PixelBytes, device, stream);
  auto * compact = static_cast<char *>(scratch->GetPointer());
  CudaForEachRegionSlab(input.BufferedRegion, region,
                        [&](size_t inputOffset, size_t outputOffset, const CudaRegionGeometry & geometry) {
                          CudaCopyRegionAsync(compact + outputOffset * input.PixelBytes,
                                              pixels + inputOffset * input.PixelBytes,
                                              geometry,
                                              input.PixelBytes,
                                              stream);
                        });
  return compact;
}
} // namespace CudaDetail

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
auto
CudaElementwiseImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GetElementwiseInputs() const
  -> std::vector<ElementwiseInput>
{
  const auto * input = dynamic_cast<const InputImageType *>(this->ProcessObject::GetInput(0));
  if (input == nullptr)
  {
    itkExceptionMacro("expected an image of the filter's input type as input 0, got "
                      << (this->ProcessObject::GetInput(0) == nullptr ? "none"
                                                                      : this->ProcessObject::GetInput(0)->GetNameOfClass()));
  }
  return { ElementwiseInput{ input->GetCudaDataManager(), input->GetBufferedRegion(), sizeof(InputPixelType) } };
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaElementwiseImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GPUGenerateData()
{
  OutputImageType * output = this->GetOutput();
  const auto &      outputRegion = output->GetBufferedRegion();
  const size_t      numberOfPixels = outputRegion.GetNumberOfPixels();
  if (numberOfPixels == 0)
  {
    return;
  }
  const std::vector<ElementwiseInput> inputs = this->GetElementwiseInputs();
  bool                                anImage = false;
  bool                                sameRegions = true;
  for (const auto & input : inputs)
  {
    anImage = anImage || input.Manager != nullptr;
    sameRegions = sameRegions && (input.Manager == nullptr || input.BufferedRegion == outputRegion);
  }
  if (!anImage)
  {
    itkExceptionMacro("expected at least one image input, got " << inputs.size() << " constant(s)");
  }
  const bool split = !m_Splitter->GetDevices().empty() || m_Splitter->GetAllDevices();
  if (sameRegions && !split && this->GPUStreamFromHost(inputs))
  {
    return;
  }
  CudaDataManager * outputManager = output->GetCudaDataManager();
  const int         device = outputManager->GetDevice();
  cudaStream_t      stream = this->GetCudaStream();
  // The inputs' pointers first: in place, the first input's buffer is the
  // output's, which its data must reach before the output claims it.
  for (const auto & input : inputs)
  {
    if (input.Manager != nullptr && input.Manager->GetDevice() != device)
    {
      input.Manager->SetDevice(device); // a device-to-device move
    }
  }
  if (inputs.size() == 1 && !sameRegions)
  {
    // One input, a piece of its buffer: its box read slab by slab.
    const auto * in = static_cast<const InputPixelType *>(inputs[0].Manager->GetConstGPUBufferPointer());
    auto *       out = static_cast<OutputPixelType *>(outputManager->GetGPUBufferPointerForOverwrite());
    CudaForEachRegionSlab(inputs[0].BufferedRegion, outputRegion,
                          [&](size_t inputOffset, size_t outputOffset, const CudaRegionGeometry & geometry) {
                            this->GPUComputeRegion(in + inputOffset, geometry, out + outputOffset, stream);
                          });
    return;
  }
  std::vector<GPUMemPointer::Pointer> scratch(inputs.size());
  std::vector<const void *>           in(inputs.size(), nullptr);
  for (size_t k = 0; k < inputs.size(); ++k)
  {
    if (inputs[k].Manager != nullptr)
    {
      in[k] = CudaDetail::ElementwiseInputPixels(inputs[k], outputRegion, device, stream, scratch[k]);
    }
  }
  void * out = outputManager->GetGPUBufferPointerForOverwrite();
  if (!split)
  {
    this->GPUComputeInputs(in.data(), out, numberOfPixels, stream);
    return;
  }
  std::vector<CudaDeviceSplitter::Input> pieces;
  for (size_t k = 0; k < inputs.size(); ++k)
  {
    pieces.push_back({ in[k], inputs[k].PixelBytes });
  }
  m_Splitter->Run(pieces, out, sizeof(OutputPixelType), numberOfPixels, device, stream,
                  [this](const void * const * pieceIn, void * pieceOut, size_t count, cudaStream_t pieceStream) {
                    this->GPUComputeInputs(pieceIn, pieceOut, count, pieceStream);
                  });
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
bool
CudaElementwiseImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GPUStreamFromHost(
  const std::vector<ElementwiseInput> & inputs)
{
  // The streamed transform takes the image inputs alone; the constants are
  // put back in their places for GPUComputeInputs().
  std::vector<CudaStreamedImage> images;
  for (const auto & input : inputs)
  {
    if (input.Manager != nullptr)
    {
      images.push_back({ input.Manager, input.PixelBytes });
    }
  }
  return this->GPUStreamImagesFromHost(
    images,
    [this, &inputs](const void * const * imagesIn, void * out, size_t count, cudaStream_t chunkStream) {
      std::vector<const void *> in(inputs.size(), nullptr);
      for (size_t k = 0, image = 0; k < inputs.size(); ++k)
      {
        in[k] = inputs[k].Manager != nullptr ? imagesIn[image++] : nullptr;
      }
      this->GPUComputeInputs(in.data(), out, count, chunkStream);
    },
    { m_TransferChunkBytes, m_TransferStreams });
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaElementwiseImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GPUComputeInputs(const void * const * in,
                                                                                            void *               out,
                                                                                            size_t       count,
                                                                                            cudaStream_t stream)
{
  this->GPUComputeElements(static_cast<const InputPixelType *>(in[0]), static_cast<OutputPixelType *>(out), count,
                           stream);
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaElementwiseImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GPUComputeElements(const InputPixelType *,
                                                                                              OutputPixelType *,
                                                                                              size_t,
                                                                                              cudaStream_t)
{
  itkExceptionMacro(<< this->GetNameOfClass()
                    << " computes no pixels: an element-wise filter overrides GPUComputeElements() (one input) or "
                       "GPUComputeInputs()");
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaElementwiseImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GPUComputeRegion(
  const InputPixelType *     in,
  const CudaRegionGeometry & geometry,
  OutputPixelType *          out,
  cudaStream_t               stream)
{
  const size_t count = geometry.OutputSize[0] * geometry.OutputSize[1] * geometry.OutputSize[2];
  int          device = -1;
  CUDA_CHECK(cudaGetDevice(&device));
  auto scratch = GPUMemPointer::New(); // freed in the stream's order
  scratch->Allocate(count * sizeof(InputPixelType), device, stream);
  auto * compact = static_cast<InputPixelType *>(scratch->GetPointer());
  CudaCopyRegionAsync(compact, in, geometry, sizeof(InputPixelType), stream);
  this->GPUComputeElements(compact, out, count, stream);
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaElementwiseImageFilter<TInputImage, TOutputImage, TParentImageFilter>::SetSplitDevices(
  const std::vector<int> &    devices,
  const std::vector<double> & weights)
{
  if (m_Splitter->GetAllDevices() || devices != m_Splitter->GetDevices() || weights != m_Splitter->GetWeights())
  {
    m_Splitter->SetDevices(devices, weights);
    this->Modified();
  }
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaElementwiseImageFilter<TInputImage, TOutputImage, TParentImageFilter>::SetSplitAcrossAllDevices(bool all)
{
  if (all != m_Splitter->GetAllDevices())
  {
    if (all)
    {
      m_Splitter->SetAllDevices();
    }
    else
    {
      m_Splitter->SetDevices({});
    }
    this->Modified();
  }
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaElementwiseImageFilter<TInputImage, TOutputImage, TParentImageFilter>::PrintSelf(std::ostream & os,
                                                                                     Indent         indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "TransferChunkBytes: " << m_TransferChunkBytes << std::endl;
  os << indent << "TransferStreams: " << m_TransferStreams << std::endl;
  os << indent;
  m_Splitter->Print(os);
  os << std::endl;
}
} // namespace itk

#endif
