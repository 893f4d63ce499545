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
} // namespace

void
AddConstant(size_t n, const float * in, float * out, float value)
{
  AddConstantKernel<<<CudaGridSizeForElements(n, 256), 256>>>(n, in, out, value);
  CUDA_CHECK_KERNEL_LAUNCH("AddConstantKernel");
}

void
Fill(size_t n, float * out, float value)
{
  FillKernel<<<CudaGridSizeForElements(n, 256), 256>>>(n, out, value);
  CUDA_CHECK_KERNEL_LAUNCH("FillKernel");
}

void
LaunchWithInvalidConfiguration()
{
  FillKernel<<<1, 4096>>>(0, nullptr, 0.0f);
  CUDA_CHECK_KERNEL_LAUNCH("FillKernel");
}
} // namespace CudaTest
} // namespace itk
