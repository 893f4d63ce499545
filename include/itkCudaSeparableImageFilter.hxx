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
#ifndef itkCudaSeparableImageFilter_hxx
#define itkCudaSeparableImageFilter_hxx

#include "itkConstantBoundaryCondition.h"
#include "itkCudaMirrorBoundaryCondition.h"
#include "itkCudaRegionCopy.h"
#include "itkPeriodicBoundaryCondition.h"
#include "itkZeroFluxNeumannBoundaryCondition.h"

#include <algorithm>

namespace itk
{
namespace CudaDetail
{
template <typename TImage>
bool
KernelBoundary(const ImageBoundaryCondition<TImage> * condition, CudaBoundary & boundary, double & constant)
{
  constant = 0.0;
  if (dynamic_cast<const ZeroFluxNeumannBoundaryCondition<TImage> *>(condition) != nullptr)
  {
    boundary = CudaBoundary::ZeroFluxNeumann;
    return true;
  }
  if (const auto * fixed = dynamic_cast<const ConstantBoundaryCondition<TImage> *>(condition))
  {
    boundary = CudaBoundary::Constant;
    constant = static_cast<double>(fixed->GetConstant());
    return true;
  }
  if (dynamic_cast<const PeriodicBoundaryCondition<TImage> *>(condition) != nullptr)
  {
    boundary = CudaBoundary::Periodic;
    return true;
  }
  if (dynamic_cast<const CudaMirrorBoundaryCondition<TImage> *>(condition) != nullptr)
  {
    boundary = CudaBoundary::Mirror;
    return true;
  }
  return false;
}

template <typename TPass, typename TRegion>
bool
BoxOfPasses(const std::vector<TPass> & passes,
            const TRegion &            inputRegion,
            const TRegion &            outputRegion,
            CudaBoxGeometry &          geometry,
            double &                   scale,
            CudaBoundary &             boundary,
            double &                   constant)
{
  if constexpr (TRegion::ImageDimension != 3)
  {
    return false;
  }
  else
  {
    if (passes.empty())
    {
      return false;
    }
    geometry = CudaBoxGeometry{};
    scale = 1.0;
    boundary = passes.front().Boundary;
    constant = passes.front().Constant;
    bool seen[3] = { false, false, false };
    for (const TPass & pass : passes)
    {
      const std::vector<double> & w = pass.Weights;
      if (pass.Axis >= 3 || seen[pass.Axis] || w.empty() || pass.Boundary != boundary ||
          pass.Constant != constant ||
          std::any_of(w.begin(), w.end(), [&w](double weight) { return weight != w.front(); }))
      {
        return false;
      }
      seen[pass.Axis] = true;
      geometry.Radius[pass.Axis] = static_cast<unsigned int>(w.size() / 2);
      scale *= w.front();
    }
    for (unsigned int d = 0; d < 3; ++d)
    {
      geometry.InputSize[d] = inputRegion.GetSize(d);
      geometry.OutputSize[d] = outputRegion.GetSize(d);
      geometry.Offset[d] = static_cast<size_t>(outputRegion.GetIndex(d) - inputRegion.GetIndex(d));
    }
    return true;
  }
}

template <typename TInputRegion, typename TOutputRegion>
bool
NeighborhoodOutputToCompute(const TInputRegion & inputRegion, const TOutputRegion & outputRegion, const char * filter)
{
  if (outputRegion.GetNumberOfPixels() == 0)
  {
    return false;
  }
  if (!inputRegion.IsInside(outputRegion))
  {
    itkGenericExceptionMacro(<< filter << ": the input's buffered region " << inputRegion
                             << " lacks the output's region " << outputRegion);
  }
  return true;
}

template <typename TInputRegion, typename TOutputRegion, typename TCompute>
void
RunNeighborhoodSlabs(CudaSlabSplitter &    splitter,
                     const void *          in,
                     const TInputRegion &  inputRegion,
                     size_t                inputPixelBytes,
                     void *                out,
                     const TOutputRegion & outputRegion,
                     size_t                outputPixelBytes,
                     size_t                halo,
                     bool                  mayCut,
                     int                   device,
                     cudaStream_t          stream,
                     const TCompute &      compute)
{
  constexpr unsigned int   last = TOutputRegion::ImageDimension - 1;
  CudaSlabSplitter::Geometry geometry;
  geometry.InputPlanes = inputRegion.GetSize(last);
  geometry.InputPlaneBytes = inputRegion.GetNumberOfPixels() / geometry.InputPlanes * inputPixelBytes;
  geometry.OutputPlanes = outputRegion.GetSize(last);
  geometry.OutputPlaneBytes = outputRegion.GetNumberOfPixels() / geometry.OutputPlanes * outputPixelBytes;
  geometry.OutputOffset = static_cast<size_t>(outputRegion.GetIndex(last) - inputRegion.GetIndex(last));
  geometry.Halo = halo;
  geometry.MayCut = mayCut;
  splitter.Run(in,
               out,
               geometry,
               device,
               stream,
               [&](const void * slabIn,
                   size_t       inputFirst,
                   size_t       inputCount,
                   void *       slabOut,
                   size_t       outputFirst,
                   size_t       outputCount,
                   int          slabDevice,
                   cudaStream_t slabStream) {
                 TInputRegion slabInput = inputRegion;
                 slabInput.SetIndex(last, inputRegion.GetIndex(last) + static_cast<IndexValueType>(inputFirst));
                 slabInput.SetSize(last, inputCount);
                 TOutputRegion slabOutput = outputRegion;
                 slabOutput.SetIndex(last, outputRegion.GetIndex(last) + static_cast<IndexValueType>(outputFirst));
                 slabOutput.SetSize(last, outputCount);
                 compute(slabIn, slabInput, slabOut, slabOutput, slabDevice, slabStream);
               });
}
} // namespace CudaDetail

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaSeparableImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GenerateData()
{
  bool onGPU = GPUPixelType && this->GPUTakesSettings();
  std::vector<Pass> passes;
  if (onGPU)
  {
    passes = this->GetPasses();
    for (const Pass & pass : passes)
    {
      onGPU = onGPU && pass.Weights.size() <= CudaMaximumConvolutionTaps;
    }
  }
  if (!onGPU)
  {
    CPUSuperclass::GenerateData();
    return;
  }
  // GPUGenerateData() runs the passes stated once here.
  m_Passes = std::move(passes);
  struct ClearPasses
  {
    std::vector<Pass> & Passes;
    ~ClearPasses() { Passes.clear(); }
  } const clearPasses{ m_Passes };
  Superclass::GenerateData();
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaSeparableImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GPUGenerateData()
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
    // Slabs along the last axis read its passes' radii beyond them; a
    // periodic pass along it wraps around the whole image.
    size_t halo = 0;
    bool   mayCut = true;
    for (const Pass & pass : m_Passes)
    {
      if (pass.Axis == ImageDimension - 1)
      {
        halo += pass.Weights.size() / 2;
        mayCut = mayCut && pass.Boundary != CudaBoundary::Periodic;
      }
    }
    CudaDetail::RunNeighborhoodSlabs(
      m_Splitter,
      input->GetCudaDataManager()->GetConstGPUBufferPointer(),
      inputRegion,
      sizeof(OutputPixelType),
      output->GetCudaDataManager()->GetGPUBufferPointerForOverwrite(),
      outputRegion,
      sizeof(OutputPixelType),
      halo,
      mayCut,
      output->GetCudaDataManager()->GetDevice(),
      this->GetCudaStream(),
      [this](const void *             in,
             const InputRegionType &  slabInput,
             void *                   out,
             const OutputRegionType & slabOutput,
             int                      device,
             cudaStream_t             stream) { this->GPUGenerateSlab(in, slabInput, out, slabOutput, device, stream); });
  }
  else
  {
    itkExceptionMacro("no GPU path for this pixel type"); // GenerateData() runs ITK's code instead
  }
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaSeparableImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GPUGenerateSlab(
  const void *             input,
  const InputRegionType &  inputRegion,
  void *                   output,
  const OutputRegionType & outputRegion,
  int                      device,
  cudaStream_t             stream) const
{
  if constexpr (GPUPixelType)
  {
    using PixelType = OutputPixelType;
    const std::vector<Pass> & passes = m_Passes;
    const auto *              in = static_cast<const PixelType *>(input);
    auto *                    out = static_cast<PixelType *>(output);
    const bool                sameRegion = inputRegion == outputRegion;
    const size_t              count = inputRegion.GetNumberOfPixels();

    // A box over the three axes: one kernel, the output's region only.
    CudaBoxGeometry box;
    double          scale = 1.0;
    CudaBoundary    boundary = CudaBoundary::ZeroFluxNeumann;
    double          constant = 0.0;
    if (CudaDetail::BoxOfPasses(passes, inputRegion, outputRegion, box, scale, boundary, constant) &&
        CudaBoxFilterUnrolledRadius(box) > 0)
    {
      CudaBoxFilterAsync(out, in, box, scale, boundary, constant, stream);
      return;
    }

    // Ping-pong buffers of the input's region, freed in the stream's order;
    // the last pass writes the output itself when the regions are one.
    GPUMemPointer::Pointer scratch[2];
    const PixelType *      from = in;
    for (size_t p = 0; p < passes.size(); ++p)
    {
      const Pass & pass = passes[p];
      if (pass.Axis >= ImageDimension)
      {
        itkExceptionMacro("a pass along axis " << pass.Axis << " of a " << ImageDimension << "-D image");
      }
      PixelType * to = out;
      if (!(sameRegion && p + 1 == passes.size()))
      {
        auto & buffer = scratch[p % 2];
        if (buffer.IsNull())
        {
          buffer = GPUMemPointer::New();
          buffer->Allocate(count * sizeof(PixelType), device, stream);
        }
        to = static_cast<PixelType *>(buffer->GetPointer());
      }
      CudaConvolutionAxis axis{ 1, inputRegion.GetSize(pass.Axis), 1 };
      for (unsigned int d = 0; d < ImageDimension; ++d)
      {
        if (d < pass.Axis)
        {
          axis.Inner *= inputRegion.GetSize(d);
        }
        else if (d > pass.Axis)
        {
          axis.Outer *= inputRegion.GetSize(d);
        }
      }
      CudaConvolveAxisAsync(to,
                            from,
                            axis,
                            pass.Weights.data(),
                            static_cast<unsigned int>(pass.Weights.size()),
                            pass.Boundary,
                            pass.Constant,
                            stream);
      from = to;
    }
    if (from != out)
    {
      // No pass, or the input's region padded around the output's.
      CudaCopyImageBoxAsync(
        out, outputRegion, outputRegion, from, inputRegion, outputRegion.GetIndex(), sizeof(PixelType), stream);
    }
  }
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaSeparableImageFilter<TInputImage, TOutputImage, TParentImageFilter>::PrintSelf(std::ostream & os,
                                                                                   Indent         indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent;
  m_Splitter.Print(os);
  os << std::endl;
}
} // namespace itk

#endif
