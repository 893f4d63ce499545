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

// CudaCastImageFilter's kernels: every pair of unsigned char, short,
// unsigned short, int, float and double.
#define ITK_CUDA_CAST_INSTANTIATE(TIn, TOut)                                                                        \
  using CudaCastFunctor_##TIn##_##TOut = itk::CudaCastFunctor<TIn, TOut>;                                          \
  ITK_CUDA_INSTANTIATE_UNARY_FUNCTOR(CudaCastFunctor_##TIn##_##TOut, TIn, TOut)
#define ITK_CUDA_CAST_INSTANTIATE_FROM(TIn)                                                                         \
  ITK_CUDA_CAST_INSTANTIATE(TIn, uchar);                                                                           \
  ITK_CUDA_CAST_INSTANTIATE(TIn, short);                                                                           \
  ITK_CUDA_CAST_INSTANTIATE(TIn, ushort);                                                                          \
  ITK_CUDA_CAST_INSTANTIATE(TIn, int);                                                                             \
  ITK_CUDA_CAST_INSTANTIATE(TIn, float);                                                                           \
  ITK_CUDA_CAST_INSTANTIATE(TIn, double)

using uchar = unsigned char;
using ushort = unsigned short;
ITK_CUDA_CAST_INSTANTIATE_FROM(uchar);
ITK_CUDA_CAST_INSTANTIATE_FROM(short);
ITK_CUDA_CAST_INSTANTIATE_FROM(ushort);
ITK_CUDA_CAST_INSTANTIATE_FROM(int);
ITK_CUDA_CAST_INSTANTIATE_FROM(float);
ITK_CUDA_CAST_INSTANTIATE_FROM(double);
