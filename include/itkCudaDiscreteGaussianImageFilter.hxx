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
#ifndef itkCudaDiscreteGaussianImageFilter_hxx
#define itkCudaDiscreteGaussianImageFilter_hxx

#include "itkGaussianOperator.h"

#include <algorithm>

namespace itk
{
template <typename TInputImage, typename TOutputImage>
auto
CudaDiscreteGaussianImageFilter<TInputImage, TOutputImage>::GetPasses() const -> std::vector<Pass>
{
  const unsigned int filtered = std::min(this->GetFilterDimensionality(), ImageDimension);
  const auto *       input = this->GetInput();
  CudaBoundary       inputBoundary = CudaBoundary::ZeroFluxNeumann;
  CudaBoundary       realBoundary = CudaBoundary::ZeroFluxNeumann;
  double             inputConstant = 0.0;
  double             realConstant = 0.0;
  CudaDetail::KernelBoundary(this->GetInputBoundaryCondition(), inputBoundary, inputConstant);
  CudaDetail::KernelBoundary(this->GetRealBoundaryCondition(), realBoundary, realConstant);
  std::vector<Pass> passes;
  for (unsigned int p = 0; p < filtered; ++p)
  {
    // ITK's order: the last filtered axis first.
    const unsigned int axis = filtered - 1 - p;
    GaussianOperator<double, ImageDimension> oper;
    oper.SetDirection(axis);
    double variance = this->GetVariance()[axis];
    if (this->GetUseImageSpacing())
    {
      const double spacing = input != nullptr ? input->GetSpacing()[axis] : 1.0;
      if (spacing == 0.0)
      {
        itkExceptionMacro("Pixel spacing cannot be zero");
      }
      variance /= spacing * spacing;
    }
    oper.SetVariance(variance);
    oper.SetMaximumError(this->GetMaximumError()[axis]);
    oper.SetMaximumKernelWidth(this->GetMaximumKernelWidth());
    oper.CreateDirectional();
    Pass pass;
    pass.Axis = axis;
    pass.Weights.assign(oper.Begin(), oper.End());
    pass.Boundary = p == 0 ? inputBoundary : realBoundary;
    pass.Constant = p == 0 ? inputConstant : realConstant;
    passes.push_back(std::move(pass));
  }
  return passes;
}

template <typename TInputImage, typename TOutputImage>
bool
CudaDiscreteGaussianImageFilter<TInputImage, TOutputImage>::GPUTakesSettings() const
{
  CudaBoundary boundary;
  double       constant;
  return CudaDetail::KernelBoundary(this->GetInputBoundaryCondition(), boundary, constant) &&
         CudaDetail::KernelBoundary(this->GetRealBoundaryCondition(), boundary, constant);
}
} // namespace itk

#endif
