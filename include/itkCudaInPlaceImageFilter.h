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
#ifndef itkCudaInPlaceImageFilter_h
#define itkCudaInPlaceImageFilter_h

#include "itkCudaImageToImageFilter.h"
#include "itkCudaStreamedTransform.h"
#include "itkInPlaceImageFilter.h"

#include <string>
#include <vector>

namespace itk
{
/** \class CudaInPlaceImageFilter
 * \brief Base class of CUDA filters that can overwrite their input.
 *
 * AllocateOutputs() and ReleaseInputs() are InPlaceImageFilter's: when the
 * filter runs in place, the input is grafted onto the output, and since a
 * CudaImage graft shares the data manager, the output reuses the input's
 * device buffer as well as its host buffer. A GPUGenerateData() of an
 * in-place filter reads the input's device pointer before asking for the
 * output's, as both are the same memory.
 * \ingroup CudaCommon
 */
template <typename TInputImage,
          typename TOutputImage = TInputImage,
          typename TParentImageFilter = InPlaceImageFilter<TInputImage, TOutputImage>>
class ITK_TEMPLATE_EXPORT CudaInPlaceImageFilter
  : public CudaImageToImageFilter<TInputImage, TOutputImage, TParentImageFilter>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaInPlaceImageFilter);

  using Self = CudaInPlaceImageFilter;
  using GPUSuperclass = CudaImageToImageFilter<TInputImage, TOutputImage, TParentImageFilter>;
  using CPUSuperclass = TParentImageFilter;
  using Superclass = GPUSuperclass;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkCudaTypeMacro(CudaInPlaceImageFilter, GPUSuperclass);

  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;

protected:
  CudaInPlaceImageFilter() = default;
  ~CudaInPlaceImageFilter() override = default;

  /** The host-streamed path of an element-wise subclass: `inputs` streamed
   * through the device into the output's buffered region on
   * GetCudaStream() (CudaStreamImagesFromHost()), ProgressEvent per chunk,
   * AbortGenerateData checked between chunks. Returns false, having changed
   * nothing, when the path does not apply.
   * \throws itk::ProcessAborted on an abort (the output's host copy then
   * current, its device copy stale), or the error of a chunk. */
  bool
  GPUStreamImagesFromHost(const std::vector<CudaStreamedImage> & inputs,
                          const CudaStreamedCompute &            compute,
                          const CudaStreamedTransformSettings &  settings)
  {
    OutputImageType * output = this->GetOutput();
    const auto        outcome = CudaStreamImagesFromHost(
      inputs,
      *output->GetCudaDataManager(),
      sizeof(typename OutputImageType::PixelType),
      output->GetBufferedRegion().GetNumberOfPixels(),
      this->GetCudaStream(),
      compute,
      [this](double done) {
        this->UpdateProgress(static_cast<float>(done));
        return !this->GetAbortGenerateData();
      },
      settings);
    if (outcome == CudaStreamedOutcome::Aborted)
    {
      ProcessAborted aborted(__FILE__, __LINE__);
      aborted.SetDescription(std::string(this->GetNameOfClass()) + ": the update was aborted between chunks");
      throw aborted;
    }
    return outcome == CudaStreamedOutcome::Completed;
  }
};
} // namespace itk

#endif
