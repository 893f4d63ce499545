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

#include "itkCudaSeparableImageFilter.h"
#include "itkDiscreteGaussianImageFilter.h"

namespace itk
{
/** \class CudaDiscreteGaussianImageFilter
 * \brief ITK's DiscreteGaussianImageFilter on the GPU: the same parameters
 * (SetVariance(), SetMaximumError(), SetMaximumKernelWidth(),
 * SetUseImageSpacing(), SetFilterDimensionality(), the input and real
 * boundary conditions) and the same kernels, ITK's GaussianOperator per
 * axis, applied as ITK applies them.
 *
 * One pass per filtered axis, the last axis first as in ITK, the input
 * boundary condition for the first pass and the real one for the others,
 * run by CudaSeparableImageFilter: intermediate results are of the output's
 * pixel type, as ITK's are. Float and double images, kernels of at most 255
 * taps and the ZeroFluxNeumann (ITK's default), Constant and Periodic
 * conditions run on the GPU; otherwise ITK's code runs.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT CudaDiscreteGaussianImageFilter
  : public CudaSeparableImageFilter<TInputImage, TOutputImage, DiscreteGaussianImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaDiscreteGaussianImageFilter);

  using Self = CudaDiscreteGaussianImageFilter;
  using CPUSuperclass = DiscreteGaussianImageFilter<TInputImage, TOutputImage>;
  using Superclass = CudaSeparableImageFilter<TInputImage, TOutputImage, CPUSuperclass>;
  using GPUSuperclass = Superclass;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::Pass;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaDiscreteGaussianImageFilter, CudaSeparableImageFilter);

  static constexpr unsigned int ImageDimension = TOutputImage::ImageDimension;

  /** The 1-D kernels ITK's GenerateData() applies, in its order (the last
   * filtered axis first): each pass's axis, taps (2 radius + 1) and boundary. */
  std::vector<Pass>
  GetPasses() const override;

protected:
  CudaDiscreteGaussianImageFilter() = default;
  ~CudaDiscreteGaussianImageFilter() override = default;

  /** Whether the kernels take both boundary conditions. */
  bool
  GPUTakesSettings() const override;
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkCudaDiscreteGaussianImageFilter.hxx"
#endif

#endif
