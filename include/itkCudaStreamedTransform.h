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
#ifndef itkCudaStreamedTransform_h
#define itkCudaStreamedTransform_h

/** \file itkCudaStreamedTransform.h
 * \brief An element-wise transform of host buffers through the device in
 * chunks, uploads, kernels and downloads overlapping: what
 * CudaElementwiseImageFilter and CudaBinaryFunctorImageFilter do with inputs
 * current only on the host.
 * \ingroup CudaCommon
 */

#include "CudaCommonExport.h"
#include "itkCudaUtil.h" // CudaIsPinnedHostMemory

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <vector>

namespace itk
{
class CudaDataManager;

/** How a streamed transform cuts its work: chunks of ChunkBytes bytes of the
 * widest pixel type (whole multiples of 4096 pixels are used), Streams chunks
 * in flight on as many streams of the device. The defaults are the best of
 * those measured on an H200 at 512^3 float (docs/performance.md). */
struct CudaStreamedTransformSettings
{
  size_t       ChunkBytes{ size_t{ 32 } << 20 };
  unsigned int Streams{ 4 };
};

/** One input of a streamed transform: pinned host memory
 * (CudaIsPinnedHostMemory()) holding the transform's pixels, PixelBytes bytes
 * each. */
struct CudaStreamedInput
{
  const void * Host{ nullptr };
  size_t       PixelBytes{ 0 };
};

/** compute(deviceInputs, deviceOutput, count, chunkStream): write the
 * `count` pixels of a chunk at deviceOutput from deviceInputs[i], the same
 * chunk of input i on the device (device memory of the current device);
 * queue the work on chunkStream, do not wait. */
using CudaStreamedCompute = std::function<void(const void * const *, void *, size_t, cudaStream_t)>;

/** For each chunk of `pixels` pixels: upload the chunk of every input, call
 * `compute`, and download the chunk of `deviceOut` into the same place of
 * `hostOut` (pinned host memory; it may be an input's buffer). The first
 * input whose pixels are as wide as the output's lands in `deviceOut` at the
 * chunk's place (compute then runs in place on it); the others land in
 * scratch buffers of the current device, one per stream, allocated in the
 * order of `stream`. `deviceOut` is device memory of the current device. The
 * chunks' streams are ordered after the work queued on `stream` so far, and
 * `stream` after them on return.
 *
 * Before each chunk after the first Streams, once the chunk that used its
 * stream has landed, `progress(fraction)` is called with the fraction of
 * the work done (below 1); when it returns false no further chunk is
 * queued and, the queued ones finished, the function returns false (an
 * abort: chunks not downloaded hold on the host what they held before).
 * Otherwise it returns true once every chunk has landed in `hostOut`.
 * \throws itk::ExceptionObject naming the CUDA error (or what `compute` or
 * `progress` threw), after the work already queued has finished: no copy
 * still reads or writes the buffers then. */
CudaCommon_EXPORT bool
CudaStreamedTransform(const std::vector<CudaStreamedInput> & inputs,
                      void *                                 hostOut,
                      void *                                 deviceOut,
                      size_t                                 outputPixelBytes,
                      size_t                                 pixels,
                      cudaStream_t                           stream,
                      const CudaStreamedCompute &            compute,
                      const std::function<bool(double)> &    progress,
                      const CudaStreamedTransformSettings &  settings = {});

/** The unary form, in place on the device: each chunk of `bytes` bytes of
 * `hostIn` goes up into the same place of `device`,
 * `compute(devicePixels, pixelCount, chunkStream)` transforms it there, and
 * it comes down into the same place of `hostOut` (`hostIn` and `hostOut`
 * pinned, maybe one buffer; `pixelBytes` divides `bytes`). */
CudaCommon_EXPORT bool
CudaStreamedTransform(const void *                                             hostIn,
                      void *                                                   hostOut,
                      void *                                                   device,
                      size_t                                                   bytes,
                      size_t                                                   pixelBytes,
                      cudaStream_t                                             stream,
                      const std::function<void(void *, size_t, cudaStream_t)> & compute,
                      const std::function<bool(double)> &                      progress,
                      const CudaStreamedTransformSettings &                    settings = {});

/** One image input of an element-wise filter: its data manager and pixel size. */
struct CudaStreamedImage
{
  CudaDataManager * Manager{ nullptr };
  size_t            PixelBytes{ 0 };
};

/** What CudaStreamImagesFromHost() did. */
enum class CudaStreamedOutcome
{
  NotApplicable, ///< nothing streamed, nothing changed: the caller takes another path
  Completed,     ///< the output is current on the host and the device
  Aborted        ///< `progress` returned false: the output's host copy is current, its device copy stale
};

/** The streamed path of the element-wise filters, on the current device
 * (the output's): when every input is current on the host alone, in pinned
 * memory, the output's host buffer is pinned too (the first input's when
 * they share buffers: in place), and the pixels fill at least two chunks,
 * streams them through the device with CudaStreamedTransform() as one
 * production of the output (CudaDataManager::BeginHostStreamedProduction()):
 * completed, the output is current on the host and the device and the
 * copies are counted on it; the inputs' device copies stay as they were.
 * `progress` is CudaStreamedTransform()'s. Returns NotApplicable, having
 * changed nothing, when it does not apply (settings.ChunkBytes 0, an input
 * on the device or pageable, an output with no pinned host buffer yet: that
 * is made only for a host read, never here). Pageable inputs are left to
 * the whole copies (CudaStagedCopy): streaming them would copy every byte
 * through pinned memory on the host as the staged copy does, and on an
 * H200's host that memcpy, 40 GB/s on 16 threads, bounds both alike
 * (bench/experiments/pageable_stream.cu, docs/performance.md). A filter
 * calls it through CudaInPlaceImageFilter::GPUStreamImagesFromHost(), which
 * reports progress and turns an abort into itk::ProcessAborted.
 * \throws itk::ExceptionObject, the error of a chunk; the output's host copy
 * is then current (it holds the chunks that landed) and its device copy
 * stale. */
CudaCommon_EXPORT CudaStreamedOutcome
CudaStreamImagesFromHost(const std::vector<CudaStreamedImage> & inputs,
                         CudaDataManager &                      output,
                         size_t                                 outputPixelBytes,
                         size_t                                 pixels,
                         cudaStream_t                           stream,
                         const CudaStreamedCompute &            compute,
                         const std::function<bool(double)> &    progress,
                         const CudaStreamedTransformSettings &  settings);
} // namespace itk

#endif
