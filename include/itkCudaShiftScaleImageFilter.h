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
#ifndef itkCudaShiftScaleImageFilter_h
#define itkCudaShiftScaleImageFilter_h

#include "itkCudaFunctors.h"
#include "itkCudaUnaryFunctorImageFilter.h"
#include "itkShiftScaleImageFilter.h"

#include <map>
#include <mutex>

namespace itk
{
/** \class CudaShiftScaleImageFilter
 * \brief (pixel + Shift) * Scale, clamped to the output type's range, on
 * the GPU: ITK's ShiftScaleImageFilter (SetShift(), SetScale(); it runs
 * without a GPU, or with GPUEnabled off), computing the same pixels
 * (CudaShiftScaleFunctor) and the same GetUnderflowCount() and
 * GetOverflowCount().
 *
 * The counts are kept on each device the update ran on and brought to the
 * host by the first call of a count getter after the update, which waits
 * for the update's work: a pipeline that never asks for them never waits.
 *
 * Pixel types: unsigned char, short, float and double to themselves, float
 * and double to unsigned char (src/itkCudaShiftScaleImage.cu). Never in
 * place, as ShiftScaleImageFilter.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT CudaShiftScaleImageFilter
  : public CudaUnaryFunctorImageFilter<
      TInputImage,
      TOutputImage,
      CudaShiftScaleFunctor<typename TInputImage::PixelType, typename TOutputImage::PixelType>,
      ShiftScaleImageFilter<TInputImage, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaShiftScaleImageFilter);

  using Self = CudaShiftScaleImageFilter;
  using Superclass = CudaUnaryFunctorImageFilter<
    TInputImage,
    TOutputImage,
    CudaShiftScaleFunctor<typename TInputImage::PixelType, typename TOutputImage::PixelType>,
    ShiftScaleImageFilter<TInputImage, TOutputImage>>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = ShiftScaleImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::CudaFunctorType;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaShiftScaleImageFilter, CudaUnaryFunctorImageFilter);

  /** The pixels of the last update set to NonpositiveMin() (below the
   * output's range) and to max() (above it). */
  SizeValueType
  GetUnderflowCount() const override;
  SizeValueType
  GetOverflowCount() const override;

protected:
  CudaShiftScaleImageFilter() = default;
  ~CudaShiftScaleImageFilter() override;

  /** The parent's shift and scale, and the counters of the current device. */
  CudaFunctorType
  MakeCudaFunctor() const override;

  void
  GPUGenerateData() override;

  /** The CPU parent's update: its counts are the ones. */
  void
  BeforeThreadedGenerateData() override;

private:
  /** Wait for the counting kernels and add up each device's counts. */
  void
  FetchCounts() const;

  mutable std::mutex                            m_CountersMutex;
  mutable std::map<int, GPUMemPointer::Pointer> m_Counters; // device: { underflows, overflows }
  mutable bool                                  m_CountsPending{ false };
  bool                                          m_CountedOnGPU{ false };
  mutable SizeValueType                         m_Underflows{ 0 };
  mutable SizeValueType                         m_Overflows{ 0 };
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkCudaShiftScaleImageFilter.hxx"
#endif

#endif
