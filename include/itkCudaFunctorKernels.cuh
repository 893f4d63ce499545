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
#ifndef itkCudaFunctorKernels_cuh
#define itkCudaFunctorKernels_cuh

/** \file itkCudaFunctorKernels.cuh
 * \brief The element-wise kernels behind CudaUnaryFunctorImageFilter and
 * CudaBinaryFunctorImageFilter, and the macros that instantiate them: for
 * nvcc only (a `.cu` file of yours), no ITK headers.
 *
 * \code
 * // MyScale.cu
 * #include "itkCudaFunctorKernels.cuh"
 * #include "MyScaleFunctor.h" // struct MyScale { float Factor; __host__ __device__ float operator()(float) const; };
 * ITK_CUDA_INSTANTIATE_UNARY_FUNCTOR(MyScale, float, float);
 * \endcode
 *
 * The pixel types are those the kernels see: the image's pixel type for
 * scalars, itk::CudaVectorPixel<T, N> for itk::Vector<T, N>,
 * itk::CovariantVector<T, N> and itk::FixedArray<T, N> (CudaDevicePixel in
 * itkCudaPixelTraits.h), whose operators are host code.
 *
 * Each argument of the macros is one type name: give a template with commas
 * (`CudaAddFunctor<short, short, int>`) a `using` alias first. In a shared
 * library built with hidden visibility, define ITK_CUDA_FUNCTOR_EXPORT to
 * the export attribute before including this header.
 *
 * How the kernels move memory: pixels are read and written in packs of 16
 * bytes of the widest pixel type (one load or store instruction per pack),
 * one pack per thread over a grid that covers them all, from the first
 * element at which every pointer is aligned for a pack; the few pixels
 * before it and after the last whole pack go one at a time. Pixel types that
 * are not aligned to their size, a power of two (vector pixels such as
 * itk::CudaVectorPixel<float, 3>), go one pixel at a time.
 * \ingroup CudaCommon
 */

#include "itkCudaFunctorLaunch.h"
#include "itkCudaKernelLaunch.hcu"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#ifndef ITK_CUDA_FUNCTOR_EXPORT
#  define ITK_CUDA_FUNCTOR_EXPORT
#endif

