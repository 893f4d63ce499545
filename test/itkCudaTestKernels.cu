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
#include "itkCudaKernelLaunch.hcu"
#include "itkCudaTestKernels.hcu"

namespace itk
{
namespace CudaTest
{
namespace
{
__global__ void
AddConstantKernel(size_t n, const float * in, float * out, float value)
{
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<size_t>(blockDim.x) * gridDim.x)
  {
    out[i] = in[i] + value;
  }
}

__global__ void
FillKernel(size_t n, float * out, float value)
{
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<size_t>(blockDim.x) * gridDim.x)
  {
    out[i] = value;
  }
}

__global__ void
SpinKernel(long long nanoseconds)
{
  long long elapsed = 0;
  // __nanosleep() sleeps at most about 1 ms a call: loop on the global timer.
  unsigned long long begin = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(begin));
  while (elapsed < nanoseconds)
  {
    __nanosleep(100000);
    unsigned long long now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    elapsed = static_cast<long long>(now - begin);
  }
}
} // namespace

void
AddConstant(size_t n, const float * in, float * out, float value, cudaStream_t stream)
{
  AddConstantKernel<<<CudaGridSizeForElements(n, 256), 256, 0, stream>>>(n, in, out, value);
  CUDA_CHECK_KERNEL_LAUNCH("AddConstantKernel");
}

void
Fill(size_t n, float * out, float value, cudaStream_t stream)
{
  FillKernel<<<CudaGridSizeForElements(n, 256), 256, 0, stream>>>(n, out, value);
  CUDA_CHECK_KERNEL_LAUNCH("FillKernel");
}

void
Spin(double milliseconds, cudaStream_t stream)
{
  SpinKernel<<<1, 1, 0, stream>>>(static_cast<long long>(milliseconds * 1e6));
  CUDA_CHECK_KERNEL_LAUNCH("SpinKernel");
}

void
LaunchWithInvalidConfiguration()
{
  FillKernel<<<1, 4096>>>(0, nullptr, 0.0f);
  CUDA_CHECK_KERNEL_LAUNCH("FillKernel");
}
} // namespace CudaTest
} // namespace itk

// The test functor's kernels, as a project instantiates its own.
#include "itkCudaFunctorKernels.cuh"
#include "itkCudaTestFunctors.h"
ITK_CUDA_INSTANTIATE_UNARY_FUNCTOR(itk::CudaTest::ScaleAndShift, float, float);
ITK_CUDA_INSTANTIATE_UNARY_FUNCTOR(itk::CudaTest::WidenAndScale, short, float);
// An element-wise filter of mixed pixel sizes (1, 4 and 8 bytes): ITK's
// AddImageFilter of unsigned char and float images into double.
#include "itkCudaFunctors.h"
using MixedAddFunctor = itk::CudaAddFunctor<unsigned char, float, double>;
ITK_CUDA_INSTANTIATE_BINARY_FUNCTOR(MixedAddFunctor, unsigned char, float, double);
