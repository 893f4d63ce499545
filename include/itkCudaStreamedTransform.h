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
 * \brief An element-wise transform of a host buffer through the device in
 * chunks, uploads, kernels and downloads overlapping: what
 * CudaElementwiseImageFilter does with an input current only on the host.
 * \ingroup CudaCommon
 */

#include "CudaCommonExport.h"
#include "itkCudaUtil.h" // CudaIsPinnedHostMemory

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>

namespace itk
{
/** How a streamed transform cuts its work: chunks of ChunkBytes bytes (a
 * multiple of 4 KiB is used), Streams chunks in flight on as many streams of
 * the device. The defaults are the best of those measured on an H200 at
 * 512^3 float (docs/performance.md). */
struct CudaStreamedTransformSettings
{
  size_t       ChunkBytes{ size_t{ 32 } << 20 };
  unsigned int Streams{ 4 };
};

/** For each chunk of `bytes` bytes: upload it from `hostIn` into the same
 * place of `device`, call `compute(devicePixels, pixelCount, chunkStream)`
 * to transform it there in place (queue the work on chunkStream, do not
 * wait), and download it into the same place of `hostOut`. `hostIn` and
 * `hostOut` are pinned host memory (CudaIsPinnedHostMemory()), and may be
 * the same buffer; `device` is device memory of the current device;
 * `pixelBytes` divides `bytes`. The chunks' streams are ordered after the
 * work queued on `stream` so far, and `stream` after them on return.
 *
 * Before each chunk after the first Streams, once the chunk that used its
 * stream has landed, `progress(fraction)` is called with the fraction of
 * the work done (below 1); when it returns false no further chunk is
 * queued and, the queued ones finished, the function returns false (an
 * abort: chunks before the first not downloaded hold on the host what they
 * held before). Otherwise it returns true once every chunk has landed in
 * `hostOut`.
 * \throws itk::ExceptionObject naming the CUDA error (or what `compute` or
 * `progress` threw), after the work already queued has finished: no copy
 * still reads or writes the buffers then. */
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
} // namespace itk

#endif
