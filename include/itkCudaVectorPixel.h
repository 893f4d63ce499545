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
#ifndef itkCudaVectorPixel_h
#define itkCudaVectorPixel_h

/** \file itkCudaVectorPixel.h
 * \brief The device-side stand-in of ITK's fixed-length vector pixels, for
 * the host compiler and nvcc alike (no ITK headers).
 * \ingroup CudaCommon
 */

#include <cuda_runtime_api.h> // __host__, __device__

namespace itk
{
/** \class CudaVectorPixel
 * \brief N components of T, laid out as itk::Vector<T, N>,
 * itk::CovariantVector<T, N> and itk::FixedArray<T, N> are (an array of N
 * T and nothing else), with the component-wise arithmetic ITK's vectors
 * have, on the host and the device.
 *
 * The functor filters hand pixels of those ITK types to the kernels as this
 * type (CudaDevicePixel in itkCudaPixelTraits.h), since ITK's own operators
 * are host code: a functor written for scalars, such as CudaAddFunctor, then
 * computes on vectors what ITK's functor computes on them, in the order ITK
 * computes it (each component in T). Kernels for vector pixels are
 * instantiated with this type (`ITK_CUDA_INSTANTIATE_BINARY_FUNCTOR(F,
 * itk::CudaVectorPixel<float, 3>, ...)`).
 * \ingroup CudaCommon */
template <typename T, unsigned int VLength>
struct CudaVectorPixel
{
  using ComponentType = T;
  static constexpr unsigned int Length = VLength;

  T Value[VLength];

  __host__ __device__ T &
  operator[](unsigned int i)
  {
    return Value[i];
  }
  __host__ __device__ const T &
  operator[](unsigned int i) const
  {
    return Value[i];
  }

  __host__ __device__ CudaVectorPixel
  operator+(const CudaVectorPixel & other) const
  {
    CudaVectorPixel result;
    for (unsigned int i = 0; i < VLength; ++i)
    {
      result.Value[i] = static_cast<T>(Value[i] + other.Value[i]);
    }
    return result;
  }

  __host__ __device__ CudaVectorPixel
  operator-(const CudaVectorPixel & other) const
  {
    CudaVectorPixel result;
    for (unsigned int i = 0; i < VLength; ++i)
    {
      result.Value[i] = static_cast<T>(Value[i] - other.Value[i]);
    }
    return result;
  }

  __host__ __device__ CudaVectorPixel
  operator-() const
  {
    CudaVectorPixel result;
    for (unsigned int i = 0; i < VLength; ++i)
    {
      result.Value[i] = static_cast<T>(-Value[i]);
    }
    return result;
  }

  /** Each component times a scalar, in T (as itk::Vector's operator*). */
  __host__ __device__ CudaVectorPixel
  operator*(T factor) const
  {
    CudaVectorPixel result;
    for (unsigned int i = 0; i < VLength; ++i)
    {
      result.Value[i] = static_cast<T>(Value[i] * factor);
    }
    return result;
  }

  __host__ __device__ bool
  operator==(const CudaVectorPixel & other) const
  {
    for (unsigned int i = 0; i < VLength; ++i)
    {
      if (!(Value[i] == other.Value[i]))
      {
        return false;
      }
    }
    return true;
  }
  __host__ __device__ bool
  operator!=(const CudaVectorPixel & other) const
  {
    return !(*this == other);
  }
};
} // namespace itk

#endif