namespace itk
{
namespace CudaFunctorDetail
{
constexpr unsigned int BlockSize = 256;

template <typename T, unsigned int N>
struct alignas(sizeof(T) * N) Pack
{
  T Value[N];
};

constexpr bool
IsPowerOfTwo(size_t value)
{
  return value != 0 && (value & (value - 1)) == 0;
}

/** Pixels per pack for these pixel types: 16 bytes of the widest. Packs
 * need pixels aligned to their size (a power of two): a vector pixel, aligned
 * to its component, goes one pixel at a time. */
template <typename... T>
constexpr unsigned int
PackSize()
{
  constexpr size_t widest = std::max({ sizeof(T)... });
  constexpr bool   packable = ((IsPowerOfTwo(sizeof(T)) && alignof(T) == sizeof(T)) && ...);
  return packable && widest <= 16 ? static_cast<unsigned int>(16 / widest) : 1u;
}

/** Elements before the first at which `pointer` is aligned for packs of N. */
template <unsigned int N, typename T>
size_t
PackHead(const T * pointer)
{
  constexpr size_t packBytes = sizeof(T) * N;
  return (packBytes - reinterpret_cast<uintptr_t>(pointer) % packBytes) % packBytes / sizeof(T);
}

/** The work of one launch of a pack kernel: pixels [0, Count), of which
 * Head come before the first aligned pack, then Packs whole packs, then the
 * tail; this launch takes packs [FirstPack, FirstPack + PackCount) and, when
 * it holds the last of them, the Head and tail pixels. */
struct PackLaunch
{
  size_t Count;
  size_t Head;
  size_t Packs;
  size_t FirstPack;
  size_t PackCount;
};

/** Thread `thread` of a launch: true with the index of its pack (relative to
 * the first aligned pixel), or false with `*scalar` the index of its single
 * pixel (head or tail), or false with `*scalar` = Count when it has no work. */
template <unsigned int N>
__device__ __forceinline__ bool
PackOrScalar(const PackLaunch & launch, size_t thread, size_t * pack, size_t * scalar)
{
  if (thread < launch.PackCount)
  {
    *pack = launch.FirstPack + thread;
    return true;
  }
  const size_t body = launch.Packs * N;
  const size_t s = thread - launch.PackCount;
  const bool   last = launch.FirstPack + launch.PackCount == launch.Packs;
  *scalar = last && s < launch.Count - body ? (s < launch.Head ? s : body + s) : launch.Count;
  return false;
}

// One pack per thread over a grid that covers every pack, no loop; the
// threads past the packs take the few pixels before and after them. Measured
// on an H200 at 512^3 this reaches the device-to-device copy's bandwidth,
// where a grid-stride loop of a few waves with two packs in flight per thread
// stayed at 94 to 96 % and, for bytes, the same kernel with a grid-stride
// loop and the scalar pixels first at 96.6 % (docs/performance.md). Correct
// in place too: each thread reads only the pixels it writes.
template <unsigned int N, typename TInput, typename TOutput, typename TFunctor>
__device__ __forceinline__ void
UnaryPixels(const PackLaunch & launch, const TInput * in, TOutput * out, const TFunctor & functor)
{
  size_t pack = 0;
  size_t scalar = 0;
  if (PackOrScalar<N>(launch, static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x, &pack, &scalar))
  {
    using InPack = Pack<TInput, N>;
    using OutPack = Pack<TOutput, N>;
    const InPack source = reinterpret_cast<const InPack *>(in + launch.Head)[pack];
    OutPack      result;
#pragma unroll
    for (unsigned int k = 0; k < N; ++k)
    {
      result.Value[k] = static_cast<TOutput>(functor(source.Value[k]));
    }
    reinterpret_cast<OutPack *>(out + launch.Head)[pack] = result;
  }
  else if (scalar < launch.Count)
  {
    out[scalar] = static_cast<TOutput>(functor(in[scalar]));
  }
}

template <unsigned int N, typename TInput, typename TOutput, typename TFunctor>
__global__ void
UnaryKernel(PackLaunch launch, const TInput * __restrict__ in, TOutput * __restrict__ out, TFunctor functor)
{
  UnaryPixels<N>(launch, in, out, functor);
}

// In place: `in` and `out` are the same memory, so no __restrict__.
template <unsigned int N, typename TInput, typename TOutput, typename TFunctor>
__global__ void
UnaryInPlaceKernel(PackLaunch launch, const TInput * in, TOutput * out, TFunctor functor)
{
  UnaryPixels<N>(launch, in, out, functor);
}

// One pixel per thread and iteration: pixels whose size is not a power of two.
template <typename TInput, typename TOutput, typename TFunctor>
__global__ void
UnaryScalarKernel(size_t count, const TInput * in, TOutput * out, TFunctor functor)
{
  const size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
  {
    out[i] = static_cast<TOutput>(functor(in[i]));
  }
}

template <unsigned int N, typename TInput1, typename TInput2, typename TOutput, typename TFunctor>
__device__ __forceinline__ void
BinaryPixels(const PackLaunch & launch,
             const TInput1 *    in1,
             const TInput2 *    in2,
             TOutput *          out,
             const TFunctor &   functor)
{
  size_t pack = 0;
  size_t scalar = 0;
  if (PackOrScalar<N>(launch, static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x, &pack, &scalar))
  {
    using Pack1 = Pack<TInput1, N>;
    using Pack2 = Pack<TInput2, N>;
    using OutPack = Pack<TOutput, N>;
    const Pack1 first = reinterpret_cast<const Pack1 *>(in1 + launch.Head)[pack];
    const Pack2 second = reinterpret_cast<const Pack2 *>(in2 + launch.Head)[pack];
    OutPack     result;
#pragma unroll
    for (unsigned int k = 0; k < N; ++k)
    {
      result.Value[k] = static_cast<TOutput>(functor(first.Value[k], second.Value[k]));
    }
    reinterpret_cast<OutPack *>(out + launch.Head)[pack] = result;
  }
  else if (scalar < launch.Count)
  {
    out[scalar] = static_cast<TOutput>(functor(in1[scalar], in2[scalar]));
  }
}

template <unsigned int N, typename TInput1, typename TInput2, typename TOutput, typename TFunctor>
__global__ void
BinaryKernel(PackLaunch                   launch,
             const TInput1 * __restrict__ in1,
             const TInput2 * __restrict__ in2,
             TOutput * __restrict__       out,
             TFunctor                     functor)
{
  BinaryPixels<N>(launch, in1, in2, out, functor);
}

// The output is the memory of one of the inputs (or both inputs are one).
template <unsigned int N, typename TInput1, typename TInput2, typename TOutput, typename TFunctor>
__global__ void
BinaryAliasedKernel(PackLaunch launch, const TInput1 * in1, const TInput2 * in2, TOutput * out, TFunctor functor)
{
  BinaryPixels<N>(launch, in1, in2, out, functor);
}

template <typename TInput1, typename TInput2, typename TOutput, typename TFunctor>
__global__ void
BinaryScalarKernel(size_t count, const TInput1 * in1, const TInput2 * in2, TOutput * out, TFunctor functor)
{
  const size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
  {
    out[i] = static_cast<TOutput>(functor(in1[i], in2[i]));
  }
}

template <typename TInput, typename TOutput, typename TFunctor>
__global__ void
RegionKernel(const TInput * __restrict__ in, CudaRegionGeometry geometry, TOutput * __restrict__ out,
             TFunctor functor)
{
  // The box's rows are contiguous: reads stay coalesced along x.
  const size_t rowLength = geometry.OutputSize[0];
  const size_t sliceLength = rowLength * geometry.OutputSize[1];
  const size_t total = sliceLength * geometry.OutputSize[2];
  const size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride)
  {
    const size_t z = i / sliceLength;
    const size_t y = (i - z * sliceLength) / rowLength;
    const size_t x = i - z * sliceLength - y * rowLength;
    const size_t source =
      ((z + geometry.Offset[2]) * geometry.InputSize[1] + (y + geometry.Offset[1])) * geometry.InputSize[0] +
      (x + geometry.Offset[0]);
    out[i] = static_cast<TOutput>(functor(in[source]));
  }
}

/** Refuse pointers misaligned for their pixel types before any launch (on
 * the device they would be a sticky fault that ends the context): `names`
 * and the pointers' misalignments and alignments, one per pointer. */
template <size_t VCount>
void
CheckAlignment(const char * function,
               const char * const (&names)[VCount],
               const size_t (&misalignments)[VCount],
               const size_t (&alignments)[VCount])
{
  bool   aligned = true;
  bool   oneAlignment = true;
  for (size_t k = 0; k < VCount; ++k)
  {
    aligned = aligned && misalignments[k] == 0;
    oneAlignment = oneAlignment && alignments[k] == alignments[0];
  }
  if (aligned)
  {
    return;
  }
  std::string location = std::string(function) + ": expected pixel pointers aligned to ";
  for (size_t k = 0; k < VCount && !(oneAlignment && k > 0); ++k)
  {
    location += (k > 0 ? ", " : "") + std::to_string(alignments[k]);
  }
  location += " bytes, got";
  for (size_t k = 0; k < VCount; ++k)
  {
    location += std::string(k == 0 ? " " : k + 1 == VCount ? " and " : ", ") + names[k] + " at " +
                std::to_string(misalignments[k]);
  }
  location += " bytes past such a boundary";
  CudaCheckError(cudaErrorMisalignedAddress, __FILE__, __LINE__, location.c_str());
}

template <typename T>
size_t
Misalignment(const T * pointer)
{
  return reinterpret_cast<uintptr_t>(pointer) % alignof(T);
}

/** Blocks for one thread per element (at least one, at most 2^31 - 1). */
inline unsigned int
BlocksForEveryElement(size_t elements)
{
  const size_t blocks = (elements + BlockSize - 1) / BlockSize;
  return static_cast<unsigned int>(std::min<size_t>(std::max<size_t>(blocks, 1), 0x7fffffff));
}

/** Call `launch(work, blocks)` for each launch of a pack kernel over `count`
 * pixels whose first aligned pack starts at pixel `head`: one launch, but
 * past 2^31 - 1 blocks of packs (8 TiB of bytes) as many as it takes. */
template <unsigned int N, typename TLaunch>
void
ForEachPackLaunch(size_t count, size_t head, TLaunch && launch)
{
  const size_t start = std::min(count, head);
  const size_t packs = (count - start) / N;
  const size_t scalars = count - packs * N;
  const size_t maximumPacks = size_t{ 0x7fffffff } * BlockSize - scalars;
  size_t       first = 0;
  do
  {
    const size_t packCount = std::min(packs - first, maximumPacks);
    const size_t threads = packCount + (first + packCount == packs ? scalars : 0);
    launch(PackLaunch{ count, start, packs, first, packCount }, BlocksForEveryElement(threads));
    first += packCount;
  } while (first < packs);
}

/** Launch the unary kernel with packs of N pixels when `in` and `out` are
 * aligned for them at the same element, else with half as many. */
template <unsigned int N, typename TInput, typename TOutput, typename TFunctor>
void
LaunchUnary(size_t count, const TInput * in, TOutput * out, const TFunctor & functor, cudaStream_t stream)
{
  if constexpr (N > 1)
  {
    const size_t head = PackHead<N>(in);
    if (head != PackHead<N>(out))
    {
      LaunchUnary<N / 2>(count, in, out, functor, stream);
      return;
    }
    const bool inPlace = static_cast<const void *>(in) == static_cast<const void *>(out);
    ForEachPackLaunch<N>(count, head, [&](const PackLaunch & launch, unsigned int blocks) {
      if (inPlace)
      {
        UnaryInPlaceKernel<N><<<blocks, BlockSize, 0, stream>>>(launch, in, out, functor);
      }
      else
      {
        UnaryKernel<N><<<blocks, BlockSize, 0, stream>>>(launch, in, out, functor);
      }
    });
  }
  else
  {
    UnaryScalarKernel<<<BlocksForEveryElement(count), BlockSize, 0, stream>>>(count, in, out, functor);
  }
}

template <unsigned int N, typename TInput1, typename TInput2, typename TOutput, typename TFunctor>
void
LaunchBinary(size_t           count,
             const TInput1 *  in1,
             const TInput2 *  in2,
             TOutput *        out,
             const TFunctor & functor,
             cudaStream_t     stream)
{
  if constexpr (N > 1)
  {
    const size_t head = PackHead<N>(in1);
    if (head != PackHead<N>(in2) || head != PackHead<N>(out))
    {
      LaunchBinary<N / 2>(count, in1, in2, out, functor, stream);
      return;
    }
    const void * output = out;
    const bool   aliased = output == static_cast<const void *>(in1) || output == static_cast<const void *>(in2);
    ForEachPackLaunch<N>(count, head, [&](const PackLaunch & launch, unsigned int blocks) {
      if (aliased)
      {
        BinaryAliasedKernel<N><<<blocks, BlockSize, 0, stream>>>(launch, in1, in2, out, functor);
      }
      else
      {
        BinaryKernel<N><<<blocks, BlockSize, 0, stream>>>(launch, in1, in2, out, functor);
      }
    });
  }
  else
  {
    BinaryScalarKernel<<<BlocksForEveryElement(count), BlockSize, 0, stream>>>(count, in1, in2, out,
                                                                                              functor);
  }
}
} // namespace CudaFunctorDetail

