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
#ifndef itkCudaShiftScaleImageFilter_hxx
#define itkCudaShiftScaleImageFilter_hxx

#include "itkCudaShiftScaleImage.hcu"

namespace itk
{
// [readme-snippet]
template <typename TImage>
void
CudaShiftScaleImageFilter<TImage>::GPUGenerateData()
{
  const ImageType * input = this->GetInput();
  ImageType *       output = this->GetOutput(); // allocated on the CPU by AllocateOutputs()
  if (input->GetBufferedRegion() != output->GetBufferedRegion())
  {
    itkExceptionMacro("the GPU path needs the input's buffered region to equal the output's; input: "
                      << input->GetBufferedRegion() << " output: " << output->GetBufferedRegion());
  }
  const size_t numberOfPixels = output->GetBufferedRegion().GetNumberOfPixels();
  if (numberOfPixels == 0)
  {
    return;
  }
  // Read-only input: uploaded if its GPU copy is stale, its CPU copy stays current.
  const auto * in = static_cast<const PixelType *>(input->GetCudaDataManager()->GetConstGPUBufferPointer());
  // Every output pixel is written: allocated on the device, nothing uploaded;
  // afterwards the GPU copy is the current one and the CPU copy stale.
  auto * out = static_cast<PixelType *>(output->GetCudaDataManager()->GetGPUBufferPointerForOverwrite());
  CudaShiftScaleImage<PixelType>(numberOfPixels, in, out, this->GetShift(), this->GetScale());
}
// [readme-snippet-end]
} // namespace itk

#endif
