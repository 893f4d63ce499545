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
  // Input first: when running in place, both are the same buffer and the
  // input's data must reach the device before the output claims it.
  const auto   inputManager = input->GetCudaDataManager();
  const auto   outputManager = output->GetCudaDataManager();
  const auto * in = static_cast<const PixelType *>(inputManager->GetConstGPUBufferPointer());
  auto *       out = static_cast<PixelType *>(outputManager->GetGPUBufferPointerForOverwrite());
  // On the output's stream, after the input's copies; and later work on the
  // input (a new upload, say) after this kernel has read it.
  cudaStream_t stream = outputManager->GetStream();
  CudaStreamWaitFor(stream, inputManager->GetStream());
  CudaSquareImage<PixelType>(numberOfPixels, in, out, stream);
  CudaStreamWaitFor(inputManager->GetStream(), stream);
}
template <typename TImage>
void
CudaSquareImageFilter<TImage>::GenerateRegionOnGPU(const ImageType * input, ImageType * output)
{
  const auto & inputRegion = input->GetBufferedRegion();
  const auto & outputRegion = output->GetBufferedRegion();
  if (ImageType::ImageDimension > 3 || !inputRegion.IsInside(outputRegion))
  {
    itkExceptionMacro("the GPU path computes a region inside the input's buffered region for images of up to 3 "
                      "dimensions; input buffered region: "
                      << inputRegion << " output region: " << outputRegion);
  }
  CudaRegionGeometry geometry{ { 1, 1, 1 }, { 0, 0, 0 }, { 1, 1, 1 } };
  for (unsigned int d = 0; d < ImageType::ImageDimension && d < 3; ++d)
  {
    geometry.InputSize[d] = inputRegion.GetSize(d);
    geometry.Offset[d] = static_cast<size_t>(outputRegion.GetIndex(d) - inputRegion.GetIndex(d));
    geometry.OutputSize[d] = outputRegion.GetSize(d);
  }
  const auto   inputManager = input->GetCudaDataManager();
  const auto   outputManager = output->GetCudaDataManager();
  const auto * in = static_cast<const PixelType *>(inputManager->GetConstGPUBufferPointer());
  auto *       out = static_cast<PixelType *>(outputManager->GetGPUBufferPointerForOverwrite());
  cudaStream_t stream = outputManager->GetStream();
  CudaStreamWaitFor(stream, inputManager->GetStream());
  CudaSquareImageRegion<PixelType>(in, geometry, out, stream);
  CudaStreamWaitFor(inputManager->GetStream(), stream);
}
} // namespace itk

#endif
