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
#ifndef itkCudaStatisticsImageFilter_hxx
#define itkCudaStatisticsImageFilter_hxx

#include "itkCudaStatisticsImageFilter.h"

#include <cmath>

namespace itk
{
template <typename TInputImage>
void
CudaStatisticsImageFilter<TInputImage>::BeforeStreamedGenerateData()
{
  Superclass::BeforeStreamedGenerateData();
  const TInputImage * input = this->GetInput();
  // An empty input is ITK's filter's to answer, as the rest without a GPU.
  m_ComputedOnGPU = m_GPUEnabled && IsCudaAvailable() && input != nullptr &&
                    input->GetLargestPossibleRegion().GetNumberOfPixels() > 0;
  m_Count = 0;
  m_Accumulated = {};
  m_Accumulated.Minimum = NumericTraits<PixelType>::max();
  m_Accumulated.Maximum = NumericTraits<PixelType>::NonpositiveMin();
}

template <typename TInputImage>
void
CudaStatisticsImageFilter<TInputImage>::GenerateNthInputRequestedRegion(unsigned int inputRequestedRegionNumber)
{
  Superclass::GenerateNthInputRequestedRegion(inputRequestedRegionNumber);
  // The piece ITK's filter would reduce: what it asked of the input.
  m_PieceRegion = this->GetInput()->GetRequestedRegion();
}

template <typename TInputImage>
void
CudaStatisticsImageFilter<TInputImage>::StreamedGenerateData(unsigned int inputRequestedRegionNumber)
{
  if (!m_ComputedOnGPU)
  {
    Superclass::StreamedGenerateData(inputRequestedRegionNumber);
    return;
  }
  if (this->GetAbortGenerateData())
  {
    ProcessAborted aborted(__FILE__, __LINE__);
    aborted.SetDescription(std::string(this->GetNameOfClass()) + ": the update was aborted");
    throw aborted;
  }
  const auto piece = CudaReduceImageRegion(this->GetInput(),
                                           m_PieceRegion,
                                           false,
                                           NumericTraits<PixelType>::max(),
                                           NumericTraits<PixelType>::NonpositiveMin());
  m_Accumulated.Sum += piece.Sum;
  m_Accumulated.SumOfSquares += piece.SumOfSquares;
  m_Accumulated.Minimum = std::min(piece.Minimum, m_Accumulated.Minimum);
  m_Accumulated.Maximum = std::max(piece.Maximum, m_Accumulated.Maximum);
  m_Count += m_PieceRegion.GetNumberOfPixels();
  this->UpdateProgress(static_cast<float>(inputRequestedRegionNumber + 1) /
                       static_cast<float>(this->GetNumberOfInputRequestedRegions()));
}

template <typename TInputImage>
void
CudaStatisticsImageFilter<TInputImage>::AfterStreamedGenerateData()
{
  if (!m_ComputedOnGPU)
  {
    Superclass::AfterStreamedGenerateData();
    return;
  }
  // ITK's filter's step, with ITK's formulas, on the GPU's sums.
  Superclass::Superclass::AfterStreamedGenerateData();
  const auto     count = static_cast<RealType>(m_Count);
  const RealType sum = m_Accumulated.Sum;
  const RealType sumOfSquares = m_Accumulated.SumOfSquares;
  const RealType mean = sum / count;
  const RealType variance = (sumOfSquares - (sum * sum / count)) / (count - 1);
  this->SetMinimum(m_Accumulated.Minimum);
  this->SetMaximum(m_Accumulated.Maximum);
  this->SetMean(mean);
  this->SetSigma(std::sqrt(variance));
  this->SetVariance(variance);
  this->SetSum(sum);
  this->SetSumOfSquares(sumOfSquares);
}

template <typename TInputImage>
void
CudaStatisticsImageFilter<TInputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "GPUEnabled: " << m_GPUEnabled << std::endl;
  os << indent << "ComputedOnGPU: " << m_ComputedOnGPU << std::endl;
}
} // namespace itk

#endif
