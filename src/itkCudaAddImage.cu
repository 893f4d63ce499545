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

// CudaAddImageFilter's kernels, for its pixel types (two images, or one and
// a constant); vectors as the kernels see them (itkCudaPixelTraits.h).
#define ITK_CUDA_ADD_INSTANTIATE(T)                                                                                 \
  using CudaAddFunctor_##T = itk::CudaAddFunctor<T, T, T>;                                                         \
  ITK_CUDA_INSTANTIATE_BINARY_FUNCTOR(CudaAddFunctor_##T, T, T, T)

using schar = signed char;
using uchar = unsigned char;
using ushort = unsigned short;
using uint = unsigned int;
using ulong = unsigned long;
ITK_CUDA_ADD_INSTANTIATE(float);
ITK_CUDA_ADD_INSTANTIATE(double);
ITK_CUDA_ADD_INSTANTIATE(int);
ITK_CUDA_ADD_INSTANTIATE(uint);
ITK_CUDA_ADD_INSTANTIATE(ulong);
ITK_CUDA_ADD_INSTANTIATE(short);
ITK_CUDA_ADD_INSTANTIATE(ushort);
ITK_CUDA_ADD_INSTANTIATE(uchar);
ITK_CUDA_ADD_INSTANTIATE(schar);
using VectorFloat2 = itk::CudaVectorPixel<float, 2>;
using VectorFloat3 = itk::CudaVectorPixel<float, 3>;
using VectorFloat4 = itk::CudaVectorPixel<float, 4>;
ITK_CUDA_ADD_INSTANTIATE(VectorFloat2);
ITK_CUDA_ADD_INSTANTIATE(VectorFloat3);
ITK_CUDA_ADD_INSTANTIATE(VectorFloat4);
