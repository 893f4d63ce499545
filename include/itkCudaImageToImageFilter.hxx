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
#ifndef itkCudaImageToImageFilter_hxx
#define itkCudaImageToImageFilter_hxx

#include "itkCudaUtil.h"

#include <typeinfo>

#include <type_traits>

namespace itk
{
template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaImageToImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GenerateData()
{
  if (!m_GPUEnabled)
  {
    Superclass::GenerateData();
    return;
  }
  if (!IsCudaAvailable())
  {
    try
    {
      Superclass::GenerateData();
    }
    catch (const ProcessAborted &)
    {
      throw;
    }
    catch (const ExceptionObject & e)
    {
      itkExceptionMacro("no CUDA device is available (" << CudaUnavailableReason() << ") and the CPU implementation of "
                                                        << this->GetNameOfClass() << " failed: " << e.GetDescription());
    }
    return;
  }
  using CudaInputImage = typename CudaTraits<TInputImage>::Type;
  auto * input = dynamic_cast<const CudaInputImage *>(this->ProcessObject::GetInput(0));
  int    device = m_Device;
  if (device < 0)
  {
    device = input != nullptr ? input->GetCudaDataManager()->GetDevice() : CudaGetDefaultDevice();
  }
  if (input != nullptr)
  {
    input->GetCudaDataManager()->SetDevice(device);
  }
  const CudaDeviceGuard onDevice(device);
  // Outputs computed on the GPU get host memory only if the host reads them.
  // Not for outputs declared as itk::Image: code holding them calls
  // itk::Image's non-virtual accessors, which could not make it.
  if (std::is_same<TOutputImage, CudaOutputImage>::value)
  {
    for (unsigned int i = 0; i < this->GetNumberOfIndexedOutputs(); ++i)
    {
      if (auto * output = dynamic_cast<CudaOutputImage *>(this->ProcessObject::GetOutput(i)))
      {
        output->HostAllocationOnFirstUseOn();
      }
    }
  }
  this->AllocateOutputs();
  for (unsigned int i = 0; i < this->GetNumberOfIndexedOutputs(); ++i)
  {
    auto * output = dynamic_cast<CudaOutputImage *>(this->ProcessObject::GetOutput(i));
    if (output != nullptr)
    {
      output->GetCudaDataManager()->SetDevice(device); // no-op when grafted from the input
    }
  }
  auto * primary = dynamic_cast<CudaOutputImage *>(this->ProcessObject::GetPrimaryOutput());
  m_CudaStream = primary != nullptr ? primary->GetCudaDataManager()->GetStream() : nullptr;
  struct ClearStream
  {
    cudaStream_t & Stream;
    ~ClearStream() { Stream = nullptr; }
  } const clearStream{ m_CudaStream };
  // Progress as ITK's filters report it: 0 before the work, 1 after it;
  // an observer of the first may abort the update before any kernel runs.
  this->UpdateProgress(0.0f);
  if (this->GetAbortGenerateData())
  {
    ProcessAborted aborted(__FILE__, __LINE__);
    aborted.SetDescription(std::string(this->GetNameOfClass()) + ": the update was aborted before the GPU work");
    throw aborted;
  }
  CudaStreamOrderingScope ordering(m_CudaStream, this->GPUGenerateDataUsesLegacyStream());
  this->GPUGenerateData();
  ordering.Finish();
  this->UpdateProgress(1.0f);
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaImageToImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GPUGenerateData()
{
  itkExceptionMacro(<< this->GetNameOfClass()
                    << " has no GPU implementation (GPUGenerateData() is not overridden); turn GPUEnabled off to "
                       "run its CPU parent");
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaImageToImageFilter<TInputImage, TOutputImage, TParentImageFilter>::CheckOutputType(const DataObject * output) const
{
  if (output != nullptr && dynamic_cast<const TOutputImage *>(output) == nullptr)
  {
    itkExceptionMacro("cannot graft a " << output->GetNameOfClass() << " (" << typeid(*output).name()
                                        << ") as output of " << this->GetNameOfClass() << ": expected a "
                                        << typeid(TOutputImage).name());
  }
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaImageToImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GraftOutput(CudaOutputImage * output)
{
  Superclass::GraftOutput(output);
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaImageToImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GraftOutput(
  const DataObjectIdentifierType & key,
  CudaOutputImage *                output)
{
  Superclass::GraftOutput(key, output);
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaImageToImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GraftOutput(DataObject * output)
{
  this->CheckOutputType(output);
  Superclass::GraftOutput(output);
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaImageToImageFilter<TInputImage, TOutputImage, TParentImageFilter>::GraftOutput(const DataObjectIdentifierType & key,
                                                                                   DataObject *                     output)
{
  this->CheckOutputType(output);
  Superclass::GraftOutput(key, output);
}

template <typename TInputImage, typename TOutputImage, typename TParentImageFilter>
void
CudaImageToImageFilter<TInputImage, TOutputImage, TParentImageFilter>::PrintSelf(std::ostream & os,
                                                                                 Indent         indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "GPUEnabled: " << (m_GPUEnabled ? "On" : "Off") << std::endl;
  os << indent << "Device: " << m_Device << (m_Device < 0 ? " (the input's)" : "") << std::endl;
  os << indent << "CudaStream: " << static_cast<const void *>(m_CudaStream) << std::endl;
}
} // namespace itk

#endif
