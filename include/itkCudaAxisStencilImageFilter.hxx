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
#ifndef itkCudaAxisStencilImageFilter_hxx
#define itkCudaAxisStencilImageFilter_hxx

namespace itk
{
template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaAxisStencilImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GenerateData()
{
  Stencil stencil;
  bool    onGPU = false;
  if constexpr (GPUPixelType)
  {
    onGPU = this->GetStencil(stencil);
    const unsigned int components = stencil.Output == CudaStencilOutput::Gradient ? ImageDimension : 1;
    onGPU = onGPU && sizeof(OutputPixelType) == components * sizeof(OutputValueType) &&
            stencil.Boundary != CudaBoundary::Crop;
  }
  if (!onGPU)
  {
    CPUSuperclass::GenerateData();
    return;
  }
  m_Stencil = stencil;
  Superclass::GenerateData();
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaAxisStencilImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GPUGenerateData()
{
  if constexpr (GPUPixelType)
  {
    OutputImageType *      output = this->GetOutput();
    const InputImageType * input = this->GetInput();
    const auto &           outputRegion = output->GetBufferedRegion();
    const auto &           inputRegion = input->GetBufferedRegion();
    if (!CudaDetail::NeighborhoodOutputToCompute(inputRegion, outputRegion, this->GetNameOfClass()))
    {
      return;
    }
    CudaStencilGeometry geometry;
    geometry.Dimension = ImageDimension;
    for (unsigned int d = 0; d < ImageDimension; ++d)
    {
      geometry.InputSize[d] = inputRegion.GetSize(d);
      geometry.OutputSize[d] = outputRegion.GetSize(d);
      geometry.OutputStart[d] = static_cast<size_t>(outputRegion.GetIndex(d) - inputRegion.GetIndex(d));
    }
    const auto * in = static_cast<const InputPixelType *>(input->GetCudaDataManager()->GetConstGPUBufferPointer());
    auto * out = static_cast<OutputValueType *>(output->GetCudaDataManager()->GetGPUBufferPointerForOverwrite());
    CudaAxisStencilAsync(out,
                         in,
                         geometry,
                         m_Stencil.Weights,
                         m_Stencil.Output,
                         m_Stencil.Boundary,
                         m_Stencil.Constant,
                         this->GetCudaStream());
  }
  else
  {
    itkExceptionMacro("no GPU path for this pixel type"); // GenerateData() runs ITK's code instead
  }
}
} // namespace itk

#endif
