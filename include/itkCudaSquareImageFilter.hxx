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
#ifndef itkCudaSquareImageFilter_hxx
#define itkCudaSquareImageFilter_hxx

#include "itkCudaSquareImage.hcu"

namespace itk
{
template <typename TImage>
template <typename TLaunch>
void
CudaSquareImageFilter<TImage>::LaunchOnOutputStream(const ImageType * input, ImageType * output, TLaunch && launch)
{
  const auto   inputManager = input->GetCudaDataManager();
  const auto   outputManager = output->GetCudaDataManager();
  const auto * in = static_cast<const PixelType *>(inputManager->GetConstGPUBufferPointer());
  auto *       out = static_cast<PixelType *>(outputManager->GetGPUBufferPointerForOverwrite());
  cudaStream_t stream = outputManager->GetStream();
  CudaStreamWaitFor(stream, inputManager->GetStream());
  launch(in, out, stream);
  CudaStreamWaitFor(inputManager->GetStream(), stream);
}

template <typename TImage>
void
CudaSquareImageFilter<TImage>::GPUGenerateData()
{
  const ImageType * input = this->GetInput();
  ImageType *       output = this->GetOutput();

  const auto & inputRegion = input->GetBufferedRegion();
  const auto & outputRegion = output->GetBufferedRegion();
  const size_t numberOfPixels = outputRegion.GetNumberOfPixels();
  if (numberOfPixels == 0)
  {
    return;
  }
  if (inputRegion != outputRegion)
  {
    // Streaming: the output is a piece of a larger input buffer.
    this->GenerateRegionOnGPU(input, output);
    return;
  }
  const int device = output->GetCudaDataManager()->GetDevice();
  this->LaunchOnOutputStream(input, output, [&](const PixelType * in, PixelType * out, cudaStream_t stream) {
    m_Splitter->Run(in, out, numberOfPixels, sizeof(PixelType), device, stream,
                    [](const void * pieceIn, void * pieceOut, size_t count, cudaStream_t pieceStream) {
                      CudaSquareImage<PixelType>(count, static_cast<const PixelType *>(pieceIn),
                                                 static_cast<PixelType *>(pieceOut), pieceStream);
                    });
  });
}

template <typename TImage>
void
CudaSquareImageFilter<TImage>::GenerateRegionOnGPU(const ImageType * input, ImageType * output)
{
  constexpr unsigned int Dimension = ImageType::ImageDimension;
  const auto &           inputRegion = input->GetBufferedRegion();
  const auto &           outputRegion = output->GetBufferedRegion();
  if (!inputRegion.IsInside(outputRegion))
  {
    itkExceptionMacro("the GPU path computes a region inside the input's buffered region; input buffered region: "
                      << inputRegion << " output region: " << outputRegion);
  }
  // The kernel takes a 3-D box; dimensions past the third are walked here,
  // one launch per 3-D slab of the output region.
  CudaRegionGeometry geometry{ { 1, 1, 1 }, { 0, 0, 0 }, { 1, 1, 1 } };
  size_t             inputSlab = 1;
  size_t             outputSlab = 1;
  for (unsigned int d = 0; d < Dimension && d < 3; ++d)
  {
    geometry.InputSize[d] = inputRegion.GetSize(d);
    geometry.Offset[d] = static_cast<size_t>(outputRegion.GetIndex(d) - inputRegion.GetIndex(d));
    geometry.OutputSize[d] = outputRegion.GetSize(d);
    inputSlab *= geometry.InputSize[d];
    outputSlab *= geometry.OutputSize[d];
  }
  const size_t slabs = outputRegion.GetNumberOfPixels() / outputSlab;
  this->LaunchOnOutputStream(input, output, [&](const PixelType * in, PixelType * out, cudaStream_t stream) {
    for (size_t slab = 0; slab < slabs; ++slab)
    {
      size_t rest = slab;
      size_t inputOffset = 0;
      size_t inputStride = inputSlab;
      for (unsigned int d = 3; d < Dimension; ++d)
      {
        const size_t index = rest % outputRegion.GetSize(d);
        rest /= outputRegion.GetSize(d);
        inputOffset += (index + static_cast<size_t>(outputRegion.GetIndex(d) - inputRegion.GetIndex(d))) * inputStride;
        inputStride *= inputRegion.GetSize(d);
      }
      CudaSquareImageRegion<PixelType>(in + inputOffset, geometry, out + slab * outputSlab, stream);
    }
  });
}

template <typename TImage>
void
CudaSquareImageFilter<TImage>::SetSplitDevices(const std::vector<int> & devices, const std::vector<double> & weights)
{
  if (m_Splitter->GetAllDevices() || devices != m_Splitter->GetDevices() || weights != m_Splitter->GetWeights())
  {
    m_Splitter->SetDevices(devices, weights);
    this->Modified();
  }
}

template <typename TImage>
void
CudaSquareImageFilter<TImage>::SetSplitAcrossAllDevices(bool all)
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

template <typename TImage>
void
CudaSquareImageFilter<TImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent;
  m_Splitter->Print(os);
  os << std::endl;
}
} // namespace itk

#endif
