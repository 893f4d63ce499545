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

// The kernels of CudaBinaryThresholdImageFilter (to unsigned char and to the
// input's type) and CudaThresholdImageFilter, for their pixel types.
#define ITK_CUDA_THRESHOLD_INSTANTIATE(T)                                                                           \
  using CudaBinaryThresholdFunctor_##T##_uchar = itk::CudaBinaryThresholdFunctor<T, uchar>;                        \
  using CudaBinaryThresholdFunctor_##T##_##T = itk::CudaBinaryThresholdFunctor<T, T>;                              \
  using CudaThresholdFunctor_##T = itk::CudaThresholdFunctor<T>;                                                   \
  ITK_CUDA_INSTANTIATE_UNARY_FUNCTOR(CudaBinaryThresholdFunctor_##T##_uchar, T, uchar);                            \
  ITK_CUDA_INSTANTIATE_UNARY_FUNCTOR(CudaThresholdFunctor_##T, T, T)
#define ITK_CUDA_BINARY_THRESHOLD_TO_SAME_INSTANTIATE(T)                                                            \
  ITK_CUDA_INSTANTIATE_UNARY_FUNCTOR(CudaBinaryThresholdFunctor_##T##_##T, T, T)

using uchar = unsigned char;
using ushort = unsigned short;
ITK_CUDA_THRESHOLD_INSTANTIATE(uchar);
ITK_CUDA_THRESHOLD_INSTANTIATE(short);
ITK_CUDA_THRESHOLD_INSTANTIATE(ushort);
ITK_CUDA_THRESHOLD_INSTANTIATE(float);
ITK_CUDA_THRESHOLD_INSTANTIATE(double);
ITK_CUDA_BINARY_THRESHOLD_TO_SAME_INSTANTIATE(short);
ITK_CUDA_BINARY_THRESHOLD_TO_SAME_INSTANTIATE(ushort);
ITK_CUDA_BINARY_THRESHOLD_TO_SAME_INSTANTIATE(float);
ITK_CUDA_BINARY_THRESHOLD_TO_SAME_INSTANTIATE(double);
