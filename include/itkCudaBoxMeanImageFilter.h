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
#ifndef itkCudaBoxMeanImageFilter_h
#define itkCudaBoxMeanImageFilter_h

#include "itkBoxMeanImageFilter.h"
#include "itkCudaSeparableImageFilter.h"

namespace itk
{
/** \class CudaBoxMeanImageFilter
 * \brief ITK's BoxMeanImageFilter on the GPU: the mean over a box of
 * 2 radius + 1 pixels per axis, the box cropped at the image's edges (the
 * mean of the pixels inside), as ITK's filter computes it.
 *
 * ITK sums the box from an accumulated image; here the box is separable, one
 * pass per axis, each the mean of the neighbours along the axis that lie in
 * the image (CudaBoundary::Crop, sums in double), which is the cropped box's
 * mean. Float and double images with radii of at most 127 run on the GPU;
 * others run ITK's code (see CudaSeparableImageFilter).
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT CudaBoxMeanImageFilter
  : public CudaSeparableImageFilter<TInputImage, TOutputImage, BoxMeanImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaBoxMeanImageFilter);

  using Self = CudaBoxMeanImageFilter;
  using CPUSuperclass = BoxMeanImageFilter<TInputImage, TOutputImage>;
  using Superclass = CudaSeparableImageFilter<TInputImage, TOutputImage, CPUSuperclass>;
  using GPUSuperclass = Superclass;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::Pass;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaBoxMeanImageFilter, CudaSeparableImageFilter);

  std::vector<Pass>
  GetPasses() const override
  {
    return CudaDetail::BoxPasses<Pass>(this->GetRadius(), 1.0, CudaBoundary::Crop);
  }

protected:
  CudaBoxMeanImageFilter() = default;
  ~CudaBoxMeanImageFilter() override = default;
};
} // namespace itk

#endif
