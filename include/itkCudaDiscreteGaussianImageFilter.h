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
#ifndef itkCudaDiscreteGaussianImageFilter_h
#define itkCudaDiscreteGaussianImageFilter_h

#include "itkCudaImageToImageFilter.h"
#include "itkCudaSeparableConvolution.hcu"
#include "itkDiscreteGaussianImageFilter.h"

#include <type_traits>
#include <vector>

namespace itk
{
/** \class CudaDiscreteGaussianImageFilter
 * \brief ITK's DiscreteGaussianImageFilter on the GPU: the same parameters
 * (SetVariance(), SetMaximumError(), SetMaximumKernelWidth(),
 * SetUseImageSpacing(), SetFilterDimensionality(), the input and real
 * boundary conditions) and the same kernels, ITK's GaussianOperator per
 * axis, applied as ITK applies them.
 *
 * One pass per filtered axis, the last axis first as in ITK, each a 1-D
 * kernel over the input's buffered region (which GenerateInputRequestedRegion()
 * pads by the kernels' radii) with shared-memory tiles, sums in double, and
 * the boundary condition at the buffer's edges: ZeroFluxNeumann (ITK's
 * default), Constant or Periodic. Intermediate results are of the output's
 * pixel type, as ITK's are; the output's region is then copied out of the
 * last pass, all on the output's stream, no host round trip. Float and double
 * images (input and output of one pixel type) and kernels of at most 255 taps
 * run on the GPU; other pixel types, boundary conditions and wider kernels
 * run ITK's code, as does a run without a GPU or with GPUEnabled off.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT CudaDiscreteGaussianImageFilter
  : public CudaImageToImageFilter<TInputImage, TOutputImage, DiscreteGaussianImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaDiscreteGaussianImageFilter);

  using Self = CudaDiscreteGaussianImageFilter;
  using CPUSuperclass = DiscreteGaussianImageFilter<TInputImage, TOutputImage>;
  using Superclass = CudaImageToImageFilter<TInputImage, TOutputImage, CPUSuperclass>;
  using GPUSuperclass = Superclass;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaDiscreteGaussianImageFilter, CudaImageToImageFilter);

  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;
  using OutputPixelType = typename TOutputImage::PixelType;
  static constexpr unsigned int ImageDimension = TOutputImage::ImageDimension;

  /** Whether this pixel type runs on the GPU (float or double, in and out). */
  static constexpr bool GPUPixelType =
    std::is_same<typename TInputImage::PixelType, OutputPixelType>::value &&
    (std::is_same<OutputPixelType, float>::value || std::is_same<OutputPixelType, double>::value);

  /** The 1-D kernels ITK's GenerateData() applies, in its order (the last
   * filtered axis first): each pass's axis and taps (2 radius + 1). */
  struct Pass
  {
    unsigned int        Axis;
    std::vector<double> Weights;
  };
  std::vector<Pass>
  GetPasses() const;

protected:
  CudaDiscreteGaussianImageFilter() = default;
  ~CudaDiscreteGaussianImageFilter() override = default;

  /** ITK's code where the GPU path does not apply (see the class's doc). */
  void
  GenerateData() override;

  void
  GPUGenerateData() override;

  /** False: the passes are queued on GetCudaStream(). */
  bool
  GPUGenerateDataUsesLegacyStream() const override
  {
    return false;
  }

private:
  /** The boundary conditions as the kernels take them; false for another. */
  bool
  GetBoundaries(CudaBoundary & input, double & inputConstant, CudaBoundary & real, double & realConstant) const;
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkCudaDiscreteGaussianImageFilter.hxx"
#endif

#endif