template <typename TInput, typename TOutput, typename TFunctor>
void
CudaTransformElements(size_t count, const TInput * in, TOutput * out, const TFunctor & functor, cudaStream_t stream)
{
  if (count == 0)
  {
    return;
  }
  CudaFunctorDetail::CheckAlignment("CudaTransformElements",
                                    { "in", "out" },
                                    { CudaFunctorDetail::Misalignment(in), CudaFunctorDetail::Misalignment(out) },
                                    { alignof(TInput), alignof(TOutput) });
  CudaFunctorDetail::LaunchUnary<CudaFunctorDetail::PackSize<TInput, TOutput>()>(count, in, out, functor, stream);
  CUDA_CHECK_KERNEL_LAUNCH("CudaTransformElements");
}

template <typename TInput, typename TOutput, typename TFunctor>
void
CudaTransformRegion(const TInput *             in,
                    const CudaRegionGeometry & geometry,
                    TOutput *                  out,
                    const TFunctor &           functor,
                    cudaStream_t               stream)
{
  for (int d = 0; d < 3; ++d)
  {
    if (geometry.Offset[d] + geometry.OutputSize[d] > geometry.InputSize[d])
    {
      CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__, "CudaTransformRegion: the box leaves the input");
    }
  }
  const size_t total = geometry.OutputSize[0] * geometry.OutputSize[1] * geometry.OutputSize[2];
  if (total == 0)
  {
    return;
  }
  CudaFunctorDetail::CheckAlignment("CudaTransformRegion",
                                    { "in", "out" },
                                    { CudaFunctorDetail::Misalignment(in), CudaFunctorDetail::Misalignment(out) },
                                    { alignof(TInput), alignof(TOutput) });
  CudaFunctorDetail::RegionKernel<<<CudaFunctorDetail::BlocksForEveryElement(total),
                                    CudaFunctorDetail::BlockSize,
                                    0,
                                    stream>>>(in, geometry, out, functor);
  CUDA_CHECK_KERNEL_LAUNCH("CudaTransformRegion");
}

