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
    using InputRegionType = typename InputImageType::RegionType;
    using OutputRegionType = typename OutputImageType::RegionType;
    const Stencil & stencil = m_Stencil;
    // One plane of halo; a periodic condition wraps around the whole image.
    CudaDetail::RunNeighborhoodSlabs(
      m_Splitter,
      input->GetCudaDataManager()->GetConstGPUBufferPointer(),
      inputRegion,
      sizeof(InputPixelType),
      output->GetCudaDataManager()->GetGPUBufferPointerForOverwrite(),
      outputRegion,
      sizeof(OutputPixelType),
      1,
      stencil.Boundary != CudaBoundary::Periodic,
      output->GetCudaDataManager()->GetDevice(),
      this->GetCudaStream(),
      [&stencil](const void *             in,
                 const InputRegionType &  slabInput,
                 void *                   out,
                 const OutputRegionType & slabOutput,
                 int,
                 cudaStream_t stream) {
        CudaStencilGeometry geometry;
        geometry.Dimension = ImageDimension;
        for (unsigned int d = 0; d < ImageDimension; ++d)
        {
          geometry.InputSize[d] = slabInput.GetSize(d);
          geometry.OutputSize[d] = slabOutput.GetSize(d);
          geometry.OutputStart[d] = static_cast<size_t>(slabOutput.GetIndex(d) - slabInput.GetIndex(d));
        }
        CudaAxisStencilAsync(static_cast<OutputValueType *>(out),
                             static_cast<const InputPixelType *>(in),
                             geometry,
                             stencil.Weights,
                             stencil.Output,
                             stencil.Boundary,
                             stencil.Constant,
                             stream);
      });
  }
  else
  {
    itkExceptionMacro("no GPU path for this pixel type"); // GenerateData() runs ITK's code instead
  }
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaAxisStencilImageFilter<TInputImage, TOutputImage, TParentImageFilter>::PrintSelf(std::ostream & os,
                                                                                     Indent         indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent;
  m_Splitter.Print(os);
  os << std::endl;
}
} // namespace itk

#endif
