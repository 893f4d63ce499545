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
#ifndef itkCudaGradientMagnitudeImageFilter_h
#define itkCudaGradientMagnitudeImageFilter_h

#include "itkCudaAxisStencilImageFilter.h"
#include "itkDerivativeOperator.h"
#include "itkGradientMagnitudeImageFilter.h"

namespace itk
{
/** \class CudaGradientMagnitudeImageFilter
 * \brief ITK's GradientMagnitudeImageFilter on the GPU: the magnitude of the
 * central-difference gradient, each derivative divided by the spacing along
 * its axis (UseImageSpacing, on by default), the image's edges extended by
 * their nearest pixel. ITK's results to the bit for float and double images
 * (see CudaAxisStencilImageFilter); other pixel types run ITK's code.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT CudaGradientMagnitudeImageFilter
  : public CudaAxisStencilImageFilter<TInputImage,
                                      TOutputImage,
                                      GradientMagnitudeImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaGradientMagnitudeImageFilter);

  using Self = CudaGradientMagnitudeImageFilter;
  using CPUSuperclass = GradientMagnitudeImageFilter<TInputImage, TOutputImage>;
  using Superclass = CudaAxisStencilImageFilter<TInputImage, TOutputImage, CPUSuperclass>;
  using GPUSuperclass = Superclass;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::Stencil;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaGradientMagnitudeImageFilter, CudaAxisStencilImageFilter);

  bool
  GetStencil(Stencil & stencil) const override
  {
    // ITK's operators: order 1, in the input's real type, scaled by 1 / spacing.
    using RealType = typename CPUSuperclass::RealType;
    stencil.Output = CudaStencilOutput::GradientMagnitude;
    for (unsigned int a = 0; a < Superclass::ImageDimension; ++a)
    {
      DerivativeOperator<RealType, Superclass::ImageDimension> op;
      op.CreateDirectional();
      if (this->GetUseImageSpacing())
      {
        const double spacing = this->GetInput()->GetSpacing()[a];
        if (spacing == 0.0)
        {
          itkExceptionMacro("Image spacing cannot be zero.");
        }
        op.ScaleCoefficients(1.0 / spacing);
      }
      stencil.Weights.Minus[a] = static_cast<double>(op[0]);
      stencil.Weights.Center[a] = static_cast<double>(op[1]);
      stencil.Weights.Plus[a] = static_cast<double>(op[2]);
    }
    return true;
  }

protected:
  CudaGradientMagnitudeImageFilter() = default;
  ~CudaGradientMagnitudeImageFilter() override = default;
};
} // namespace itk

#endif
