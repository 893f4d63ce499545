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
#ifndef itkCudaBinaryFunctorImageFilter_h
#define itkCudaBinaryFunctorImageFilter_h

#include "itkCudaElementwiseImageFilter.h"
#include "itkCudaFunctorLaunch.h"
#include "itkCudaPixelTraits.h"

namespace itk
{
/** \class CudaBinaryFunctorImageFilter
 * \brief Base class of CUDA filters that compute each output pixel from the
 * pixels of two inputs at the same place with a device functor: the CUDA
 * counterpart of ITK's BinaryGeneratorImageFilter / BinaryFunctorImageFilter.
 *
 * TParentImageFilter is the ITK filter that runs without a GPU (or with
 * GPUEnabled off), a BinaryGeneratorImageFilter subclass such as
 * AddImageFilter: its inputs are set as there (SetInput1(), SetInput2(), or
 * a constant with SetConstant1() / SetConstant2()). The functor's operator()
 * takes a pixel of each input (`__host__ __device__`, const), as the kernels
 * see them (CudaDevicePixelType: CudaVectorPixel<T, N> for ITK's
 * fixed-length vectors); a `.cu` file instantiates the kernels for those
 * types with ITK_CUDA_INSTANTIATE_BINARY_FUNCTOR (itkCudaFunctorKernels.cuh),
 * which covers the constant inputs too.
 *
 * An instance of CudaElementwiseImageFilter with two inputs, which gives
 * the rest: the output is made on its device (the first image input's, or
 * SetDevice()) and an image input on another device is moved there; an
 * input whose buffered region is larger than the output's (a streamed
 * piece) is copied to a compact scratch buffer first; in place as the parent
 * says (the output takes the first input's buffers); image inputs current
 * only on the host, in pinned memory, streamed through the device in chunks
 * (SetTransferChunkBytes()); the split across devices (SetSplitDevices()).
 * \ingroup CudaCommon
 */
template <typename TInputImage1,
          typename TInputImage2,
          typename TOutputImage,
          typename TFunctor,
          typename TParentImageFilter>
class ITK_TEMPLATE_EXPORT CudaBinaryFunctorImageFilter
  : public CudaElementwiseImageFilter<TInputImage1, TOutputImage, TParentImageFilter>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaBinaryFunctorImageFilter);

  using Self = CudaBinaryFunctorImageFilter;
  using Superclass = CudaElementwiseImageFilter<TInputImage1, TOutputImage, TParentImageFilter>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = TParentImageFilter;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkCudaTypeMacro(CudaBinaryFunctorImageFilter, CudaElementwiseImageFilter);

  using typename Superclass::ElementwiseInput;
  using Input1ImageType = TInputImage1;
  using Input2ImageType = TInputImage2;
  using OutputImageType = TOutputImage;
  using Input1PixelType = typename TInputImage1::PixelType;
  using Input2PixelType = typename TInputImage2::PixelType;
  using OutputPixelType = typename TOutputImage::PixelType;
  using CudaFunctorType = TFunctor;
  /** The pixels as the kernels see them. */
  using Input1DevicePixelType = CudaDevicePixelType<Input1PixelType>;
  using Input2DevicePixelType = CudaDevicePixelType<Input2PixelType>;
  using OutputDevicePixelType = CudaDevicePixelType<OutputPixelType>;

  /** The device functor the kernels apply (the CPU parent keeps its own). */
  const CudaFunctorType &
  GetCudaFunctor() const
  {
    return m_CudaFunctor;
  }
  void
  SetCudaFunctor(const CudaFunctorType & functor)
  {
    m_CudaFunctor = functor;
    this->Modified();
  }

protected:
  CudaBinaryFunctorImageFilter() = default;
  ~CudaBinaryFunctorImageFilter() override = default;

  /** The functor of this update: GetCudaFunctor() by default (see
   * CudaUnaryFunctorImageFilter::MakeCudaFunctor()). */
  virtual CudaFunctorType
  MakeCudaFunctor() const
  {
    return m_CudaFunctor;
  }

  /** The two inputs: images, or the constant of SetConstant1() /
   * SetConstant2().
   * \throws itk::ExceptionObject for an input that is neither. */
  std::vector<ElementwiseInput>
  GetElementwiseInputs() const override;

  /** The functor's kernel on `count` pixels (a constant input's pointer is
   * nullptr: the filter's constant is bound to the functor). */
  void
  GPUComputeInputs(const void * const * in, void * out, size_t count, cudaStream_t stream) override;

private:
  /** Launch the functor's kernel on `count` pixels (an input without image
   * is the filter's constant). */
  void
  Compute(const Input1DevicePixelType * in1,
          const Input2DevicePixelType * in2,
          OutputDevicePixelType *       out,
          size_t                        count,
          cudaStream_t                  stream) const;

  CudaFunctorType m_CudaFunctor{};
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkCudaBinaryFunctorImageFilter.hxx"
#endif

#endif
