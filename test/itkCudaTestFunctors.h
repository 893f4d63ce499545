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
#ifndef itkCudaTestFunctors_h
#define itkCudaTestFunctors_h

// A functor of the test suite's own, written as a user of the functor base
// writes one: for the host compiler (the CPU parent, the filter class) and
// nvcc (itkCudaTestKernels.cu instantiates its kernels).

#include <cuda_runtime_api.h>

namespace itk
{
namespace CudaTest
{
struct ScaleAndShift
{
  float Scale{ 1.0f };
  float Shift{ 0.0f };
  __host__ __device__ float
  operator()(float pixel) const
  {
    return pixel * Scale + Shift;
  }
};

/** short to float pixels: an output wider than the input. */
struct WidenAndScale
{
  float Scale{ 1.0f };
  __host__ __device__ float
  operator()(short pixel) const
  {
    return static_cast<float>(pixel) * Scale;
  }
};
} // namespace CudaTest
} // namespace itk

#endif
