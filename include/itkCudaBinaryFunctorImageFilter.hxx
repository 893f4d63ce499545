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
#ifndef itkCudaBinaryFunctorImageFilter_hxx
#define itkCudaBinaryFunctorImageFilter_hxx

#include "itkSimpleDataObjectDecorator.h"

namespace itk
{
template <typename TInputImage1,
          typename TInputImage2,
          typename TOutputImage,
          typename TFunctor,
          typename TParentImageFilter>
auto
CudaBinaryFunctorImageFilter<TInputImage1, TInputImage2, TOutputImage, TFunctor, TParentImageFilter>::
  GetElementwiseInputs() const -> std::vector<ElementwiseInput>
{
  std::vector<ElementwiseInput> inputs(2);
  const DataObject *            objects[] = { this->ProcessObject::GetInput(0), this->ProcessObject::GetInput(1) };
  const auto *                  image1 = dynamic_cast<const TInputImage1 *>(objects[0]);
  const auto *                  image2 = dynamic_cast<const TInputImage2 *>(objects[1]);
  if (image1 != nullptr)
  {
    inputs[0] = { image1->GetCudaDataManager(), image1->GetBufferedRegion(), sizeof(Input1PixelType) };
  }
  if (image2 != nullptr)
  {
    inputs[1] = { image2->GetCudaDataManager(), image2->GetBufferedRegion(), sizeof(Input2PixelType) };
  }
  // Not an image: the parent's decorated constant (SetConstant1/2()).
  const bool constants[] = {
    dynamic_cast<const SimpleDataObjectDecorator<Input1PixelType> *>(objects[0]) != nullptr,
    dynamic_cast<const SimpleDataObjectDecorator<Input2PixelType> *>(objects[1]) != nullptr
  };
  for (unsigned int k = 0; k < 2; ++k)
  {
    if (inputs[k].Manager == nullptr && !constants[k])
    {
      itkExceptionMacro("expected an image of the filter's type or a constant as input "
                        << k + 1 << ", got " << (objects[k] == nullptr ? "none" : objects[k]->GetNameOfClass()));
    }
  }
  return inputs;
}

template <typename TInputImage1,
          typename TInputImage2,
          typename TOutputImage,
          typename TFunctor,
          typename TParentImageFilter>
void
CudaBinaryFunctorImageFilter<TInputImage1, TInputImage2, TOutputImage, TFunctor, TParentImageFilter>::
  GPUComputeInputs(const void * const * in, void * out, size_t count, cudaStream_t stream)
{
  this->Compute(static_cast<const Input1DevicePixelType *>(in[0]),
                static_cast<const Input2DevicePixelType *>(in[1]),
                static_cast<OutputDevicePixelType *>(out),
                count,
                stream);
}

template <typename TInputImage1,
          typename TInputImage2,
          typename TOutputImage,
          typename TFunctor,
          typename TParentImageFilter>
void
CudaBinaryFunctorImageFilter<TInputImage1, TInputImage2, TOutputImage, TFunctor, TParentImageFilter>::Compute(
  const Input1DevicePixelType * in1,
  const Input2DevicePixelType * in2,
  OutputDevicePixelType *       out,
  size_t                        count,
  cudaStream_t                  stream) const
{
  const CudaFunctorType functor = this->MakeCudaFunctor();
  if (in1 != nullptr && in2 != nullptr)
  {
    CudaTransformElements(count, in1, in2, out, functor, stream);
  }
  else if (in1 != nullptr)
  {
    CudaTransformElements(count,
                          in1,
                          out,
                          CudaBindSecond<CudaFunctorType, Input2DevicePixelType>{
                            functor, CudaAsDevicePixel(this->GetConstant2()) },
                          stream);
  }
  else
  {
    CudaTransformElements(count,
                          in2,
                          out,
                          CudaBindFirst<CudaFunctorType, Input1DevicePixelType>{
                            functor, CudaAsDevicePixel(this->GetConstant1()) },
                          stream);
  }
}

} // namespace itk

#endif
