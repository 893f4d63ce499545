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
#ifndef itkCudaStatisticsImageFilter_h
#define itkCudaStatisticsImageFilter_h

#include "itkCudaCompatibility.h"
#include "itkCudaImageReductions.h"
#include "itkStatisticsImageFilter.h"

namespace itk
{
/** \class CudaStatisticsImageFilter
 * \brief ITK's StatisticsImageFilter computed on the GPU: minimum, maximum,
 * mean, sigma, variance, sum and sum of squares of a CudaImage, with ITK's
 * outputs, defaults and formulas (sums in double).
 *
 * Each piece of the input (NumberOfStreamDivisions, as ITK's filter streams
 * it) is reduced on the input's device (CudaReduceImageRegion()); only the
 * results come back to the host, and the image stays on the device. With
 * GPUEnabled off, or without a CUDA device, ITK's filter computes on the
 * CPU. The sums agree with ITK's to rounding (ITK sums with compensation,
 * the GPU in a tree); an empty input is left to ITK's filter.
 *
 * Pixel types: those of itkCudaPixelReduction.h.
 * \ingroup CudaCommon
 */
template <typename TInputImage>
class ITK_TEMPLATE_EXPORT CudaStatisticsImageFilter : public StatisticsImageFilter<TInputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaStatisticsImageFilter);

  using Self = CudaStatisticsImageFilter;
  using Superclass = StatisticsImageFilter<TInputImage>;
  using CPUSuperclass = Superclass;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::PixelType;
  using typename Superclass::RealType;
  using RegionType = typename TInputImage::RegionType;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaStatisticsImageFilter, StatisticsImageFilter);

  /** Compute on the GPU (the default) or, off, with ITK's filter on the CPU. */
  itkSetMacro(GPUEnabled, bool);
  itkGetConstMacro(GPUEnabled, bool);
  itkBooleanMacro(GPUEnabled);

  /** Whether the last update computed on the GPU. */
  itkGetConstMacro(ComputedOnGPU, bool);

protected:
  CudaStatisticsImageFilter() = default;
  ~CudaStatisticsImageFilter() override = default;

  void
  BeforeStreamedGenerateData() override;
  void
  GenerateNthInputRequestedRegion(unsigned int inputRequestedRegionNumber) override;
  void
  StreamedGenerateData(unsigned int inputRequestedRegionNumber) override;
  void
  AfterStreamedGenerateData() override;

  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  bool                                           m_GPUEnabled{ true };
  bool                                           m_ComputedOnGPU{ false };
  RegionType                                     m_PieceRegion{};
  SizeValueType                                  m_Count{ 0 };
  CudaPixelStatistics<PixelType>                 m_Accumulated{};
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkCudaStatisticsImageFilter.hxx"
#endif

#endif
