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

// CudaShiftScaleImageFilter's kernels: each type to itself (unsigned char,
// short, float, double), and float and double to unsigned char.
#define ITK_CUDA_SHIFT_SCALE_INSTANTIATE(TIn, TOut)                                                                 \
  using CudaShiftScaleFunctor_##TIn##_##TOut = itk::CudaShiftScaleFunctor<TIn, TOut>;                              \
  ITK_CUDA_INSTANTIATE_UNARY_FUNCTOR(CudaShiftScaleFunctor_##TIn##_##TOut, TIn, TOut)

using uchar = unsigned char;
ITK_CUDA_SHIFT_SCALE_INSTANTIATE(uchar, uchar);
ITK_CUDA_SHIFT_SCALE_INSTANTIATE(short, short);
ITK_CUDA_SHIFT_SCALE_INSTANTIATE(float, float);
ITK_CUDA_SHIFT_SCALE_INSTANTIATE(double, double);
ITK_CUDA_SHIFT_SCALE_INSTANTIATE(float, uchar);
ITK_CUDA_SHIFT_SCALE_INSTANTIATE(double, uchar);
