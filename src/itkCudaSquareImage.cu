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
#define ITK_CUDA_FUNCTOR_EXPORT CudaCommon_EXPORT
#include "itkCudaFunctorKernels.cuh"
#include "itkCudaFunctors.h"
#include "itkCudaSquareImage.hcu"

// The square filter's kernels: the element-wise kernels with CudaSquareFunctor.
namespace itk
{
template <typename T>
void
CudaSquareImage(size_t numberOfPixels, const T * in, T * out, cudaStream_t stream)
{
  CudaTransformElements(numberOfPixels, in, out, CudaSquareFunctor<T>{}, stream);
}

template <typename T>
void
CudaSquareImageRegion(const T * in, const CudaRegionGeometry & geometry, T * out, cudaStream_t stream)
{
  CudaTransformRegion(in, geometry, out, CudaSquareFunctor<T>{}, stream);
}

template <typename T>
void
CudaSquareImage2D(int size[2], T * in, T * out)
{
  CudaSquareImage<T>(static_cast<size_t>(size[0]) * static_cast<size_t>(size[1]), in, out);
}

template <typename T>
void
CudaSquareImage3D(int size[3], T * in, T * out)
{
  CudaSquareImage<T>(static_cast<size_t>(size[0]) * static_cast<size_t>(size[1]) * static_cast<size_t>(size[2]), in,
                     out);
}

#define ITK_CUDA_SQUARE_INSTANTIATE(T)                                                        \
  template CudaCommon_EXPORT void CudaSquareImage<T>(size_t, const T *, T *, cudaStream_t); \
  template CudaCommon_EXPORT void CudaSquareImage2D<T>(int[2], T *, T *);                  \
  template CudaCommon_EXPORT void CudaSquareImage3D<T>(int[3], T *, T *);                  \
  template CudaCommon_EXPORT void CudaSquareImageRegion<T>(const T *, const CudaRegionGeometry &, T *, cudaStream_t); \
  ITK_CUDA_INSTANTIATE_UNARY_FUNCTOR(CudaSquareFunctor<T>, T, T)

ITK_CUDA_SQUARE_INSTANTIATE(float);
ITK_CUDA_SQUARE_INSTANTIATE(double);
ITK_CUDA_SQUARE_INSTANTIATE(int);
ITK_CUDA_SQUARE_INSTANTIATE(unsigned int);
ITK_CUDA_SQUARE_INSTANTIATE(unsigned long);
ITK_CUDA_SQUARE_INSTANTIATE(short);
ITK_CUDA_SQUARE_INSTANTIATE(unsigned short);
ITK_CUDA_SQUARE_INSTANTIATE(unsigned char);
ITK_CUDA_SQUARE_INSTANTIATE(signed char);

#undef ITK_CUDA_SQUARE_INSTANTIATE
} // namespace itk
