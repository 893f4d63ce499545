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

// The kernels of CudaSqrtImageFilter, CudaExpImageFilter and
// CudaLogImageFilter, float and double pixels.
#define ITK_CUDA_ELEMENTARY_INSTANTIATE(FUNCTION, T)                                                                \
  using Cuda##FUNCTION##Functor_##T = itk::Cuda##FUNCTION##Functor<T, T>;                                         \
  ITK_CUDA_INSTANTIATE_UNARY_FUNCTOR(Cuda##FUNCTION##Functor_##T, T, T)

ITK_CUDA_ELEMENTARY_INSTANTIATE(Sqrt, float);
ITK_CUDA_ELEMENTARY_INSTANTIATE(Sqrt, double);
ITK_CUDA_ELEMENTARY_INSTANTIATE(Exp, float);
ITK_CUDA_ELEMENTARY_INSTANTIATE(Exp, double);
ITK_CUDA_ELEMENTARY_INSTANTIATE(Log, float);
ITK_CUDA_ELEMENTARY_INSTANTIATE(Log, double);
