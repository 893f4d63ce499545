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
#include "itkCudaVectorPixel.h"

// The kernels of CudaSubtractImageFilter, CudaMultiplyImageFilter,
// CudaMaximumImageFilter, CudaMinimumImageFilter, CudaDivideImageFilter and
// CudaDivideOrZeroOutImageFilter for their pixel types
// (two images, or one and a constant): Add's scalars, and for the difference
// Add's vectors too (displacement fields).
#define ITK_CUDA_ARITHMETIC_INSTANTIATE(FUNCTOR, T)                                                                \
  using FUNCTOR##_##T = itk::FUNCTOR<T, T, T>;                                                                     \
  ITK_CUDA_INSTANTIATE_BINARY_FUNCTOR(FUNCTOR##_##T, T, T, T)
#define ITK_CUDA_SCALAR_ARITHMETIC_INSTANTIATE(FUNCTOR)                                                            \
  ITK_CUDA_ARITHMETIC_INSTANTIATE(FUNCTOR, float);                                                                 \
  ITK_CUDA_ARITHMETIC_INSTANTIATE(FUNCTOR, double);                                                                \
  ITK_CUDA_ARITHMETIC_INSTANTIATE(FUNCTOR, int);                                                                   \
  ITK_CUDA_ARITHMETIC_INSTANTIATE(FUNCTOR, uint);                                                                  \
  ITK_CUDA_ARITHMETIC_INSTANTIATE(FUNCTOR, ulong);                                                                 \
  ITK_CUDA_ARITHMETIC_INSTANTIATE(FUNCTOR, short);                                                                 \
  ITK_CUDA_ARITHMETIC_INSTANTIATE(FUNCTOR, ushort);                                                                \
  ITK_CUDA_ARITHMETIC_INSTANTIATE(FUNCTOR, uchar);                                                                 \
  ITK_CUDA_ARITHMETIC_INSTANTIATE(FUNCTOR, schar)

using schar = signed char;
using uchar = unsigned char;
using ushort = unsigned short;
using uint = unsigned int;
using ulong = unsigned long;
using VectorFloat2 = itk::CudaVectorPixel<float, 2>;
using VectorFloat3 = itk::CudaVectorPixel<float, 3>;
using VectorFloat4 = itk::CudaVectorPixel<float, 4>;
ITK_CUDA_SCALAR_ARITHMETIC_INSTANTIATE(CudaSubtractFunctor);
ITK_CUDA_ARITHMETIC_INSTANTIATE(CudaSubtractFunctor, VectorFloat2);
ITK_CUDA_ARITHMETIC_INSTANTIATE(CudaSubtractFunctor, VectorFloat3);
ITK_CUDA_ARITHMETIC_INSTANTIATE(CudaSubtractFunctor, VectorFloat4);
ITK_CUDA_SCALAR_ARITHMETIC_INSTANTIATE(CudaMultiplyFunctor);
ITK_CUDA_SCALAR_ARITHMETIC_INSTANTIATE(CudaMaximumFunctor);
ITK_CUDA_SCALAR_ARITHMETIC_INSTANTIATE(CudaMinimumFunctor);
ITK_CUDA_ARITHMETIC_INSTANTIATE(CudaDivideFunctor, float);
ITK_CUDA_ARITHMETIC_INSTANTIATE(CudaDivideFunctor, double);
ITK_CUDA_ARITHMETIC_INSTANTIATE(CudaDivideFunctor, int);
ITK_CUDA_ARITHMETIC_INSTANTIATE(CudaDivideFunctor, uint);
ITK_CUDA_ARITHMETIC_INSTANTIATE(CudaDivideFunctor, short);
ITK_CUDA_ARITHMETIC_INSTANTIATE(CudaDivideFunctor, ushort);
ITK_CUDA_ARITHMETIC_INSTANTIATE(CudaDivideFunctor, uchar);
ITK_CUDA_ARITHMETIC_INSTANTIATE(CudaDivideOrZeroOutFunctor, float);
ITK_CUDA_ARITHMETIC_INSTANTIATE(CudaDivideOrZeroOutFunctor, double);
