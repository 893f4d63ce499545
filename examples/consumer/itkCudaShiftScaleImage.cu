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
#include "itkCudaShiftScaleImage.hcu"

#include <limits>

namespace itk
{
// [readme-snippet]
namespace
{
template <typename T>
__global__ void
ShiftScaleKernel(size_t numberOfPixels, const T * in, T * out, double shift, double scale, double lowest, double highest)
{
  const size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < numberOfPixels; i += stride)
  {
    const double value = (static_cast<double>(in[i]) + shift) * scale;
    out[i] = value < lowest ? static_cast<T>(lowest) : value > highest ? static_cast<T>(highest) : static_cast<T>(value);
  }
}
} // namespace

template <typename T>
void
CudaShiftScaleImage(size_t numberOfPixels, const T * in, T * out, double shift, double scale)
{
  if (numberOfPixels == 0)
  {
    return;
  }
  constexpr unsigned int blockSize = 256;
  const unsigned int     blocks = CudaGridSizeForElements(numberOfPixels, blockSize); // grid-stride loop
  ShiftScaleKernel<T><<<blocks, blockSize>>>(numberOfPixels, in, out, shift, scale,
                                             static_cast<double>(std::numeric_limits<T>::lowest()),
                                             static_cast<double>(std::numeric_limits<T>::max()));
  CUDA_CHECK_KERNEL_LAUNCH("ShiftScaleKernel");
}

template void CudaShiftScaleImage<float>(size_t, const float *, float *, double, double);
template void CudaShiftScaleImage<double>(size_t, const double *, double *, double, double);
// [readme-snippet-end]
} // namespace itk
