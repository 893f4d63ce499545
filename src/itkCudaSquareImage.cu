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

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace itk
{
namespace
{
// Floating-point pixels are squared in their own precision (a float product
// rounded once equals ITK's double product rounded to float); wider integers
// go through double like NumericTraits<T>::RealType on the CPU.
template <typename T>
using SquareRealType = typename std::conditional<std::is_floating_point<T>::value, T, double>::type;

template <typename T>
__device__ __forceinline__ T
SquarePixel(T pixel)
{
  if constexpr (std::is_integral<T>::value && sizeof(T) <= 2)
  {
    // The square of an 8- or 16-bit integer is exact in 32 bits, as it is in
    // double, and the conversion keeps the low bits just as cvt.rzi.s32/u32.f64
    // followed by a narrow store does: the same result for every input, without
    // two 64-bit conversions per pixel (16/clock/SM on sm_90, too slow for
    // 1-byte pixels at full memory bandwidth).
    const uint32_t value = static_cast<uint32_t>(pixel);
    return static_cast<T>(value * value);
  }
  else
  {
    const SquareRealType<T> value = static_cast<SquareRealType<T>>(pixel);
    return static_cast<T>(value * value);
  }
}

// VectorBytes of consecutive pixels, moved by one load and one store.
template <typename T, unsigned int VectorBytes>
struct alignas(VectorBytes) PixelVector
{
  static_assert(VectorBytes % sizeof(T) == 0, "a vector holds whole pixels");
  static constexpr unsigned int Size = VectorBytes / sizeof(T);
  T                             pixel[Size];
};

template <typename T, unsigned int VectorBytes>
__device__ __forceinline__ PixelVector<T, VectorBytes>
SquareVector(const PixelVector<T, VectorBytes> & in)
{
  PixelVector<T, VectorBytes> out;
#pragma unroll
  for (unsigned int k = 0; k < PixelVector<T, VectorBytes>::Size; ++k)
  {
    out.pixel[k] = SquarePixel(in.pixel[k]);
  }
  return out;
}

// Pixels [0, head) and [head + numberOfVectors * Size, numberOfPixels) are
// squared one by one (misaligned start, remainder: fewer than 2 * Size in all);
// the aligned middle as whole vectors in a grid-stride loop. 16-byte accesses
// move the most bytes per memory instruction (a warp's request is 512 bytes
// instead of 32 for 1-byte pixels), so fewer, wider transactions and fewer
// instructions carry the same traffic. Two vectors per iteration, both loaded
// before either is stored, keep 32 bytes per thread in flight: a full SM then
// has 64 KiB of reads outstanding, about twice what H200's bandwidth x latency
// (4.8 TB/s x ~0.7 us over 132 SMs) needs, where one vector would only just
// cover it. Loading both first is also correct when `in` and `out` are the
// same memory: each thread reads only the pixels it writes.
template <typename T, unsigned int VectorBytes>
__device__ __forceinline__ void
SquarePixels(size_t numberOfPixels, size_t head, size_t numberOfVectors, const T * in, T * out)
{
  using Vector = PixelVector<T, VectorBytes>;
  const size_t thread = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;

  const size_t bodyEnd = head + numberOfVectors * Vector::Size;
  if (thread < head + (numberOfPixels - bodyEnd))
  {
    const size_t i = thread < head ? thread : bodyEnd + (thread - head);
    out[i] = SquarePixel(in[i]);
  }

  const Vector * vectorIn = reinterpret_cast<const Vector *>(in + head);
  Vector *       vectorOut = reinterpret_cast<Vector *>(out + head);
  size_t         v = thread;
  for (; v + stride < numberOfVectors; v += 2 * stride)
  {
    const Vector first = vectorIn[v];
    const Vector second = vectorIn[v + stride];
    vectorOut[v] = SquareVector(first);
    vectorOut[v + stride] = SquareVector(second);
  }
  if (v < numberOfVectors)
  {
    const Vector last = vectorIn[v];
    vectorOut[v] = SquareVector(last);
  }
}

template <typename T, unsigned int VectorBytes>
__global__ void
SquareKernel(size_t numberOfPixels, size_t head, size_t numberOfVectors, const T * __restrict__ in,
             T * __restrict__ out)
{
  SquarePixels<T, VectorBytes>(numberOfPixels, head, numberOfVectors, in, out);
}

// In-place variant: `in` and `out` alias, so no __restrict__.
template <typename T>
__global__ void
SquareInPlaceKernel(size_t numberOfPixels, size_t head, size_t numberOfVectors, T * data)
{
  SquarePixels<T, 16>(numberOfPixels, head, numberOfVectors, data, data);
}

constexpr unsigned int squareBlockSize = 256;

// Where the vectors of VectorBytes start (`in`, and so `out`, congruent modulo
// VectorBytes, is aligned there) and how many there are.
struct VectorSplit
{
  size_t       Head;
  size_t       NumberOfVectors;
  unsigned int Blocks;
};

template <typename T, unsigned int VectorBytes>
VectorSplit
SplitIntoVectors(size_t numberOfPixels, const T * in)
{
  const size_t misalignment = reinterpret_cast<uintptr_t>(in) % VectorBytes;
  const size_t head = std::min(numberOfPixels, (VectorBytes - misalignment) % VectorBytes / sizeof(T));
  const size_t numberOfVectors = (numberOfPixels - head) / PixelVector<T, VectorBytes>::Size;
  // At least one block, whose threads cover the < 2 * Size scalar pixels.
  return { head, numberOfVectors, CudaGridSizeForElements(numberOfVectors, squareBlockSize) };
}

// The widest vector, from VectorBytes down to one pixel, for which `in` and
// `out` are equally misaligned.
template <typename T, unsigned int VectorBytes>
void
LaunchSquareKernel(size_t numberOfPixels, const T * in, T * out, cudaStream_t stream)
{
  if constexpr (VectorBytes > sizeof(T))
  {
    if ((reinterpret_cast<uintptr_t>(in) - reinterpret_cast<uintptr_t>(out)) % VectorBytes != 0)
    {
      LaunchSquareKernel<T, VectorBytes / 2>(numberOfPixels, in, out, stream);
      return;
    }
  }
  const VectorSplit split = SplitIntoVectors<T, VectorBytes>(numberOfPixels, in);
  SquareKernel<T, VectorBytes>
    <<<split.Blocks, squareBlockSize, 0, stream>>>(numberOfPixels, split.Head, split.NumberOfVectors, in, out);
}
} // namespace

template <typename T>
void
CudaSquareImage(size_t numberOfPixels, const T * in, T * out, cudaStream_t stream)
{
  if (numberOfPixels == 0)
  {
    return;
  }
  const size_t inMisalignment = reinterpret_cast<uintptr_t>(in) % alignof(T);
  const size_t outMisalignment = reinterpret_cast<uintptr_t>(out) % alignof(T);
  if (inMisalignment != 0 || outMisalignment != 0)
  {
    // Refused here: on the device it would be a sticky fault that ends the context.
    const std::string location = "CudaSquareImage: expected pixel pointers aligned to " + std::to_string(alignof(T)) +
                                 " bytes, got in at " + std::to_string(inMisalignment) + " and out at " +
                                 std::to_string(outMisalignment) + " bytes past such a boundary";
    CudaCheckError(cudaErrorMisalignedAddress, __FILE__, __LINE__, location.c_str());
  }
  if (in == out)
  {
    const VectorSplit split = SplitIntoVectors<T, 16>(numberOfPixels, out);
    SquareInPlaceKernel<T>
      <<<split.Blocks, squareBlockSize, 0, stream>>>(numberOfPixels, split.Head, split.NumberOfVectors, out);
  }
  else
  {
    // 16-byte vectors for every CudaImage buffer (cudaMalloc aligns to 256).
    LaunchSquareKernel<T, 16>(numberOfPixels, in, out, stream);
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

namespace
{
// Streaming: the output is a box inside the input's buffer. One thread per
// output pixel (grid-stride, 64-bit); the box's rows are contiguous, so reads
// stay coalesced along x.
template <typename T>
__global__ void
SquareRegionKernel(const T * __restrict__ in, CudaRegionGeometry geometry, T * __restrict__ out)
{
  const size_t rowLength = geometry.OutputSize[0];
  const size_t sliceLength = rowLength * geometry.OutputSize[1];
  const size_t total = sliceLength * geometry.OutputSize[2];
  const size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride)
  {
    const size_t z = i / sliceLength;
    const size_t y = (i - z * sliceLength) / rowLength;
    const size_t x = i - z * sliceLength - y * rowLength;
    const size_t source = ((z + geometry.Offset[2]) * geometry.InputSize[1] + (y + geometry.Offset[1])) *
                            geometry.InputSize[0] +
                          (x + geometry.Offset[0]);
    out[i] = SquarePixel<T>(in[source]);
  }
}
} // namespace

template <typename T>
void
CudaSquareImageRegion(const T * in, const CudaRegionGeometry & geometry, T * out, cudaStream_t stream)
{
  for (int d = 0; d < 3; ++d)
  {
    if (geometry.Offset[d] + geometry.OutputSize[d] > geometry.InputSize[d])
    {
      CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__, "CudaSquareImageRegion: the box leaves the input");
    }
  }
  const size_t total = geometry.OutputSize[0] * geometry.OutputSize[1] * geometry.OutputSize[2];
  if (total == 0)
  {
    return;
  }
  SquareRegionKernel<T><<<CudaGridSizeForElements(total, 256), 256, 0, stream>>>(in, geometry, out);
  CUDA_CHECK_KERNEL_LAUNCH("SquareRegionKernel");
}

#define ITK_CUDA_SQUARE_INSTANTIATE(T)                                                       \
  template CudaCommon_EXPORT void CudaSquareImage<T>(size_t, const T *, T *, cudaStream_t); \
  template CudaCommon_EXPORT void CudaSquareImage2D<T>(int[2], T *, T *);                  \
  template CudaCommon_EXPORT void CudaSquareImage3D<T>(int[3], T *, T *);                  \
  template CudaCommon_EXPORT void CudaSquareImageRegion<T>(const T *, const CudaRegionGeometry &, T *, cudaStream_t)

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
