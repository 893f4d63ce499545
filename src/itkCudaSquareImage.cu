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
#include "itkCudaSquareImage.hcu"

#include <type_traits>

namespace itk
{
namespace
{
// Floating-point pixels are squared in their own precision (a float product
// rounded once equals ITK's double product rounded to float); integers go
// through double like NumericTraits<T>::RealType on the CPU.
template <typename T>
using SquareRealType = typename std::conditional<std::is_floating_point<T>::value, T, double>::type;

template <typename T>
__global__ void
SquareKernel(size_t numberOfPixels, const T * __restrict__ in, T * __restrict__ out)
{
  const size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < numberOfPixels; i += stride)
  {
    const SquareRealType<T> value = static_cast<SquareRealType<T>>(in[i]);
    out[i] = static_cast<T>(value * value);
  }
}

// In-place variant: `in` and `out` alias, so no __restrict__.
template <typename T>
__global__ void
SquareInPlaceKernel(size_t numberOfPixels, T * data)
{
  const size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < numberOfPixels; i += stride)
  {
    const SquareRealType<T> value = static_cast<SquareRealType<T>>(data[i]);
    data[i] = static_cast<T>(value * value);
  }
}

constexpr unsigned int squareBlockSize = 256;
} // namespace

template <typename T>
void
CudaSquareImage(size_t numberOfPixels, const T * in, T * out, cudaStream_t stream)
{
  if (numberOfPixels == 0)
  {
    return;
  }
  const unsigned int blocks = CudaGridSizeForElements(numberOfPixels, squareBlockSize);
  if (in == out)
  {
    SquareInPlaceKernel<T><<<blocks, squareBlockSize, 0, stream>>>(numberOfPixels, out);
  }
  else
  {
    SquareKernel<T><<<blocks, squareBlockSize, 0, stream>>>(numberOfPixels, in, out);
  }
  CUDA_CHECK_KERNEL_LAUNCH("SquareKernel");
}

template <typename T>
void
CudaSquareImage2D(int size[2], T * in, T * out)
{
  CudaSquareImage<T>(static_cast<size_t>(size[0]) * static_cast<size_t>(size[1]), in, out);
}

template <typename T>
void
CudaSquareImage3D(int size[3], T * in, T * out)
{
  CudaSquareImage<T>(static_cast<size_t>(size[0]) * static_cast<size_t>(size[1]) * static_cast<size_t>(size[2]), in,
                     out);
}

#define ITK_CUDA_SQUARE_INSTANTIATE(T)                                                       \
  template CudaCommon_EXPORT void CudaSquareImage<T>(size_t, const T *, T *, cudaStream_t); \
  template CudaCommon_EXPORT void CudaSquareImage2D<T>(int[2], T *, T *);                  \
  template CudaCommon_EXPORT void CudaSquareImage3D<T>(int[3], T *, T *)

ITK_CUDA_SQUARE_INSTANTIATE(float);
ITK_CUDA_SQUARE_INSTANTIATE(double);
ITK_CUDA_SQUARE_INSTANTIATE(int);
ITK_CUDA_SQUARE_INSTANTIATE(unsigned int);
ITK_CUDA_SQUARE_INSTANTIATE(unsigned long);
ITK_CUDA_SQUARE_INSTANTIATE(short);
ITK_CUDA_SQUARE_INSTANTIATE(unsigned short);
ITK_CUDA_SQUARE_INSTANTIATE(unsigned char);
ITK_CUDA_SQUARE_INSTANTIATE(signed char);

#undef ITK_CUDA_SQUARE_INSTANTIATE
} // namespace itk
