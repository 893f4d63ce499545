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
#include "itkCudaRegionGeometry.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

// CudaFillBoxAsync and CudaCopyBoxAsync: row-wise kernels over the words of
// the pixels they write (the widest of 8, 4, 2 or 1 bytes that divides the
// pixel; the fill's pixel passed by value in the launch); a copy of a box
// that is one contiguous range on both sides is a cudaMemcpyAsync.

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

// Rows (x fastest) are walked by blockIdx.y, grid-stride; the words of a
// row by the threads of blockIdx.x: one division per row, none per word
// for pixels of one word.
template <typename TWord>
__global__ void
FillBox(TWord * out, FillDomain domain, FillPixel<TWord> pixel)
{
  const size_t rows = domain.Size[1] * domain.Size[2];
  const size_t rowWords = domain.Size[0] * pixel.Count;
  for (size_t row = blockIdx.y; row < rows; row += gridDim.y)
  {
    const size_t y = domain.Start[1] + row % domain.Size[1];
    const size_t z = domain.Start[2] + row / domain.Size[1];
    const bool   rowInInner = domain.SkipInner && y - domain.InnerStart[1] < domain.InnerSize[1] &&
                            z - domain.InnerStart[2] < domain.InnerSize[2]; // unsigned: below the start wraps
    TWord *      line = out + ((z * domain.BufferSize[1] + y) * domain.BufferSize[0] + domain.Start[0]) * pixel.Count;
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < rowWords;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
    {
      const size_t       p = pixel.Count == 1 ? i : i / pixel.Count;
      const unsigned int word = static_cast<unsigned int>(i - p * pixel.Count);
      if (rowInInner && domain.Start[0] + p - domain.InnerStart[0] < domain.InnerSize[0])
      {
        continue;
      }
      line[i] = pixel.Words[word];
    }
  }
}

/** Blocks for a row-wise kernel: as many along x as a row's words need (at
 * most 64), one per row along y up to 65535 (the rest grid-stride). */
dim3
RowGrid(size_t rowWords, size_t rows)
{
  const size_t x = std::min<size_t>((rowWords + BlockSize - 1) / BlockSize, 64);
  const size_t y = std::min<size_t>(rows, 65535);
  return dim3(static_cast<unsigned int>(std::max<size_t>(x, 1)), static_cast<unsigned int>(std::max<size_t>(y, 1)));
}

template <typename TWord>
void
LaunchFill(void * out, const FillDomain & domain, const void * pixel, size_t pixelBytes, cudaStream_t stream)
{
  FillPixel<TWord> words{};
  std::memcpy(words.Words, pixel, pixelBytes);
  words.Count = static_cast<unsigned int>(pixelBytes / sizeof(TWord));
  FillBox<TWord><<<RowGrid(domain.Size[0] * words.Count, domain.Size[1] * domain.Size[2]), BlockSize, 0, stream>>>(
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
  const size_t rows = domain.Size[1] * domain.Size[2];
  const size_t rowWords = domain.Size[0] * domain.Words;
  for (size_t row = blockIdx.y; row < rows; row += gridDim.y)
  {
    const size_t  y = row % domain.Size[1];
    const size_t  z = row / domain.Size[1];
    const TWord * from =
      in + (((z + domain.InStart[2]) * domain.InSize[1] + y + domain.InStart[1]) * domain.InSize[0] + domain.InStart[0]) *
             domain.Words;
    TWord * to = out + (((z + domain.OutStart[2]) * domain.OutSize[1] + y + domain.OutStart[1]) * domain.OutSize[0] +
                        domain.OutStart[0]) *
                         domain.Words;
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < rowWords;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
    {
      to[i] = from[i];
    }
  }
}

template <typename TWord>
void
LaunchCopy(void * out, const void * in, CopyDomain domain, size_t pixelBytes, cudaStream_t stream)
{
  domain.Words = static_cast<unsigned int>(pixelBytes / sizeof(TWord));
  CopyBox<TWord><<<RowGrid(domain.Size[0] * domain.Words, domain.Size[1] * domain.Size[2]), BlockSize, 0, stream>>>(
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
  // One contiguous range on both sides (whole rows, whole planes): one copy.
  const auto contiguous = [&size](const CudaBufferBox & box) {
    return (size[0] == box.BufferSize[0] || (size[1] == 1 && size[2] == 1)) &&
           (size[1] == box.BufferSize[1] || size[2] == 1);
  };
  if (contiguous(inBox) && contiguous(outBox))
  {
    const auto start = [pixelBytes](const CudaBufferBox & box) {
      return ((box.Offset[2] * box.BufferSize[1] + box.Offset[1]) * box.BufferSize[0] + box.Offset[0]) * pixelBytes;
    };
    CUDA_CHECK(cudaMemcpyAsync(static_cast<char *>(out) + start(outBox),
                               static_cast<const char *>(in) + start(inBox),
                               size[0] * size[1] * size[2] * pixelBytes,
                               cudaMemcpyDeviceToDevice,
                               stream));
    return;
  }
  CopyBoxWithKernel(out, outBox, in, inBox, size, pixelBytes, stream);
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
