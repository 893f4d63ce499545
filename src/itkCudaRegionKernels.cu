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
#include "itkCudaRegionGeometry.h"

#include <cstdint>
#include <cstring>

// CudaFillBoxAsync and the copies of CudaCopyBoxAsync into a box of a larger
// buffer: one grid-stride kernel over the words of the pixels it writes (the
// widest of 8, 4, 2 or 1 bytes that divides the pixel; the fill's pixel
// passed by value in the launch). A copy into a whole compact buffer is a
// strided cudaMemcpy3DAsync instead (src/itkCudaRegionGeometry.cxx).

namespace itk
{
namespace
{
constexpr unsigned int BlockSize = 256;
constexpr size_t       MaxPixelBytes = 64;

template <typename TWord>
struct FillPixel
{
  TWord        Words[MaxPixelBytes / sizeof(TWord)];
  unsigned int Count; // words per pixel
};

// The pixels it walks: a box of Size at Start in a buffer of BufferSize; with
// SkipInner, those of the inner box (InnerStart, InnerSize) are left alone.
struct FillDomain
{
  size_t BufferSize[3];
  size_t Start[3];
  size_t Size[3];
  size_t InnerStart[3];
  size_t InnerSize[3];
  bool   SkipInner;
};

__device__ inline bool
InsideInner(const FillDomain & domain, size_t x, size_t y, size_t z)
{
  return x - domain.InnerStart[0] < domain.InnerSize[0] && y - domain.InnerStart[1] < domain.InnerSize[1] &&
         z - domain.InnerStart[2] < domain.InnerSize[2]; // unsigned: below the start wraps to large
}

template <typename TWord>
__global__ void
FillBox(TWord * out, FillDomain domain, FillPixel<TWord> pixel)
{
  const size_t words = domain.Size[0] * domain.Size[1] * domain.Size[2] * pixel.Count;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
  {
    const size_t       p = i / pixel.Count;
    const unsigned int word = static_cast<unsigned int>(i - p * pixel.Count);
    const size_t       x = domain.Start[0] + p % domain.Size[0];
    const size_t       yz = p / domain.Size[0];
    const size_t       y = domain.Start[1] + yz % domain.Size[1];
    const size_t       z = domain.Start[2] + yz / domain.Size[1];
    if (domain.SkipInner && InsideInner(domain, x, y, z))
    {
      continue;
    }
    out[((z * domain.BufferSize[1] + y) * domain.BufferSize[0] + x) * pixel.Count + word] = pixel.Words[word];
  }
}

template <typename TWord>
void
LaunchFill(void * out, const FillDomain & domain, const void * pixel, size_t pixelBytes, cudaStream_t stream)
{
  FillPixel<TWord> words{};
  std::memcpy(words.Words, pixel, pixelBytes);
  words.Count = static_cast<unsigned int>(pixelBytes / sizeof(TWord));
  const size_t count = domain.Size[0] * domain.Size[1] * domain.Size[2] * words.Count;
  FillBox<TWord><<<CudaGridSizeForElements(count, BlockSize), BlockSize, 0, stream>>>(
    static_cast<TWord *>(out), domain, words);
  CUDA_CHECK_KERNEL_LAUNCH("FillBox");
}
// A copy of a box of Size pixels (Words words each) from InStart in a buffer
// of InSize to OutStart in a buffer of OutSize.
struct CopyDomain
{
  size_t       InSize[3];
  size_t       InStart[3];
  size_t       OutSize[3];
  size_t       OutStart[3];
  size_t       Size[3];
  unsigned int Words;
};

template <typename TWord>
__global__ void
CopyBox(TWord * out, const TWord * in, CopyDomain domain)
{
  const size_t words = domain.Size[0] * domain.Size[1] * domain.Size[2] * domain.Words;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
  {
    const size_t p = i / domain.Words;
    const size_t word = i - p * domain.Words;
    const size_t x = p % domain.Size[0];
    const size_t yz = p / domain.Size[0];
    const size_t y = yz % domain.Size[1];
    const size_t z = yz / domain.Size[1];
    const size_t from =
      ((z + domain.InStart[2]) * domain.InSize[1] + y + domain.InStart[1]) * domain.InSize[0] + x + domain.InStart[0];
    const size_t to = ((z + domain.OutStart[2]) * domain.OutSize[1] + y + domain.OutStart[1]) * domain.OutSize[0] + x +
                      domain.OutStart[0];
    out[to * domain.Words + word] = in[from * domain.Words + word];
  }
}

template <typename TWord>
void
LaunchCopy(void * out, const void * in, CopyDomain domain, size_t pixelBytes, cudaStream_t stream)
{
  domain.Words = static_cast<unsigned int>(pixelBytes / sizeof(TWord));
  const size_t count = domain.Size[0] * domain.Size[1] * domain.Size[2] * domain.Words;
  CopyBox<TWord><<<CudaGridSizeForElements(count, BlockSize), BlockSize, 0, stream>>>(
    static_cast<TWord *>(out), static_cast<const TWord *>(in), domain);
  CUDA_CHECK_KERNEL_LAUNCH("CopyBox");
}

void
CopyBoxWithKernel(void *                out,
                  const CudaBufferBox & outBox,
                  const void *          in,
                  const CudaBufferBox & inBox,
                  const size_t (&size)[3],
                  size_t       pixelBytes,
                  cudaStream_t stream)
{
  CopyDomain domain{};
  for (int d = 0; d < 3; ++d)
  {
    domain.InSize[d] = inBox.BufferSize[d];
    domain.InStart[d] = inBox.Offset[d];
    domain.OutSize[d] = outBox.BufferSize[d];
    domain.OutStart[d] = outBox.Offset[d];
    domain.Size[d] = size[d];
  }
  if (pixelBytes % 8 == 0)
  {
    LaunchCopy<std::uint64_t>(out, in, domain, pixelBytes, stream);
  }
  else if (pixelBytes % 4 == 0)
  {
    LaunchCopy<std::uint32_t>(out, in, domain, pixelBytes, stream);
  }
  else if (pixelBytes % 2 == 0)
  {
    LaunchCopy<std::uint16_t>(out, in, domain, pixelBytes, stream);
  }
  else
  {
    LaunchCopy<std::uint8_t>(out, in, domain, pixelBytes, stream);
  }
}
} // namespace

void
CudaCopyBoxAsync(void *                out,
                 const CudaBufferBox & outBox,
                 const void *          in,
                 const CudaBufferBox & inBox,
                 const size_t (&size)[3],
                 size_t       pixelBytes,
                 cudaStream_t stream)
{
  for (int d = 0; d < 3; ++d)
  {
    if (inBox.Offset[d] + size[d] > inBox.BufferSize[d])
    {
      CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__, "CudaCopyBoxAsync: the box leaves the input");
    }
    if (outBox.Offset[d] + size[d] > outBox.BufferSize[d])
    {
      CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__, "CudaCopyBoxAsync: the box leaves the output");
    }
  }
  if (size[0] * size[1] * size[2] == 0)
  {
    return;
  }
  const bool compactOutput = outBox.Offset[0] == 0 && outBox.Offset[1] == 0 && outBox.Offset[2] == 0 &&
                             outBox.BufferSize[0] == size[0] && outBox.BufferSize[1] == size[1] &&
                             outBox.BufferSize[2] == size[2];
  if (!compactOutput)
  {
    // Into a box of a larger buffer: a kernel. (cudaMemcpy3DAsync copies it
    // too, but compute-sanitizer's initcheck, CUDA 13.0, then reports part
    // of the box as never written when it is read.)
    CopyBoxWithKernel(out, outBox, in, inBox, size, pixelBytes, stream);
    return;
  }
  cudaMemcpy3DParms copy{};
  copy.srcPtr = make_cudaPitchedPtr(
    const_cast<void *>(in), inBox.BufferSize[0] * pixelBytes, inBox.BufferSize[0], inBox.BufferSize[1]);
  copy.srcPos = make_cudaPos(inBox.Offset[0] * pixelBytes, inBox.Offset[1], inBox.Offset[2]);
  copy.dstPtr = make_cudaPitchedPtr(out, outBox.BufferSize[0] * pixelBytes, outBox.BufferSize[0], outBox.BufferSize[1]);
  copy.dstPos = make_cudaPos(outBox.Offset[0] * pixelBytes, outBox.Offset[1], outBox.Offset[2]);
  copy.extent = make_cudaExtent(size[0] * pixelBytes, size[1], size[2]);
  copy.kind = cudaMemcpyDeviceToDevice;
  CUDA_CHECK(cudaMemcpy3DAsync(&copy, stream));
}

