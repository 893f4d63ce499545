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
#ifndef itkCudaMinimumMaximumImageCalculator_h
#define itkCudaMinimumMaximumImageCalculator_h

#include "itkCudaCompatibility.h"
#include "itkCudaImageReductions.h"
#include "itkMinimumMaximumImageCalculator.h"

namespace itk
{
/** \class CudaMinimumMaximumImageCalculator
 * \brief ITK's MinimumMaximumImageCalculator computed on the GPU: the
 * extrema of a region of a CudaImage and the indices of their first
 * occurrences (in the order of ITK's region iterator), as ITK's calculator
 * gives them, its initial values and its indices kept when no pixel replaces
 * them included.
 *
 * The region (SetRegion(), else the image's requested region) must be inside
 * the image's buffered region. With GPUEnabled off, or without a CUDA device,
 * ITK's calculator computes on the CPU.
 *
 * Not in the filter factory: ITK's Compute() is not virtual, so code holding
 * a MinimumMaximumImageCalculator pointer would run ITK's loop anyway; use
 * this class by its name.
 *
 * Pixel types: those of itkCudaPixelReduction.h.
 * \ingroup CudaCommon
 */
template <typename TInputImage>
class ITK_TEMPLATE_EXPORT CudaMinimumMaximumImageCalculator : public MinimumMaximumImageCalculator<TInputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaMinimumMaximumImageCalculator);

  using Self = CudaMinimumMaximumImageCalculator;
  using Superclass = MinimumMaximumImageCalculator<TInputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::ImageType;
  using typename Superclass::PixelType;
  using typename Superclass::IndexType;
  using typename Superclass::RegionType;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaMinimumMaximumImageCalculator, MinimumMaximumImageCalculator);

  void
  SetImage(const ImageType * image) override;

  /** The region to reduce, instead of the image's requested region. */
  void
  SetRegion(const RegionType & region);

  /** The minimum and the maximum, and their indices. */
  void
  Compute();
  /** The minimum and its index alone. */
  void
  ComputeMinimum();
  /** The maximum and its index alone. */
  void
  ComputeMaximum();

  PixelType
  GetMinimum() const override
  {
    return m_Minimum;
  }
  PixelType
  GetMaximum() const override
  {
    return m_Maximum;
  }
  const IndexType &
  GetIndexOfMinimum() const override
  {
    return m_IndexOfMinimum;
  }
  const IndexType &
  GetIndexOfMaximum() const override
  {
    return m_IndexOfMaximum;
  }

  /** Compute on the GPU (the default) or, off, with ITK's calculator on the CPU. */
  itkSetMacro(GPUEnabled, bool);
  itkGetConstMacro(GPUEnabled, bool);
  itkBooleanMacro(GPUEnabled);

  /** Whether the last computation ran on the GPU. */
  itkGetConstMacro(ComputedOnGPU, bool);

protected:
  CudaMinimumMaximumImageCalculator();
  ~CudaMinimumMaximumImageCalculator() override = default;

  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  /** ITK's calculator's steps: `minimum`, `maximum` or both. */
  void
  ComputeExtrema(bool minimum, bool maximum);

  typename ImageType::ConstPointer m_Image;
  RegionType                       m_Region{};
  bool                             m_RegionSetByUser{ false };
  PixelType                        m_Minimum;
  PixelType                        m_Maximum;
  IndexType                        m_IndexOfMinimum;
  IndexType                        m_IndexOfMaximum;
  bool                             m_GPUEnabled{ true };
  bool                             m_ComputedOnGPU{ false };
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkCudaMinimumMaximumImageCalculator.hxx"
#endif

#endif