template <typename TInput1, typename TInput2, typename TOutput, typename TFunctor>
void
CudaTransformElements(size_t           count,
                      const TInput1 *  in1,
                      const TInput2 *  in2,
                      TOutput *        out,
                      const TFunctor & functor,
                      cudaStream_t     stream)
{
  if (count == 0)
  {
    return;
  }
  CudaFunctorDetail::CheckAlignment("CudaTransformElements",
                                    { "in1", "in2", "out" },
                                    { CudaFunctorDetail::Misalignment(in1),
                                      CudaFunctorDetail::Misalignment(in2),
                                      CudaFunctorDetail::Misalignment(out) },
                                    { alignof(TInput1), alignof(TInput2), alignof(TOutput) });
  CudaFunctorDetail::LaunchBinary<CudaFunctorDetail::PackSize<TInput1, TInput2, TOutput>()>(
    count, in1, in2, out, functor, stream);
  CUDA_CHECK_KERNEL_LAUNCH("CudaTransformElements");
}
} // namespace itk

/** Instantiate the launch functions of unary filters for `TFunctor` from
 * `TInput` to `TOutput` pixels (each one type name). */
#define ITK_CUDA_INSTANTIATE_UNARY_FUNCTOR(TFunctor, TInput, TOutput)                                               \
  template ITK_CUDA_FUNCTOR_EXPORT void itk::CudaTransformElements<TInput, TOutput, TFunctor>(                       \
    size_t, const TInput *, TOutput *, const TFunctor &, cudaStream_t);                                            \
  template ITK_CUDA_FUNCTOR_EXPORT void itk::CudaTransformRegion<TInput, TOutput, TFunctor>(                         \
    const TInput *, const itk::CudaRegionGeometry &, TOutput *, const TFunctor &, cudaStream_t)

/** Instantiate the launch functions of binary filters for `TFunctor`: two
 * images, and one image with the other input a constant (each one type name). */
#define ITK_CUDA_INSTANTIATE_BINARY_FUNCTOR(TFunctor, TInput1, TInput2, TOutput)                                    \
  template ITK_CUDA_FUNCTOR_EXPORT void itk::CudaTransformElements<TInput1, TInput2, TOutput, TFunctor>(            \
    size_t, const TInput1 *, const TInput2 *, TOutput *, const TFunctor &, cudaStream_t);                          \
  template ITK_CUDA_FUNCTOR_EXPORT void                                                                            \
  itk::CudaTransformElements<TInput2, TOutput, itk::CudaBindFirst<TFunctor, TInput1>>(                             \
    size_t, const TInput2 *, TOutput *, const itk::CudaBindFirst<TFunctor, TInput1> &, cudaStream_t);              \
  template ITK_CUDA_FUNCTOR_EXPORT void                                                                            \
  itk::CudaTransformElements<TInput1, TOutput, itk::CudaBindSecond<TFunctor, TInput2>>(                            \
    size_t, const TInput1 *, TOutput *, const itk::CudaBindSecond<TFunctor, TInput2> &, cudaStream_t)

#endif
