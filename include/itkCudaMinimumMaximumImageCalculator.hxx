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
#ifndef itkCudaMinimumMaximumImageCalculator_hxx
#define itkCudaMinimumMaximumImageCalculator_hxx

#include "itkCudaMinimumMaximumImageCalculator.h"

namespace itk
{
template <typename TInputImage>
CudaMinimumMaximumImageCalculator<TInputImage>::CudaMinimumMaximumImageCalculator()
  : m_Minimum(NumericTraits<PixelType>::max())
  , m_Maximum(NumericTraits<PixelType>::NonpositiveMin())
{
  m_IndexOfMinimum.Fill(0);
  m_IndexOfMaximum.Fill(0);
}

template <typename TInputImage>
void
CudaMinimumMaximumImageCalculator<TInputImage>::SetImage(const ImageType * image)
{
  Superclass::SetImage(image);
  m_Image = image;
}

template <typename TInputImage>
void
CudaMinimumMaximumImageCalculator<TInputImage>::SetRegion(const RegionType & region)
{
  Superclass::SetRegion(region);
  m_Region = region;
  m_RegionSetByUser = true;
}

template <typename TInputImage>
void
CudaMinimumMaximumImageCalculator<TInputImage>::Compute()
{
  this->ComputeExtrema(true, true);
}

template <typename TInputImage>
void
CudaMinimumMaximumImageCalculator<TInputImage>::ComputeMinimum()
{
  this->ComputeExtrema(true, false);
}

template <typename TInputImage>
void
CudaMinimumMaximumImageCalculator<TInputImage>::ComputeMaximum()
{
  this->ComputeExtrema(false, true);
}

template <typename TInputImage>
void
CudaMinimumMaximumImageCalculator<TInputImage>::ComputeExtrema(bool minimum, bool maximum)
{
  m_ComputedOnGPU = m_GPUEnabled && m_Image != nullptr && IsCudaAvailable();
  if (!m_ComputedOnGPU)
  {
    // ITK's calculator, whose results are its private members.
    if (minimum && maximum)
    {
      Superclass::Compute();
    }
    else if (minimum)
    {
      Superclass::ComputeMinimum();
    }
    else
    {
      Superclass::ComputeMaximum();
    }
    m_Minimum = Superclass::GetMinimum();
    m_Maximum = Superclass::GetMaximum();
    m_IndexOfMinimum = Superclass::GetIndexOfMinimum();
    m_IndexOfMaximum = Superclass::GetIndexOfMaximum();
    return;
  }
  if (!m_RegionSetByUser)
  {
    m_Region = m_Image->GetRequestedRegion();
  }
  const auto extrema = CudaReduceImageRegion(
    m_Image.GetPointer(), m_Region, true, NumericTraits<PixelType>::max(), NumericTraits<PixelType>::NonpositiveMin());
  // As ITK's calculator: the extrema start anew, an index stays what it was
  // until a pixel replaces its extremum.
  if (minimum)
  {
    m_Minimum = extrema.Minimum;
    if (extrema.PositionOfMinimum != CudaPixelNotFound)
    {
      m_IndexOfMinimum = CudaRegionIndexOfPosition(m_Region, extrema.PositionOfMinimum);
    }
  }
  if (maximum)
  {
    m_Maximum = extrema.Maximum;
    if (extrema.PositionOfMaximum != CudaPixelNotFound)
    {
      m_IndexOfMaximum = CudaRegionIndexOfPosition(m_Region, extrema.PositionOfMaximum);
    }
  }
}

template <typename TInputImage>
void
CudaMinimumMaximumImageCalculator<TInputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "GPUEnabled: " << m_GPUEnabled << std::endl;
  os << indent << "ComputedOnGPU: " << m_ComputedOnGPU << std::endl;
  os << indent << "Minimum (of the last computation): "
     << static_cast<typename NumericTraits<PixelType>::PrintType>(m_Minimum) << std::endl;
  os << indent << "Maximum (of the last computation): "
     << static_cast<typename NumericTraits<PixelType>::PrintType>(m_Maximum) << std::endl;
}
} // namespace itk

#endif
