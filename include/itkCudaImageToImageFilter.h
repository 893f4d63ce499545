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
#ifndef itkCudaImageToImageFilter_h
#define itkCudaImageToImageFilter_h

#include "itkCudaImage.h"
#include "itkImageToImageFilter.h"

namespace itk
{
/** \class CudaImageToImageFilter
 * \brief Base class of filters that run on a CUDA device, wrapping any ITK
 * filter class as their CPU parent.
 *
 * GenerateData() allocates the outputs and calls GPUGenerateData() when
 * GPUEnabled is on and a CUDA device is available. Otherwise it runs the
 * parent's GenerateData(), the CPU implementation; when that does not exist
 * either, the exception says that no CUDA device was available.
 *
 * GPUGenerateData() runs inside a CudaStreamOrderingScope on the primary
 * output's stream (GetCudaStream()): the device pointers it takes from its
 * inputs and outputs (GetConstGPUBufferPointer(), GetGPUBufferPointer(), ...)
 * are ready for the kernels it queues there, uploads included, and whatever
 * later uses those images (a download, the next filter, a free) comes after
 * those kernels. A subclass queues its work on GetCudaStream() and needs no
 * events. Work it queues on the legacy default stream instead (ITKCudaCommon
 * 2.x filters, RTK's) is ordered the same way, unless
 * GPUGenerateDataUsesLegacyStream() says it never does.
 *
 * TParentImageFilter may be any ImageSource subclass (an ImageToImageFilter,
 * an InPlaceImageFilter, a concrete CPU filter, ...).
 * \ingroup CudaCommon
 */
template <typename TInputImage,
          typename TOutputImage = TInputImage,
          typename TParentImageFilter = ImageToImageFilter<TInputImage, TOutputImage>>
class ITK_TEMPLATE_EXPORT CudaImageToImageFilter : public TParentImageFilter
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaImageToImageFilter);

  using Self = CudaImageToImageFilter;
  using Superclass = TParentImageFilter;
  using CPUSuperclass = TParentImageFilter;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkCudaTypeMacro(CudaImageToImageFilter, TParentImageFilter);

  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;
  using CudaOutputImage = typename CudaTraits<TOutputImage>::Type;
  using typename Superclass::DataObjectIdentifierType;

  static constexpr unsigned int InputImageDimension = TInputImage::ImageDimension;
  static constexpr unsigned int OutputImageDimension = TOutputImage::ImageDimension;

  /** Device the GPU implementation runs on: -1 (default) follows the primary
   * input (a CudaImage's device), else CudaGetDefaultDevice(). A CudaImage
   * input on another device is moved there (device to device); outputs are
   * made there. The calling thread's current device is restored afterwards. */
  itkSetMacro(Device, int);
  itkGetConstMacro(Device, int);

  /** Use the GPU implementation (default on); off runs the CPU parent. */
  itkSetMacro(GPUEnabled, bool);
  itkGetConstMacro(GPUEnabled, bool);
  itkBooleanMacro(GPUEnabled);

  /** Graft `output` (a CudaImage) onto this filter's primary or named output. */
  virtual void
  GraftOutput(CudaOutputImage * output);
  virtual void
  GraftOutput(const DataObjectIdentifierType & key, CudaOutputImage * output);

  /** \throws itk::ExceptionObject naming both types when `output` is not a
   * TOutputImage (for a CudaImage output: not that CudaImage type). */
  void
  GraftOutput(DataObject * output) override;
  void
  GraftOutput(const DataObjectIdentifierType & key, DataObject * output) override;

protected:
  CudaImageToImageFilter() = default;
  ~CudaImageToImageFilter() override = default;

  void
  PrintSelf(std::ostream & os, Indent indent) const override;

  void
  GenerateData() override;

  /** The GPU implementation. The default throws: a subclass that does not
   * override it has no GPU path and should be used with GPUEnabled off. */
  virtual void
  GPUGenerateData();

  /** Whether GPUGenerateData() may queue work on the legacy default stream
   * (default true, as ITKCudaCommon 2.x filters do): the device pointers it
   * takes are then made ready for that stream as well, and the images wait
   * for it afterwards. A subclass that queues its work on GetCudaStream()
   * alone returns false and saves those waits. */
  virtual bool
  GPUGenerateDataUsesLegacyStream() const
  {
    return true;
  }

  /** The stream GPUGenerateData() queues its work on: the primary output's
   * (the legacy default stream when that is not a CudaImage); nullptr
   * outside GPUGenerateData(). */
  cudaStream_t
  GetCudaStream() const
  {
    return m_CudaStream;
  }

private:
  void
  CheckOutputType(const DataObject * output) const;

  bool         m_GPUEnabled{ true };
  int          m_Device{ -1 };
  cudaStream_t m_CudaStream{ nullptr };
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkCudaImageToImageFilter.hxx"
#endif

#endif
