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
#ifndef itkCudaGradientImageFilter_h
#define itkCudaGradientImageFilter_h

#include "itkCovariantVector.h"
#include "itkCudaAxisStencilImageFilter.h"
#include "itkCudaImage.h"
#include "itkCudaSeparableImageFilter.h" // CudaDetail::KernelBoundary
#include "itkDerivativeOperator.h"
#include "itkGradientImageFilter.h"

#include <sstream>
#include <string>

namespace itk
{
/** \class CudaGradientImageFilter
 * \brief ITK's GradientImageFilter on the GPU: the central-difference
 * gradient, a CovariantVector per pixel (each derivative divided by the
 * spacing with UseImageSpacing, rotated to physical space by the image's
 * direction with UseImageDirection; both on by default), with ITK's
 * ZeroFluxNeumann, Constant or Periodic boundary condition
 * (OverrideBoundaryCondition()). ITK's results to the bit for float and double
 * images (see CudaAxisStencilImageFilter); other pixel types, other boundary
 * conditions, and a condition set through a pointer to ITK's class (whose
 * OverrideBoundaryCondition() is not virtual) run ITK's code.
 * \ingroup CudaCommon
 */
template <typename TInputImage,
          typename TOperatorValueType = float,
          typename TOutputValueType = float,
          typename TOutputImageType =
            CudaImage<CovariantVector<TOutputValueType, TInputImage::ImageDimension>, TInputImage::ImageDimension>>
class ITK_TEMPLATE_EXPORT CudaGradientImageFilter
  : public CudaAxisStencilImageFilter<
      TInputImage,
      TOutputImageType,
      GradientImageFilter<TInputImage, TOperatorValueType, TOutputValueType, TOutputImageType>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaGradientImageFilter);

  using Self = CudaGradientImageFilter;
  using CPUSuperclass = GradientImageFilter<TInputImage, TOperatorValueType, TOutputValueType, TOutputImageType>;
  using Superclass = CudaAxisStencilImageFilter<TInputImage, TOutputImageType, CPUSuperclass>;
  using GPUSuperclass = Superclass;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::Stencil;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaGradientImageFilter, CudaAxisStencilImageFilter);

  /** ITK's (the filter owns the condition, as ITK's does), and remembered
   * for the GPU path. */
  void
  OverrideBoundaryCondition(ImageBoundaryCondition<TInputImage> * boundaryCondition)
  {
    CPUSuperclass::OverrideBoundaryCondition(boundaryCondition);
    m_BoundaryCondition = boundaryCondition;
    m_BoundaryConditionText = this->ParentBoundaryConditionText();
    this->Modified();
  }

  bool
  GetStencil(Stencil & stencil) const override
  {
    if (this->ParentBoundaryConditionText() != m_BoundaryConditionText)
    {
      return false; // set through ITK's class: unknown here
    }
    if (m_BoundaryCondition != nullptr &&
        !CudaDetail::KernelBoundary(m_BoundaryCondition, stencil.Boundary, stencil.Constant))
    {
      return false;
    }
    // ITK's operators: order 1, flipped for a convolution, of the operator's
    // value type, scaled by 1 / spacing, applied in the output's value type.
    using OutputValueType = typename Superclass::OutputValueType;
    stencil.Output = CudaStencilOutput::Gradient;
    for (unsigned int a = 0; a < Superclass::ImageDimension; ++a)
    {
      DerivativeOperator<TOperatorValueType, Superclass::ImageDimension> op;
      op.CreateDirectional();
      op.FlipAxes();
      if (this->GetUseImageSpacing())
      {
        const double spacing = this->GetInput()->GetSpacing()[a];
        if (spacing == 0.0)
        {
          itkExceptionMacro("Image spacing cannot be zero.");
        }
        op.ScaleCoefficients(1.0 / spacing);
      }
      stencil.Weights.Minus[a] = static_cast<double>(static_cast<OutputValueType>(op[0]));
      stencil.Weights.Center[a] = static_cast<double>(static_cast<OutputValueType>(op[1]));
      stencil.Weights.Plus[a] = static_cast<double>(static_cast<OutputValueType>(op[2]));
    }
    stencil.Weights.UseDirection = this->GetUseImageDirection();
    const auto & direction = this->GetOutput()->GetDirection();
    for (unsigned int i = 0; i < Superclass::ImageDimension; ++i)
    {
      for (unsigned int j = 0; j < Superclass::ImageDimension; ++j)
      {
        stencil.Weights.Direction[i][j] = direction[i][j];
      }
    }
    return true;
  }

protected:
  CudaGradientImageFilter() { m_BoundaryConditionText = this->ParentBoundaryConditionText(); }
  ~CudaGradientImageFilter() override = default;

  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "BoundaryCondition (for the GPU path): ";
    if (m_BoundaryCondition != nullptr)
    {
      os << m_BoundaryCondition->GetNameOfClass() << std::endl;
    }
    else
    {
      os << "ITK's default ZeroFluxNeumannBoundaryCondition" << std::endl;
    }
  }

private:
  /** What ITK's PrintSelf() says of its boundary condition (its address):
   * the way to see a condition set through ITK's non-virtual method. */
  std::string
  ParentBoundaryConditionText() const
  {
    std::ostringstream text;
    CPUSuperclass::PrintSelf(text, Indent());
    const std::string printed = text.str();
    const auto        at = printed.rfind("BoundaryCondition");
    return at == std::string::npos ? std::string() : printed.substr(at);
  }

  // The condition ITK's class holds (and owns) where it was set here; null:
  // ITK's default. Read only while m_BoundaryConditionText says it is still
  // the one ITK's class holds.
  ImageBoundaryCondition<TInputImage> * m_BoundaryCondition{ nullptr };
  std::string                           m_BoundaryConditionText;
};
} // namespace itk

#endif
