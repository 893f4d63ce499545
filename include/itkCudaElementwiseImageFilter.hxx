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

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaElementwiseImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GPUGenerateData()
{
  const InputImageType * input = this->GetInput();
  OutputImageType *      output = this->GetOutput();
  const auto &           inputRegion = input->GetBufferedRegion();
  const auto &           outputRegion = output->GetBufferedRegion();
  const size_t           numberOfPixels = outputRegion.GetNumberOfPixels();
  if (numberOfPixels == 0)
  {
    return;
  }
  if (inputRegion == outputRegion && m_Splitter->GetDevices().empty() && !m_Splitter->GetAllDevices() &&
      this->GPUStreamFromHost())
  {
    return;
  }
  // The input's pointer first: in place, both are one buffer, which the
  // input's data must reach before the output claims it.
  const auto * in = static_cast<const InputPixelType *>(input->GetCudaDataManager()->GetConstGPUBufferPointer());
  auto *       out = static_cast<OutputPixelType *>(output->GetCudaDataManager()->GetGPUBufferPointerForOverwrite());
  cudaStream_t stream = this->GetCudaStream();
  if (inputRegion != outputRegion)
  {
    CudaForEachRegionSlab(inputRegion, outputRegion,
                          [&](size_t inputOffset, size_t outputOffset, const CudaRegionGeometry & geometry) {
                            this->GPUComputeRegion(in + inputOffset, geometry, out + outputOffset, stream);
                          });
    return;
  }
  if (m_Splitter->GetDevices().empty() && !m_Splitter->GetAllDevices())
  {
    this->GPUComputeElements(in, out, numberOfPixels, stream);
    return;
  }
  if (sizeof(InputPixelType) != sizeof(OutputPixelType))
  {
    itkExceptionMacro("splitting across devices needs input and output pixels of one size; got "
                      << sizeof(InputPixelType) << " and " << sizeof(OutputPixelType) << " bytes");
  }
  m_Splitter->Run(in, out, numberOfPixels, sizeof(OutputPixelType), output->GetCudaDataManager()->GetDevice(), stream,
                  [this](const void * pieceIn, void * pieceOut, size_t count, cudaStream_t pieceStream) {
                    this->GPUComputeElements(static_cast<const InputPixelType *>(pieceIn),
                                             static_cast<OutputPixelType *>(pieceOut), count, pieceStream);
                  });
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
bool
CudaElementwiseImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GPUStreamFromHost()
{
  return this->GPUStreamImagesFromHost(
    { { this->GetInput()->GetCudaDataManager(), sizeof(InputPixelType) } },
    [this](const void * const * in, void * out, size_t count, cudaStream_t chunkStream) {
      this->GPUComputeElements(
        static_cast<const InputPixelType *>(in[0]), static_cast<OutputPixelType *>(out), count, chunkStream);
    },
    { m_TransferChunkBytes, m_TransferStreams });
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
