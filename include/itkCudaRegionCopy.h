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
#ifndef itkCudaRegionCopy_h
#define itkCudaRegionCopy_h

#include "itkCudaRegionGeometry.h"
#include "itkImageRegion.h"
#include "itkMacro.h"

#include <algorithm>

namespace itk
{
/** \file itkCudaRegionCopy.h
 * \brief Device copies and fills of boxes of image buffers of any dimension,
 * as the region filters (Crop, ConstantPad, Paste) move pixels: a strided
 * 3-D copy or one fill kernel per 3-D slab, dimensions past the third walked
 * slab by slab. All queue on `stream` and return without waiting.
 * \ingroup CudaCommon
 */

namespace CudaDetail
{
/** Calls `function(index)` for every index of `region` in dimensions past
 * the third (once, with an empty walk, for three dimensions or fewer), the
 * first of those dimensions fastest. */
template <unsigned int VDimension, typename TFunction>
void
ForEachSlabIndex(const ImageRegion<VDimension> & region, TFunction && function)
{
  size_t slabs = 1;
  for (unsigned int d = 3; d < VDimension; ++d)
  {
    slabs *= region.GetSize(d);
  }
  Index<VDimension> index = region.GetIndex();
  for (size_t slab = 0; slab < slabs; ++slab)
  {
    size_t rest = slab;
    for (unsigned int d = 3; d < VDimension; ++d)
    {
      index[d] = region.GetIndex(d) + static_cast<IndexValueType>(rest % region.GetSize(d));
      rest /= region.GetSize(d);
    }
    function(static_cast<const Index<VDimension> &>(index));
  }
}

/** Where a slab (its index past the third dimension) starts in the buffer
 * `buffer`, in pixels, and the box in its first three dimensions. */
template <unsigned int VDimension>
size_t
SlabStart(const ImageRegion<VDimension> & buffer, const Index<VDimension> & index)
{
  size_t offset = 0;
  size_t stride = 1;
  for (unsigned int d = 0; d < VDimension; ++d)
  {
    if (d >= 3)
    {
      offset += static_cast<size_t>(index[d] - buffer.GetIndex(d)) * stride;
    }
    stride *= buffer.GetSize(d);
  }
  return offset;
}

template <unsigned int VDimension>
CudaBufferBox
BufferBox(const ImageRegion<VDimension> & buffer, const Index<VDimension> & start)
{
  CudaBufferBox box{ { 1, 1, 1 }, { 0, 0, 0 } };
  for (unsigned int d = 0; d < std::min(VDimension, 3u); ++d)
  {
    box.BufferSize[d] = buffer.GetSize(d);
    box.Offset[d] = static_cast<size_t>(start[d] - buffer.GetIndex(d));
  }
  return box;
}

template <unsigned int VDimension>
void
BoxSize(const Size<VDimension> & size, size_t (&out)[3])
{
  out[0] = out[1] = out[2] = 1;
  for (unsigned int d = 0; d < std::min(VDimension, 3u); ++d)
  {
    out[d] = size[d];
  }
}
} // namespace CudaDetail

/** Copy, device to device, the box `box` of the buffer `out` (whose buffered
 * region is `outBuffer`) from the box of the same size at `inStart` of the
 * buffer `in` (buffered region `inBuffer`). \throws itk::ExceptionObject when
 * a box leaves its buffer, or naming the CUDA error. */
template <unsigned int VDimension>
void
CudaCopyImageBoxAsync(void *                          out,
                      const ImageRegion<VDimension> & outBuffer,
                      const ImageRegion<VDimension> & box,
                      const void *                    in,
                      const ImageRegion<VDimension> & inBuffer,
                      const Index<VDimension> &       inStart,
                      size_t                          pixelBytes,
                      cudaStream_t                    stream)
{
  const ImageRegion<VDimension> inBox(inStart, box.GetSize());
  if (!outBuffer.IsInside(box) || !inBuffer.IsInside(inBox))
  {
    itkGenericExceptionMacro("CudaCopyImageBoxAsync: the box " << box << " or " << inBox
                                                               << " leaves its buffer, " << outBuffer << " or "
                                                               << inBuffer);
  }
  if (box.GetNumberOfPixels() == 0)
  {
    return;
  }
  size_t size[3];
  CudaDetail::BoxSize(box.GetSize(), size);
  const CudaBufferBox outGeometry = CudaDetail::BufferBox(outBuffer, box.GetIndex());
  const CudaBufferBox inGeometry = CudaDetail::BufferBox(inBuffer, inStart);
  const Offset<VDimension> shift = inStart - box.GetIndex();
  CudaDetail::ForEachSlabIndex(box, [&](const Index<VDimension> & index) {
    CudaCopyBoxAsync(static_cast<char *>(out) + CudaDetail::SlabStart(outBuffer, index) * pixelBytes,
                     outGeometry,
                     static_cast<const char *>(in) + CudaDetail::SlabStart(inBuffer, index + shift) * pixelBytes,
                     inGeometry,
                     size,
                     pixelBytes,
                     stream);
  });
}

/** Set pixels of the buffer `out` (buffered region `outBuffer`) to `pixel`
 * (`pixelBytes` bytes of host memory, read before the call returns): those
 * of `box` when `inside`, every other one when not. \throws
 * itk::ExceptionObject when `box` leaves the buffer, or naming the CUDA
 * error. */
template <unsigned int VDimension>
void
CudaFillImageBoxAsync(void *                          out,
                      const ImageRegion<VDimension> & outBuffer,
                      const ImageRegion<VDimension> & box,
                      bool                            inside,
                      const void *                    pixel,
                      size_t                          pixelBytes,
                      cudaStream_t                    stream)
{
  if (!outBuffer.IsInside(box) && box.GetNumberOfPixels() > 0)
  {
    itkGenericExceptionMacro("CudaFillImageBoxAsync: the box " << box << " leaves the buffer " << outBuffer);
  }
  size_t size[3];
  CudaDetail::BoxSize(box.GetSize(), size);
  size_t              none[3] = { 0, 0, 0 };
  const CudaBufferBox geometry = CudaDetail::BufferBox(outBuffer, box.GetNumberOfPixels() > 0 ? box.GetIndex()
                                                                                              : outBuffer.GetIndex());
  CudaDetail::ForEachSlabIndex(outBuffer, [&](const Index<VDimension> & index) {
    bool slabInBox = box.GetNumberOfPixels() > 0;
    for (unsigned int d = 3; d < VDimension; ++d)
    {
      slabInBox = slabInBox && index[d] >= box.GetIndex(d) &&
                  index[d] < box.GetIndex(d) + static_cast<IndexValueType>(box.GetSize(d));
    }
    if (slabInBox || !inside)
    {
      // A slab outside the box along the later dimensions: an empty box in it.
      CudaFillBoxAsync(static_cast<char *>(out) + CudaDetail::SlabStart(outBuffer, index) * pixelBytes,
                       geometry,
                       slabInBox ? size : none,
                       inside,
                       pixel,
                       pixelBytes,
                       stream);
    }
  });
}
/** Queue on `stream` the writing of every pixel of the buffer `out` (of
 * region `outBuffer`) once, one CudaComposeBoxAsync kernel per 3-D slab:
 * the pixels of `box` (inside `outBuffer`, or empty) from `inner` (a buffer
 * of region `innerBuffer`, where `box`'s first pixel is at `innerStart`), or
 * the constant at `pixel` when `inner` is null; the others from `outer` (a
 * buffer of region `outerBuffer`, which holds `outBuffer`), or the constant
 * when `outer` is null. ConstantPad's output (the input inside, the constant
 * around it) and Paste's (the source inside, the destination around it)
 * are each one pass over the output. \throws itk::ExceptionObject when a
 * region is not inside its buffer, or naming the CUDA error. */
template <unsigned int VDimension>
void
CudaComposeImageBoxAsync(void *                          out,
                         const ImageRegion<VDimension> & outBuffer,
                         const ImageRegion<VDimension> & box,
                         const void *                    inner,
                         const ImageRegion<VDimension> & innerBuffer,
                         const Index<VDimension> &       innerStart,
                         const void *                    outer,
                         const ImageRegion<VDimension> & outerBuffer,
                         const void *                    pixel,
                         size_t                          pixelBytes,
                         cudaStream_t                    stream)
{
  const bool empty = box.GetNumberOfPixels() == 0;
  if ((!empty && !outBuffer.IsInside(box)) ||
      (!empty && inner != nullptr && !innerBuffer.IsInside(ImageRegion<VDimension>(innerStart, box.GetSize()))) ||
      (outer != nullptr && outBuffer.GetNumberOfPixels() > 0 && !outerBuffer.IsInside(outBuffer)))
  {
    itkGenericExceptionMacro("CudaComposeImageBoxAsync: the box "
                             << box << " is not inside the output's buffer " << outBuffer << " or the inner buffer "
                             << innerBuffer << " from " << innerStart << ", or the output's buffer not inside "
                             << outerBuffer);
  }
  if (outBuffer.GetNumberOfPixels() == 0)
  {
    return;
  }
  size_t size[3];
  size_t innerSize[3];
  size_t none[3] = { 0, 0, 0 };
  CudaDetail::BoxSize(outBuffer.GetSize(), size);
  CudaDetail::BoxSize(box.GetSize(), innerSize);
  const CudaBufferBox outGeometry = CudaDetail::BufferBox(outBuffer, outBuffer.GetIndex());
  const CudaBufferBox innerOffset = CudaDetail::BufferBox(outBuffer, empty ? outBuffer.GetIndex() : box.GetIndex());
  const CudaBufferBox innerGeometry =
    CudaDetail::BufferBox(inner != nullptr && !empty ? innerBuffer : outBuffer, inner != nullptr && !empty ? innerStart : outBuffer.GetIndex());
  const CudaBufferBox outerGeometry =
    CudaDetail::BufferBox(outer != nullptr ? outerBuffer : outBuffer, outBuffer.GetIndex());
  const Offset<VDimension> shift = innerStart - box.GetIndex();
  CudaDetail::ForEachSlabIndex(outBuffer, [&](const Index<VDimension> & index) {
    bool slabInBox = !empty;
    for (unsigned int d = 3; d < VDimension; ++d)
    {
      slabInBox = slabInBox && index[d] >= box.GetIndex(d) &&
                  index[d] < box.GetIndex(d) + static_cast<IndexValueType>(box.GetSize(d));
    }
    const void * innerSlab = inner != nullptr && slabInBox
                               ? static_cast<const char *>(inner) +
                                   CudaDetail::SlabStart(innerBuffer, index + shift) * pixelBytes
                               : inner;
    const void * outerSlab =
      outer != nullptr ? static_cast<const char *>(outer) + CudaDetail::SlabStart(outerBuffer, index) * pixelBytes
                       : nullptr;
    CudaComposeBoxAsync(static_cast<char *>(out) + CudaDetail::SlabStart(outBuffer, index) * pixelBytes,
                        outGeometry,
                        size,
                        innerOffset.Offset,
                        slabInBox ? innerSize : none,
                        innerSlab,
                        innerGeometry,
                        outerSlab,
                        outerGeometry,
                        pixel,
                        pixelBytes,
                        stream);
  });
}
} // namespace itk

#endif
