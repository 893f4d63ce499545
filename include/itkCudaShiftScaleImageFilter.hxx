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
#ifndef itkCudaShiftScaleImageFilter_hxx
#define itkCudaShiftScaleImageFilter_hxx

#include "itkCudaShiftScaleImageFilter.h"

namespace itk
{
template <typename TInputImage, typename TOutputImage>
CudaShiftScaleImageFilter<TInputImage, TOutputImage>::~CudaShiftScaleImageFilter()
{
  // Counters still in use by queued kernels are freed once those are done.
  try
  {
    this->FetchCounts();
  }
  catch (const ExceptionObject & e)
  {
    itkWarningMacro(<< "waiting for the counting kernels failed: " << e.GetDescription());
  }
}

template <typename TInputImage, typename TOutputImage>
auto
CudaShiftScaleImageFilter<TInputImage, TOutputImage>::MakeCudaFunctor() const -> CudaFunctorType
{
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  unsigned long long * counters = nullptr;
  {
    const std::lock_guard<std::mutex> lock(m_CountersMutex);
    auto &                            buffer = m_Counters[device];
    if (buffer.IsNull())
    {
      buffer = GPUMemPointer::New();
      buffer->Allocate(2 * sizeof(unsigned long long), device);
      // Zeroed before any kernel, on whichever stream, may count.
      CUDA_CHECK(cudaMemsetAsync(buffer->GetPointer(), 0, 2 * sizeof(unsigned long long), cudaStreamLegacy));
      CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    }
    counters = static_cast<unsigned long long *>(buffer->GetPointer());
  }
  CudaFunctorType functor;
  functor.Shift = static_cast<double>(this->GetShift());
  functor.Scale = static_cast<double>(this->GetScale());
  functor.Underflows = counters;
  functor.Overflows = counters + 1;
  return functor;
}

template <typename TInputImage, typename TOutputImage>
void
CudaShiftScaleImageFilter<TInputImage, TOutputImage>::GPUGenerateData()
{
  this->FetchCounts(); // the last update's counters, if never read, are done with
  m_Underflows = 0;
  m_Overflows = 0;
  m_CountedOnGPU = true;
  m_CountsPending = true;
  Superclass::GPUGenerateData();
}

template <typename TInputImage, typename TOutputImage>
void
CudaShiftScaleImageFilter<TInputImage, TOutputImage>::BeforeThreadedGenerateData()
{
  this->FetchCounts();
  m_CountedOnGPU = false;
  Superclass::BeforeThreadedGenerateData();
}

template <typename TInputImage, typename TOutputImage>
void
CudaShiftScaleImageFilter<TInputImage, TOutputImage>::FetchCounts() const
{
  const std::lock_guard<std::mutex> lock(m_CountersMutex);
  if (!m_CountsPending)
  {
    return;
  }
  m_CountsPending = false;
  auto counters = std::move(m_Counters);
  m_Counters.clear();
  for (const auto & deviceCounters : counters)
  {
    const CudaDeviceGuard onDevice(deviceCounters.first);
    // The kernels counted on the streams of the update (the filter's and the
    // split's): all of them are done once the device is.
    CUDA_CHECK(cudaDeviceSynchronize());
    unsigned long long counts[2] = { 0, 0 };
    CUDA_CHECK(cudaMemcpy(counts, deviceCounters.second->GetPointer(), sizeof(counts), cudaMemcpyDeviceToHost));
    m_Underflows += static_cast<SizeValueType>(counts[0]);
    m_Overflows += static_cast<SizeValueType>(counts[1]);
  }
}

template <typename TInputImage, typename TOutputImage>
SizeValueType
CudaShiftScaleImageFilter<TInputImage, TOutputImage>::GetUnderflowCount() const
{
  if (!m_CountedOnGPU)
  {
    return Superclass::GetUnderflowCount();
  }
  this->FetchCounts();
  return m_Underflows;
}

template <typename TInputImage, typename TOutputImage>
SizeValueType
CudaShiftScaleImageFilter<TInputImage, TOutputImage>::GetOverflowCount() const
{
  if (!m_CountedOnGPU)
  {
    return Superclass::GetOverflowCount();
  }
  this->FetchCounts();
  return m_Overflows;
}
} // namespace itk

#endif
