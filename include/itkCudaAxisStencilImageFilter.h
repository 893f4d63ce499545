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
#ifndef itkCudaAxisStencilImageFilter_h
#define itkCudaAxisStencilImageFilter_h

#include "itkCudaAxisStencil.hcu"
#include "itkCudaImageToImageFilter.h"
#include "itkCudaSeparableImageFilter.h" // CudaDetail::NeighborhoodOutputToCompute, KernelBoundary
#include "itkNumericTraits.h"

#include <type_traits>

namespace itk
{
/** \class CudaAxisStencilImageFilter
 * \brief The base of CUDA filters whose output at a pixel is computed from
 * the pixel and its two neighbours along each axis (ITK's first-derivative
 * and Laplacian operators): a subclass of the ITK filter it stands for
 * (TParentImageFilter) states its stencil in GetStencil(), and this class
 * evaluates it on the GPU.
 *
 * The stencil reads the input's buffered region (which the ITK parent's
 * GenerateInputRequestedRegion() pads by one pixel) and applies its boundary
 * condition at the buffer's edges, as ITK's neighborhood iterators do; it
 * writes the output's region on the output's stream, one read of the input
 * and one write of the output from device memory. Products and sums are
 * rounded as ITK's code rounds them, so results are ITK's to the bit (see
 * CudaStencilOutput). Float and double images of 1 to 4 dimensions run on the
 * GPU (the output's pixel of one value, or of one per axis for
 * CudaStencilOutput::Gradient); other pixel types, settings GetStencil()
 * declines, no GPU, or GPUEnabled off run the ITK parent's code.
 *
 * SetSplitDevices() or SetSplitAcrossAllDevices() shares the work between
 * devices as for CudaSeparableImageFilter: slabs of the last axis, each read
 * with one plane of halo on both sides; a periodic condition keeps the whole
 * image on the input's device.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
class ITK_TEMPLATE_EXPORT CudaAxisStencilImageFilter
  : public CudaImageToImageFilter<TInputImage, TOutputImage, TParentImageFilter>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaAxisStencilImageFilter);

  using Self = CudaAxisStencilImageFilter;
  using CPUSuperclass = TParentImageFilter;
  using Superclass = CudaImageToImageFilter<TInputImage, TOutputImage, TParentImageFilter>;
  using GPUSuperclass = Superclass;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkCudaTypeMacro(CudaAxisStencilImageFilter, CudaImageToImageFilter);

  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;
  using InputPixelType = typename TInputImage::PixelType;
  using OutputPixelType = typename TOutputImage::PixelType;
  using OutputValueType = typename NumericTraits<OutputPixelType>::ValueType;
  static constexpr unsigned int ImageDimension = TOutputImage::ImageDimension;

  /** Whether these pixel types run on the GPU. */
  static constexpr bool GPUPixelType =
    (std::is_same<InputPixelType, float>::value || std::is_same<InputPixelType, double>::value) &&
    (std::is_same<OutputValueType, float>::value || std::is_same<OutputValueType, double>::value) &&
    ImageDimension <= CudaMaximumStencilDimension && sizeof(OutputPixelType) % sizeof(OutputValueType) == 0;

  /** A stencil: what it computes, its weights, and what it reads past the
   * buffer's edges (Constant for CudaBoundary::Constant). */
  struct Stencil
  {
    CudaStencilOutput  Output = CudaStencilOutput::GradientMagnitude;
    CudaStencilWeights Weights;
    CudaBoundary       Boundary = CudaBoundary::ZeroFluxNeumann;
    double             Constant = 0.0;
  };

  /** The filter's stencil for its current settings and input, in `stencil`;
   * false where the GPU path does not take the settings (ITK's code runs).
   * \throws itk::ExceptionObject where ITK's filter throws (e.g. a spacing of
   * zero). */
  virtual bool
  GetStencil(Stencil & stencil) const = 0;

  /** Sharing the work between devices (see the class's doc):
   * SetSplitDevices(), SplitAcrossAllDevicesOn(), GetSlabSplitter(), ... */
  itkCudaSlabSplitSettingsMacro(m_Splitter);

protected:
  CudaAxisStencilImageFilter() = default;
  ~CudaAxisStencilImageFilter() override = default;

  /** The GPU path where it applies (see the class's doc), else ITK's code. */
  void
  GenerateData() override;

  void
  GPUGenerateData() override;

  /** False: the stencil is queued on GetCudaStream(). */
  bool
  GPUGenerateDataUsesLegacyStream() const override
  {
    return false;
  }

  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  Stencil          m_Stencil; // GenerateData()'s, for GPUGenerateData()
  CudaSlabSplitter m_Splitter;
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkCudaAxisStencilImageFilter.hxx"
#endif

#endif
