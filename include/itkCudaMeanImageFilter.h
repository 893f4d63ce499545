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
#ifndef itkCudaMeanImageFilter_h
#define itkCudaMeanImageFilter_h

#include "itkCudaSeparableImageFilter.h"
#include "itkMeanImageFilter.h"

namespace itk
{
/** \class CudaMeanImageFilter
 * \brief ITK's MeanImageFilter on the GPU: the mean over a box of
 * 2 radius + 1 pixels per axis (SetRadius()), the image's edges extended by
 * their nearest pixel as ITK's ZeroFluxNeumannBoundaryCondition does.
 *
 * The box is separable: one pass per axis, each the mean of 2 r + 1
 * neighbours along the axis (summed in double), 2 r + 1 reads per pixel and
 * axis rather than the box's (2 r + 1)^d. Intermediate results are of the
 * pixel type, so a float mean differs from ITK's single double sum by a few
 * units in the last place. Float and double images with radii of at most 127
 * run on the GPU; others run ITK's code (see CudaSeparableImageFilter).
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT CudaMeanImageFilter
  : public CudaSeparableImageFilter<TInputImage, TOutputImage, MeanImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaMeanImageFilter);

  using Self = CudaMeanImageFilter;
  using CPUSuperclass = MeanImageFilter<TInputImage, TOutputImage>;
  using Superclass = CudaSeparableImageFilter<TInputImage, TOutputImage, CPUSuperclass>;
  using GPUSuperclass = Superclass;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::Pass;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaMeanImageFilter, CudaSeparableImageFilter);

  std::vector<Pass>
  GetPasses() const override
  {
    return CudaDetail::BoxPasses<Pass>(this->GetRadius(), 0.0, CudaBoundary::ZeroFluxNeumann);
  }

protected:
  CudaMeanImageFilter() = default;
  ~CudaMeanImageFilter() override = default;
};
} // namespace itk

#endif
