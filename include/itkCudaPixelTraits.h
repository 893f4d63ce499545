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
#ifndef itkCudaPixelTraits_h
#define itkCudaPixelTraits_h

/** \file itkCudaPixelTraits.h
 * \brief Which type the kernels of the functor filters see for an ITK
 * pixel type (host code: it names ITK's types).
 * \ingroup CudaCommon
 */

#include "itkCovariantVector.h"
#include "itkFixedArray.h"
#include "itkVector.h"
#include "itkCudaVectorPixel.h"

#include <cstring>
#include <type_traits>

namespace itk
{
/** \class CudaDevicePixel
 * \brief `Type` is what a kernel of CudaUnaryFunctorImageFilter or
 * CudaBinaryFunctorImageFilter reads and writes for pixels of TPixel: TPixel
 * itself for scalars; CudaVectorPixel<T, N> for itk::Vector<T, N>,
 * itk::CovariantVector<T, N> and itk::FixedArray<T, N>, whose memory it
 * shares. Specialize it for a pixel type of your own whose operators are
 * host code (the device type must have TPixel's size and layout).
 * \ingroup CudaCommon */
template <typename TPixel>
struct CudaDevicePixel
{
  using Type = TPixel;
};

template <typename T, unsigned int N>
struct CudaDevicePixel<Vector<T, N>>
{
  using Type = CudaVectorPixel<T, N>;
};

template <typename T, unsigned int N>
struct CudaDevicePixel<CovariantVector<T, N>>
{
  using Type = CudaVectorPixel<T, N>;
};

template <typename T, unsigned int N>
struct CudaDevicePixel<FixedArray<T, N>>
{
  using Type = CudaVectorPixel<T, N>;
};

template <typename TPixel>
using CudaDevicePixelType = typename CudaDevicePixel<TPixel>::Type;

/** A buffer of TPixel as the kernels see it. */
template <typename TPixel>
CudaDevicePixelType<TPixel> *
CudaAsDevicePixels(TPixel * pixels)
{
  using DeviceType = CudaDevicePixelType<TPixel>;
  static_assert(sizeof(DeviceType) == sizeof(TPixel) && alignof(DeviceType) == alignof(TPixel),
                "CudaDevicePixel: the device type must have the pixel type's size and alignment");
  static_assert(std::is_trivially_copyable<DeviceType>::value, "CudaDevicePixel: the device type must be trivially copyable");
  return reinterpret_cast<DeviceType *>(pixels);
}

template <typename TPixel>
const CudaDevicePixelType<TPixel> *
CudaAsDevicePixels(const TPixel * pixels)
{
  return CudaAsDevicePixels(const_cast<TPixel *>(pixels));
}

/** One pixel value (a filter's constant) as the kernels see it. */
template <typename TPixel>
CudaDevicePixelType<TPixel>
CudaAsDevicePixel(const TPixel & pixel)
{
  CudaDevicePixelType<TPixel> value;
  std::memcpy(static_cast<void *>(&value), static_cast<const void *>(CudaAsDevicePixels(&pixel)), sizeof(value));
  return value;
}
} // namespace itk

#endif
