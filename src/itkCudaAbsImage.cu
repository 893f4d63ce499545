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

// CudaAbsImageFilter's kernels, for its pixel types, in both of ITK's
// definitions of the absolute value (the filter picks that of its ITK).
#define ITK_CUDA_ABS_INSTANTIATE(T)                                                                                 \
  using CudaStdAbsFunctor_##T = itk::CudaAbsFunctor<T, T, true>;                                                   \
  using CudaVnlAbsFunctor_##T = itk::CudaAbsFunctor<T, T, false>;                                                  \
  ITK_CUDA_INSTANTIATE_UNARY_FUNCTOR(CudaStdAbsFunctor_##T, T, T);                                                 \
  ITK_CUDA_INSTANTIATE_UNARY_FUNCTOR(CudaVnlAbsFunctor_##T, T, T)

using schar = signed char;
using uchar = unsigned char;
using ushort = unsigned short;
using uint = unsigned int;
using ulong = unsigned long;
ITK_CUDA_ABS_INSTANTIATE(float);
ITK_CUDA_ABS_INSTANTIATE(double);
ITK_CUDA_ABS_INSTANTIATE(int);
ITK_CUDA_ABS_INSTANTIATE(uint);
ITK_CUDA_ABS_INSTANTIATE(ulong);
ITK_CUDA_ABS_INSTANTIATE(short);
ITK_CUDA_ABS_INSTANTIATE(ushort);
ITK_CUDA_ABS_INSTANTIATE(uchar);
ITK_CUDA_ABS_INSTANTIATE(schar);