void
CudaFillBoxAsync(void *                out,
                 const CudaBufferBox & box,
                 const size_t (&size)[3],
                 bool         inside,
                 const void * pixel,
                 size_t       pixelBytes,
                 cudaStream_t stream)
{
  if (pixelBytes == 0 || pixelBytes > MaxPixelBytes)
  {
    CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__,
                   "CudaFillBoxAsync: pixels of 1 to 64 bytes are supported");
  }
  FillDomain domain{};
  size_t     fillCount = 1;
  for (int d = 0; d < 3; ++d)
  {
    if (box.Offset[d] + size[d] > box.BufferSize[d])
    {
      CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__, "CudaFillBoxAsync: the box leaves the buffer");
    }
    domain.BufferSize[d] = box.BufferSize[d];
    domain.Start[d] = inside ? box.Offset[d] : 0;
    domain.Size[d] = inside ? size[d] : box.BufferSize[d];
    domain.InnerStart[d] = box.Offset[d];
    domain.InnerSize[d] = size[d];
    fillCount *= domain.Size[d];
  }
  domain.SkipInner = !inside;
  if (fillCount == 0 || (!inside && size[0] * size[1] * size[2] == fillCount))
  {
    return; // nothing to set
  }
  if (pixelBytes % 8 == 0)
  {
    LaunchFill<std::uint64_t>(out, domain, pixel, pixelBytes, stream);
  }
  else if (pixelBytes % 4 == 0)
  {
    LaunchFill<std::uint32_t>(out, domain, pixel, pixelBytes, stream);
  }
  else if (pixelBytes % 2 == 0)
  {
    LaunchFill<std::uint16_t>(out, domain, pixel, pixelBytes, stream);
  }
  else
  {
    LaunchFill<std::uint8_t>(out, domain, pixel, pixelBytes, stream);
  }
}
} // namespace itk
