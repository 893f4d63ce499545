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
#ifndef itkCudaUnaryFunctorImageFilter_h
#define itkCudaUnaryFunctorImageFilter_h

#include "itkCudaElementwiseImageFilter.h"
#include "itkCudaFunctorLaunch.h"
#include "itkCudaPixelTraits.h"

namespace itk
{
/** \class CudaUnaryFunctorImageFilter
 * \brief Base class of CUDA filters that compute each output pixel from the
 * input pixel at the same place with a device functor: the CUDA counterpart
 * of ITK's UnaryFunctorImageFilter.
 *
 * A filter of your own is a functor and a few lines:
 * \code
 * // MyScaleFunctor.h, for the host compiler and nvcc
 * struct MyScale
 * {
 *   float Factor{ 1.0f };
 *   __host__ __device__ float operator()(float pixel) const { return pixel * Factor; }
 * };
 * // MyScale.cu: the kernels for it
 * #include "itkCudaFunctorKernels.cuh"
 * ITK_CUDA_INSTANTIATE_UNARY_FUNCTOR(MyScale, float, float);
 * // the filter: its CPU parent is what runs without a GPU
 * template <typename TImage>
 * class CudaMyScaleImageFilter
 *   : public itk::CudaUnaryFunctorImageFilter<TImage, TImage, MyScale, MyScaleImageFilter<TImage, TImage>>
 * { ... itkNewMacro(Self); ... MyScale MakeCudaFunctor() const override { return { this->GetFactor() }; } };
 * \endcode
 *
 * The functor's operator() takes an input pixel and returns one the output
 * converts from (`__host__ __device__`, const); the functor is copied to the
 * kernels by value. Its pixels are the kernels' (CudaDevicePixelType): the
 * image's pixel type for scalars, CudaVectorPixel<T, N> for ITK's
 * fixed-length vectors, so the kernels are instantiated for those. CudaElementwiseImageFilter gives the rest: the CPU
 * parent without a GPU (or with GPUEnabled off), in-place runs, streamed
 * pieces (CudaTransformRegion reads the piece's box directly), the split
 * across devices, progress and abort between pieces.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage, typename TFunctor, typename TParentImageFilter>
class ITK_TEMPLATE_EXPORT CudaUnaryFunctorImageFilter
  : public CudaElementwiseImageFilter<TInputImage, TOutputImage, TParentImageFilter>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaUnaryFunctorImageFilter);

  using Self = CudaUnaryFunctorImageFilter;
  using Superclass = CudaElementwiseImageFilter<TInputImage, TOutputImage, TParentImageFilter>;
  using GPUSuperclass = Superclass;
  using CPUSuperclass = TParentImageFilter;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkCudaTypeMacro(CudaUnaryFunctorImageFilter, CudaElementwiseImageFilter);

  using typename Superclass::InputPixelType;
  using typename Superclass::OutputPixelType;
  using CudaFunctorType = TFunctor;
  /** The pixels as the kernels see them. */
  using InputDevicePixelType = CudaDevicePixelType<InputPixelType>;
  using OutputDevicePixelType = CudaDevicePixelType<OutputPixelType>;

  /** The device functor the kernels apply (distinct from the CPU parent's
   * functor, ITK's, which runs without a GPU). */
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
  CudaUnaryFunctorImageFilter() = default;
  ~CudaUnaryFunctorImageFilter() override = default;

  /** The functor of this update: GetCudaFunctor() by default. A filter whose
   * functor holds the CPU parent's parameters (a shift, a constant)
   * overrides this to fill them in, so that both paths use one setting. */
  virtual CudaFunctorType
  MakeCudaFunctor() const
  {
    return m_CudaFunctor;
  }

  void
  GPUComputeElements(const InputPixelType * in, OutputPixelType * out, size_t count, cudaStream_t stream) override
  {
    CudaTransformElements(count, CudaAsDevicePixels(in), CudaAsDevicePixels(out), this->MakeCudaFunctor(), stream);
  }

  void
  GPUComputeRegion(const InputPixelType *     in,
                   const CudaRegionGeometry & geometry,
                   OutputPixelType *          out,
                   cudaStream_t               stream) override
  {
    CudaTransformRegion(CudaAsDevicePixels(in), geometry, CudaAsDevicePixels(out), this->MakeCudaFunctor(), stream);
  }

private:
  CudaFunctorType m_CudaFunctor{};
};
} // namespace itk

#endif
