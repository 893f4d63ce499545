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
#ifndef itkCudaLaplacianImageFilter_h
#define itkCudaLaplacianImageFilter_h

#include "itkConfigure.h"
#include "itkCudaAxisStencilImageFilter.h"
#include "itkLaplacianImageFilter.h"
#include "itkLaplacianOperator.h"

namespace itk
{
/** \class CudaLaplacianImageFilter
 * \brief ITK's LaplacianImageFilter on the GPU: the sum over the axes of the
 * second differences, each divided by the squared spacing along its axis,
 * the image's edges extended by their nearest pixel. ITK's results to the bit
 * for float and double images (see CudaAxisStencilImageFilter), including its
 * versions' treatment of UseImageSpacing (ITK before 5.3 always divides by
 * the spacing); other pixel types run ITK's code. An infinite input pixel
 * makes NaNs over its whole 3^n neighborhood in ITK (whose zero taps multiply
 * it), and only over its 2 n + 1 stencil here.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT CudaLaplacianImageFilter
  : public CudaAxisStencilImageFilter<TInputImage, TOutputImage, LaplacianImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaLaplacianImageFilter);

  using Self = CudaLaplacianImageFilter;
  using CPUSuperclass = LaplacianImageFilter<TInputImage, TOutputImage>;
  using Superclass = CudaAxisStencilImageFilter<TInputImage, TOutputImage, CPUSuperclass>;
  using GPUSuperclass = Superclass;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::Stencil;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaLaplacianImageFilter, CudaAxisStencilImageFilter);

  bool
  GetStencil(Stencil & stencil) const override
  {
    constexpr unsigned int dimension = Superclass::ImageDimension;
#if ITK_VERSION_MAJOR > 5 || (ITK_VERSION_MAJOR == 5 && ITK_VERSION_MINOR >= 3)
    const bool useSpacing = this->GetUseImageSpacing();
#else
    const bool useSpacing = true; // ITK 5.2 divides by the spacing whatever UseImageSpacing says
#endif
    double scalings[dimension];
    for (unsigned int a = 0; a < dimension; ++a)
    {
      scalings[a] = 1.0;
      if (useSpacing)
      {
        const double spacing = this->GetInput()->GetSpacing()[a];
        if (spacing == 0.0)
        {
          itkExceptionMacro("Image spacing cannot be zero");
        }
        scalings[a] = 1.0 / spacing;
      }
    }
    // ITK's operator, of the output's pixel type: its 2 n + 1 nonzero taps.
    LaplacianOperator<typename Superclass::OutputPixelType, dimension> op;
    op.SetDerivativeScalings(scalings);
    op.CreateOperator();
    const auto center = op.Size() / 2;
    stencil.Output = CudaStencilOutput::Laplacian;
    stencil.Weights.Middle = static_cast<double>(op[center]);
    for (unsigned int a = 0; a < dimension; ++a)
    {
      stencil.Weights.Minus[a] = static_cast<double>(op[center - op.GetStride(a)]);
      stencil.Weights.Plus[a] = static_cast<double>(op[center + op.GetStride(a)]);
    }
    return true;
  }

protected:
  CudaLaplacianImageFilter() = default;
  ~CudaLaplacianImageFilter() override = default;
};
} // namespace itk

#endif
