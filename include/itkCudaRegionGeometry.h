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
#ifndef itkCudaRegionGeometry_h
#define itkCudaRegionGeometry_h

/** \file itkCudaRegionGeometry.h
 * \brief A box inside an image buffer, as kernels take it.
 *
 * Includes no ITK header, so that `.cu` files compiled by nvcc can use it.
 * \ingroup CudaCommon
 */

#include "itkCudaError.h"

#include <cstddef>

namespace itk
{
/** A box of an image buffer, in pixels, for up to three dimensions (unused
 * ones have size 1, offset 0): the input buffer's size, where the box starts
 * in it, and the box's size, which is the output buffer's. Filters whose
 * output region is a piece of a larger input buffer (streaming) get one per
 * 3-D slab of the piece (CudaForEachRegionSlab(), itkCudaElementwiseImageFilter.h).
 * \ingroup CudaCommon
 */
struct CudaRegionGeometry
{
  size_t InputSize[3];
  size_t Offset[3];
  size_t OutputSize[3];
};

/** Queue on `stream` a device-to-device copy of the box `geometry` of the
 * buffer `in` into the compact buffer `out` (OutputSize pixels), pixels of
 * `pixelBytes` bytes. \throws itk::ExceptionObject when the box leaves the
 * input, or naming the CUDA error. */
CudaCommon_EXPORT void
CudaCopyRegionAsync(void * out, const void * in, const CudaRegionGeometry & geometry, size_t pixelBytes,
                    cudaStream_t stream);

/** A box inside a 3-D buffer of BufferSize pixels, starting at Offset; its
 * size is given beside it. Unused dimensions have size 1, offset 0. */
struct CudaBufferBox
{
  size_t BufferSize[3];
  size_t Offset[3];
};

/** Queue on `stream` a device-to-device copy of a box of `size` pixels, of
 * `pixelBytes` bytes each, from `inBox` of the buffer `in` to `outBox` of the
 * buffer `out`: one cudaMemcpyAsync where the box is one contiguous range in
 * both buffers, else CudaComposeBoxAsync's kernel, row by row. \throws
 * itk::ExceptionObject when a box leaves its buffer, or naming the CUDA error. */
CudaCommon_EXPORT void
CudaCopyBoxAsync(void *                out,
                 const CudaBufferBox & outBox,
                 const void *          in,
                 const CudaBufferBox & inBox,
                 const size_t (&size)[3],
                 size_t       pixelBytes,
                 cudaStream_t stream);

/** Queue on `stream` a kernel that sets pixels of the buffer `out` (of
 * box.BufferSize pixels of `pixelBytes` bytes) to the pixel at `pixel` (host
 * memory, read before the call returns): the pixels of the box of `size`
 * at box.Offset when `inside`, every other pixel of the buffer when not (an
 * empty box: all of them). \throws itk::ExceptionObject when the box leaves
 * the buffer, for pixels of more than 64 bytes, or naming the CUDA error. */
CudaCommon_EXPORT void
CudaFillBoxAsync(void *                out,
                 const CudaBufferBox & box,
                 const size_t (&size)[3],
                 bool         inside,
                 const void * pixel,
                 size_t       pixelBytes,
                 cudaStream_t stream);

/** Queue on `stream` one kernel that writes each pixel of the box of `size`
 * at outBox.Offset of `out` once: those of the inner box (`innerSize`
 * pixels at `innerOffset` of out's buffer, inside the written box; an empty
 * one: none) from `inner`, where innerBox.Offset is the inner box's first
 * pixel, or the constant at `pixel` when `inner` is null; the others from
 * `outer`, where outerBox.Offset is the written box's first pixel, or the
 * constant when `outer` is null. The words moved are the widest (up to 16
 * bytes) that every address, pitch and box edge allows. \throws
 * itk::ExceptionObject when a box leaves its buffer, the inner box the
 * written one, a constant is needed and not given, for pixels of more than 64
 * bytes, or naming the CUDA error. */
CudaCommon_EXPORT void
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
                    cudaStream_t          stream);
} // namespace itk

#endif
