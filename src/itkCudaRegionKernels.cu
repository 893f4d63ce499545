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

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

// One kernel writes every box of the region filters: each pixel of the
// written box once, from the inner box's buffer or the constant inside the
// inner box, from the outer buffer or the constant (or left alone) outside
// it. Crop/Extract/Paste in place are its copies, ConstantPad and Paste its
// compositions, the fills its constants. A warp's work item is 256 words
// (x fastest) of 16, 8, 4, 2 or 1 bytes: the widest that every address,
// pitch and box edge of the launch allows, so a float box at 16-byte
// multiples moves as uint4. Rows of 256 words or more are cut into items;
// shorter rows are walked as one run of words, an item spanning rows, so no
// lane idles at a row's end. A copy of a box that is one contiguous range on
// both sides is a cudaMemcpyAsync.

namespace itk
{
namespace
{
constexpr unsigned int BlockSize = 256;
constexpr unsigned int WarpsPerBlock = BlockSize / 32;
constexpr size_t       MaxPixelBytes = 64;
constexpr size_t       PieceWords = 32 * 8; // a warp's work item: 8 words per lane at most

enum class Source : unsigned int
{
  Keep,     // left as it is
  Constant, // the pixel passed by value
  Buffer    // copied from a buffer
};

// The constant as words: lcm(pixel, word) bytes, the pixel repeated.
template <typename TWord>
struct Pattern
{
  TWord        Words[MaxPixelBytes / sizeof(TWord)];
  unsigned int Count;
};

// A 3-D buffer seen in words along x: words per row, rows per plane, and
// where the written box's first pixel (or the inner box's, for the inner
// source) is in it.
struct BufferWalk
{
  size_t RowWords;
  size_t Rows;
  size_t Start[3];
};

struct ComposeDomain
{
  BufferWalk   Out;          // Start: the written box
  size_t       Size[3];      // the written box; x in words
  size_t       InnerStart[3]; // the inner box, relative to the written box; x in words
  size_t       InnerSize[3];
  BufferWalk   Inner;         // Start: the inner box's first pixel in the inner buffer
  BufferWalk   Outer;         // Start: the written box's first pixel in the outer buffer
  Source       InnerFrom;
  Source       OuterFrom;
  size_t       Pieces;        // work items per row
};

__device__ inline size_t
RowStart(const BufferWalk & walk, size_t y, size_t z)
{
  return ((walk.Start[2] + z) * walk.Rows + walk.Start[1] + y) * walk.RowWords + walk.Start[0];
}

template <typename TWord, typename TIndex>
__global__ void
ComposeBox(TWord * __restrict__       out,
           const TWord * __restrict__ inner,
           const TWord * __restrict__ outer,
           ComposeDomain               d,
           Pattern<TWord>              constant)
{
  constexpr unsigned int PerLane = PieceWords / 32;
  const unsigned int     lane = threadIdx.x % 32;
  const TIndex           warps = static_cast<TIndex>(gridDim.x) * WarpsPerBlock;
  const size_t           rowWords = d.Size[0];
  const TIndex           items = static_cast<TIndex>(d.Size[1] * d.Size[2] * d.Pieces);
  const TIndex           pieces = static_cast<TIndex>(d.Pieces);
  const TIndex           height = static_cast<TIndex>(d.Size[1]);
  for (TIndex item = static_cast<TIndex>(blockIdx.x) * WarpsPerBlock + threadIdx.x / 32; item < items; item += warps)
  {
    const TIndex row = item / pieces;
    const size_t piece = item - row * pieces;
    const size_t y = row % height;
    const size_t z = row / height;
    // Unsigned: a row before the inner box wraps past its size.
    const bool    rowInner = y - d.InnerStart[1] < d.InnerSize[1] && z - d.InnerStart[2] < d.InnerSize[2];
    const size_t  a = rowInner ? d.InnerStart[0] : 0;
    const size_t  b = rowInner ? a + d.InnerSize[0] : 0;
    TWord *       to = out + RowStart(d.Out, y, z);
    const TWord * from = rowInner && d.InnerFrom == Source::Buffer
                           ? inner + RowStart(d.Inner, y - d.InnerStart[1], z - d.InnerStart[2])
                           : nullptr;
    const TWord * back = d.OuterFrom == Source::Buffer ? outer + RowStart(d.Outer, y, z) : nullptr;
    const size_t  first = piece * PieceWords + lane;
    // All of a lane's loads issued before its stores: several in flight at once.
    TWord value[PerLane];
    bool  write[PerLane];
#pragma unroll
    for (unsigned int k = 0; k < PerLane; ++k)
    {
      const size_t i = first + 32 * k;
      const bool   inside = i >= a && i < b;
      const Source source = inside ? d.InnerFrom : d.OuterFrom;
      write[k] = i < rowWords && source != Source::Keep;
      if (write[k])
      {
        value[k] = source == Source::Constant ? constant.Words[constant.Count == 1 ? 0 : i % constant.Count]
                                              : (inside ? from[i - a] : back[i]);
      }
    }
#pragma unroll
    for (unsigned int k = 0; k < PerLane; ++k)
    {
      if (write[k])
      {
        to[first + 32 * k] = value[k];
      }
    }
  }
}

// Division by a divisor fixed for the launch: a multiply-high, an add and a
// shift (round-up method, valid for every 32-bit dividend).
struct FastDivision
{
  unsigned int Divisor;
  unsigned int Multiplier;
  unsigned int Shift;
};

FastDivision
MakeFastDivision(unsigned int divisor)
{
  unsigned int shift = 0;
  while ((1ull << shift) < divisor)
  {
    ++shift;
  }
  const auto multiplier = static_cast<unsigned int>(((1ull << 32) * ((1ull << shift) - divisor)) / divisor + 1);
  return FastDivision{ divisor, multiplier, shift };
}

__device__ inline unsigned int
Divide(unsigned int n, const FastDivision & f)
{
  return static_cast<unsigned int>((static_cast<unsigned long long>(__umulhi(n, f.Multiplier)) + n) >> f.Shift);
}

// The written box as one run of words (rows one after the other): a warp's
// item is PieceWords consecutive words of it, whatever the rows' length.
template <typename TWord>
__global__ void
ComposeFlat(TWord * __restrict__       out,
            const TWord * __restrict__ inner,
            const TWord * __restrict__ outer,
            ComposeDomain               d,
            FastDivision                rowWords,
            FastDivision                height,
            unsigned int                total,
            Pattern<TWord>              constant)
{
  constexpr unsigned int PerLane = PieceWords / 32;
  const unsigned int     lane = threadIdx.x % 32;
  const unsigned int     warps = gridDim.x * WarpsPerBlock;
  const unsigned int     items = (total + PieceWords - 1) / PieceWords;
  const auto             place = [&](unsigned int j, unsigned int & x, unsigned int & y, unsigned int & z) {
    const unsigned int row = Divide(j, rowWords);
    x = j - row * rowWords.Divisor;
    z = Divide(row, height);
    y = row - z * height.Divisor;
  };
  for (unsigned int item = blockIdx.x * WarpsPerBlock + threadIdx.x / 32; item < items; item += warps)
  {
    const unsigned int first = item * PieceWords + lane;
    TWord              value[PerLane];
    bool               write[PerLane];
#pragma unroll
    for (unsigned int k = 0; k < PerLane; ++k)
    {
      const unsigned int j = first + 32 * k;
      unsigned int       x, y, z;
      place(j, x, y, z);
      const bool inside = static_cast<size_t>(x) - d.InnerStart[0] < d.InnerSize[0] &&
                          static_cast<size_t>(y) - d.InnerStart[1] < d.InnerSize[1] &&
                          static_cast<size_t>(z) - d.InnerStart[2] < d.InnerSize[2];
      const Source source = inside ? d.InnerFrom : d.OuterFrom;
      write[k] = j < total && source != Source::Keep;
      if (write[k])
      {
        if (source == Source::Constant)
        {
          value[k] = constant.Words[constant.Count == 1 ? 0 : x % constant.Count];
        }
        else if (inside)
        {
          value[k] = inner[RowStart(d.Inner, y - d.InnerStart[1], z - d.InnerStart[2]) + x - d.InnerStart[0]];
        }
        else
        {
          value[k] = outer[RowStart(d.Outer, y, z) + x];
        }
      }
    }
#pragma unroll
    for (unsigned int k = 0; k < PerLane; ++k)
    {
      if (write[k])
      {
        unsigned int x, y, z;
        place(first + 32 * k, x, y, z);
        out[RowStart(d.Out, y, z) + x] = value[k];
      }
    }
  }
}

size_t
Gcd(size_t a, size_t b)
{
  while (b != 0)
  {
    const size_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

// What one launch writes, in pixels, before the word size is chosen.
struct ComposeRequest
{
  void *              Out;
  CudaBufferBox       OutBox; // Offset: the written box
  size_t              Size[3];
  size_t              InnerOffset[3]; // in the out buffer
  size_t              InnerSize[3];
  const void *        Inner;
  CudaBufferBox       InnerBox; // Offset: the inner box's first pixel
  const void *        Outer;
  CudaBufferBox       OuterBox; // Offset: the written box's first pixel
  Source              InnerFrom;
  Source              OuterFrom;
  const void *        Pixel;
  size_t              PixelBytes;
};

template <typename TWord>
void
LaunchCompose(const ComposeRequest & r, cudaStream_t stream)
{
  const auto    toWords = [&r](size_t pixels) { return pixels * r.PixelBytes / sizeof(TWord); };
  ComposeDomain d{};
  d.Out = BufferWalk{ toWords(r.OutBox.BufferSize[0]), r.OutBox.BufferSize[1],
                      { toWords(r.OutBox.Offset[0]), r.OutBox.Offset[1], r.OutBox.Offset[2] } };
  d.Inner = BufferWalk{ toWords(r.InnerBox.BufferSize[0]), r.InnerBox.BufferSize[1],
                        { toWords(r.InnerBox.Offset[0]), r.InnerBox.Offset[1], r.InnerBox.Offset[2] } };
  d.Outer = BufferWalk{ toWords(r.OuterBox.BufferSize[0]), r.OuterBox.BufferSize[1],
                        { toWords(r.OuterBox.Offset[0]), r.OuterBox.Offset[1], r.OuterBox.Offset[2] } };
  for (int k = 0; k < 3; ++k)
  {
    d.Size[k] = k == 0 ? toWords(r.Size[0]) : r.Size[k];
    d.InnerStart[k] = k == 0 ? toWords(r.InnerOffset[0] - r.OutBox.Offset[0]) : r.InnerOffset[k] - r.OutBox.Offset[k];
    d.InnerSize[k] = k == 0 ? toWords(r.InnerSize[0]) : r.InnerSize[k];
  }
  d.InnerFrom = r.InnerFrom;
  d.OuterFrom = r.OuterFrom;
  d.Pieces = (d.Size[0] + PieceWords - 1) / PieceWords;

  Pattern<TWord> constant{};
  if (r.Pixel != nullptr)
  {
    const size_t bytes = r.PixelBytes / Gcd(r.PixelBytes, sizeof(TWord)) * sizeof(TWord); // lcm
    for (size_t at = 0; at < bytes; at += r.PixelBytes)
    {
      std::memcpy(reinterpret_cast<char *>(constant.Words) + at, r.Pixel, r.PixelBytes);
    }
    constant.Count = static_cast<unsigned int>(bytes / sizeof(TWord));
  }
  // As many blocks as stay resident on every multiprocessor at once, each
  // walking its items grid-stride (no block waits for another's place).
  const auto launch = [&](auto kernel, size_t items, auto... extra) {
    const size_t blocks =
      std::min<size_t>((items + WarpsPerBlock - 1) / WarpsPerBlock, CudaResidentBlocks(kernel, BlockSize));
    kernel<<<static_cast<unsigned int>(blocks), BlockSize, 0, stream>>>(static_cast<TWord *>(r.Out),
                                                                         static_cast<const TWord *>(r.Inner),
                                                                         static_cast<const TWord *>(r.Outer),
                                                                         d,
                                                                         extra...,
                                                                         constant);
  };
  // 32-bit indices where every word index of the box fits them; rows shorter
  // than a work item walked as one run of words, so no lane idles at a row's end.
  const size_t total = d.Size[0] * d.Size[1] * d.Size[2];
  if (total > static_cast<size_t>(std::numeric_limits<int>::max()) - PieceWords)
  {
    launch(ComposeBox<TWord, size_t>, d.Size[1] * d.Size[2] * d.Pieces);
  }
  else if (d.Size[0] < PieceWords)
  {
    launch(ComposeFlat<TWord>,
           (total + PieceWords - 1) / PieceWords,
           MakeFastDivision(static_cast<unsigned int>(d.Size[0])),
           MakeFastDivision(static_cast<unsigned int>(d.Size[1])),
           static_cast<unsigned int>(total));
  }
  else
  {
    launch(ComposeBox<TWord, unsigned int>, d.Size[1] * d.Size[2] * d.Pieces);
  }
  CUDA_CHECK_KERNEL_LAUNCH("ComposeBox");
}

// The one word-size dispatch: the widest word that divides every address,
// pitch and x extent of the launch, and whose repeat with the pixel fits
// the constant's words.
void
Compose(const ComposeRequest & r, cudaStream_t stream)
{
  if (r.Size[0] * r.Size[1] * r.Size[2] == 0)
  {
    return;
  }
  size_t g = reinterpret_cast<std::uintptr_t>(r.Out);
  const auto add = [&g, &r](size_t pixels) { g = Gcd(g, pixels * r.PixelBytes); };
  add(r.OutBox.BufferSize[0]);
  add(r.OutBox.Offset[0]);
  add(r.Size[0]);
  add(r.InnerOffset[0]);
  add(r.InnerSize[0]);
  if (r.InnerFrom == Source::Buffer)
  {
    g = Gcd(g, reinterpret_cast<std::uintptr_t>(r.Inner));
    add(r.InnerBox.BufferSize[0]);
    add(r.InnerBox.Offset[0]);
  }
  if (r.OuterFrom == Source::Buffer)
  {
    g = Gcd(g, reinterpret_cast<std::uintptr_t>(r.Outer));
    add(r.OuterBox.BufferSize[0]);
    add(r.OuterBox.Offset[0]);
  }
  const auto fits = [&](size_t word) {
    return g % word == 0 && r.PixelBytes / Gcd(r.PixelBytes, word) * word <= MaxPixelBytes;
  };
  if (fits(16))
  {
    LaunchCompose<uint4>(r, stream);
  }
  else if (fits(8))
  {
    LaunchCompose<std::uint64_t>(r, stream);
  }
  else if (fits(4))
  {
    LaunchCompose<std::uint32_t>(r, stream);
  }
  else if (fits(2))
  {
    LaunchCompose<std::uint16_t>(r, stream);
  }
  else
  {
    LaunchCompose<std::uint8_t>(r, stream);
  }
}

void
CheckBox(const CudaBufferBox & box, const size_t (&size)[3], const char * message)
{
  for (int d = 0; d < 3; ++d)
  {
    if (box.Offset[d] + size[d] > box.BufferSize[d])
    {
      CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__, message);
    }
  }
}

void
CheckPixel(size_t pixelBytes)
{
  if (pixelBytes == 0 || pixelBytes > MaxPixelBytes)
  {
    CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__, "region kernels: pixels of 1 to 64 bytes are supported");
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
  CheckBox(inBox, size, "CudaCopyBoxAsync: the box leaves the input");
  CheckBox(outBox, size, "CudaCopyBoxAsync: the box leaves the output");
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
  CheckPixel(pixelBytes);
  ComposeRequest r{};
  r.Out = out;
  r.OutBox = outBox;
  r.Inner = in;
  r.InnerBox = inBox;
  r.InnerFrom = Source::Buffer;
  r.OuterFrom = Source::Keep;
  r.PixelBytes = pixelBytes;
  for (int d = 0; d < 3; ++d)
  {
    r.Size[d] = r.InnerSize[d] = size[d];
    r.InnerOffset[d] = outBox.Offset[d];
  }
  Compose(r, stream);
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
  CheckPixel(pixelBytes);
  CheckBox(box, size, "CudaFillBoxAsync: the box leaves the buffer");
  ComposeRequest r{};
  r.Out = out;
  r.OutBox = box;
  r.InnerFrom = inside ? Source::Constant : Source::Keep;
  r.OuterFrom = inside ? Source::Keep : Source::Constant;
  r.Pixel = pixel;
  r.PixelBytes = pixelBytes;
  for (int d = 0; d < 3; ++d)
  {
    r.InnerOffset[d] = box.Offset[d];
    r.InnerSize[d] = size[d];
    r.Size[d] = inside ? size[d] : box.BufferSize[d]; // outside: the whole buffer is walked
    r.OutBox.Offset[d] = inside ? box.Offset[d] : 0;
  }
  Compose(r, stream);
}

void
CudaComposeBoxAsync(void *                out,
                    const CudaBufferBox & outBox,
                    const size_t (&size)[3],
                    const size_t (&innerOffset)[3],
                    const size_t (&innerSize)[3],
                    const void *          inner,
                    const CudaBufferBox & innerBox,
                    const void *          outer,
                    const CudaBufferBox & outerBox,
                    const void *          pixel,
                    size_t                pixelBytes,
                    cudaStream_t          stream)
{
  CheckPixel(pixelBytes);
  CheckBox(outBox, size, "CudaComposeBoxAsync: the written box leaves the output");
  bool innerEmpty = false;
  for (int d = 0; d < 3; ++d)
  {
    innerEmpty = innerEmpty || innerSize[d] == 0;
  }
  for (int d = 0; d < 3 && !innerEmpty; ++d)
  {
    if (innerOffset[d] < outBox.Offset[d] || innerOffset[d] + innerSize[d] > outBox.Offset[d] + size[d])
    {
      CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__, "CudaComposeBoxAsync: the inner box leaves the written box");
    }
  }
  if (((inner == nullptr && !innerEmpty) || outer == nullptr) && pixel == nullptr)
  {
    CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__, "CudaComposeBoxAsync: a constant pixel is needed");
  }
  if (inner != nullptr && !innerEmpty)
  {
    CheckBox(innerBox, innerSize, "CudaComposeBoxAsync: the inner box leaves its buffer");
  }
  if (outer != nullptr)
  {
    CheckBox(outerBox, size, "CudaComposeBoxAsync: the written box leaves the outer buffer");
  }
  ComposeRequest r{};
  r.Out = out;
  r.OutBox = outBox;
  r.Inner = inner;
  r.InnerBox = innerBox;
  r.Outer = outer;
  r.OuterBox = outerBox;
  r.InnerFrom = inner != nullptr ? Source::Buffer : Source::Constant;
  r.OuterFrom = outer != nullptr ? Source::Buffer : Source::Constant;
  r.Pixel = pixel;
  r.PixelBytes = pixelBytes;
  for (int d = 0; d < 3; ++d)
  {
    r.Size[d] = size[d];
    r.InnerOffset[d] = innerEmpty ? outBox.Offset[d] : innerOffset[d];
    r.InnerSize[d] = innerEmpty ? 0 : innerSize[d];
  }
  Compose(r, stream);
}
} // namespace itk
