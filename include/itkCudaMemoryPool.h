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
#ifndef itkCudaMemoryPool_h
#define itkCudaMemoryPool_h

/** \file itkCudaMemoryPool.h
 * \brief The stream-ordered device memory pools behind image buffers.
 *
 * A CudaImage's device buffer is allocated and freed in the order of the
 * image's stream (cudaMallocFromPoolAsync / cudaFreeAsync), from a memory
 * pool of CudaCommon's own per device: a filter that frees and allocates its
 * output again, or a small image made and destroyed, does not synchronise
 * the device the way cudaMalloc and cudaFree do, and memory freed on a stream
 * is reused by the next allocation there at once.
 *
 * Freed memory stays in the pool, for the next allocation, up to the release
 * threshold; beyond it the pool gives memory back to the device at the next
 * synchronisation. When an allocation fails the pool is trimmed (all its
 * unused memory given back) and the allocation tried once more before
 * itk::ExceptionObject reports the sizes.
 *
 * Environment variables, read when the first pool is made:
 * - ITK_CUDA_MEMORY_POOL=0 (or off, false, no): no pool; cudaMalloc and
 *   cudaFree as in ITKCudaCommon 2.x (e.g. to compare, or for tools that do
 *   not follow stream-ordered allocations).
 * - ITK_CUDA_POOL_RELEASE_THRESHOLD: bytes of unused memory each pool keeps
 *   (suffixes K, M, G: binary units); default a sixteenth of the device's
 *   memory.
 * - ITK_CUDA_POOL_MAXIMUM_SIZE: the most bytes a pool may hold in all
 *   (suffixes as above); default 0, no limit but the device's memory.
 * \ingroup CudaCommon
 */

#include "CudaCommonExport.h"

#include <cstddef>
#include <cstdint>

namespace itk
{
/** \struct CudaMemoryPoolStatistics
 * \brief What a device's pool holds: memory it reserved from the device, and
 * how much of that live allocations use; their peaks since the pool was made.
 * \ingroup CudaCommon
 */
struct CudaMemoryPoolStatistics
{
  uint64_t ReservedBytes{ 0 };
  uint64_t UsedBytes{ 0 };
  uint64_t PeakReservedBytes{ 0 };
  uint64_t PeakUsedBytes{ 0 };
};

/** True when image buffers come from the pools (the default); false when
 * ITK_CUDA_MEMORY_POOL turned them off, or the driver has no memory pools. */
CudaCommon_EXPORT bool
CudaMemoryPoolIsEnabled();

/** Unused bytes each pool keeps for later allocations (see above); applies
 * to the pools made already and to later ones. */
CudaCommon_EXPORT void
CudaSetMemoryPoolReleaseThreshold(uint64_t bytes);
/** The threshold set, or the default's value for `device` when none was. */
CudaCommon_EXPORT uint64_t
CudaGetMemoryPoolReleaseThreshold(int device);

/** The most bytes a pool made after this call may hold (0: no limit); the
 * pools made already keep theirs. */
CudaCommon_EXPORT void
CudaSetMemoryPoolMaximumSize(uint64_t bytes);
CudaCommon_EXPORT uint64_t
CudaGetMemoryPoolMaximumSize();

/** Give the device the unused memory of every pool, keeping at most
 * `keepBytes` in each, once the work queued on the devices so far (the
 * stream-ordered frees among it) has run.
 * \throws itk::ExceptionObject naming the CUDA error. */
CudaCommon_EXPORT void
CudaTrimMemoryPools(uint64_t keepBytes = 0);

/** The statistics of `device`'s pool (zeros when it has none yet).
 * \throws itk::ExceptionObject naming the CUDA error. */
CudaCommon_EXPORT CudaMemoryPoolStatistics
CudaGetMemoryPoolStatistics(int device);
} // namespace itk

#endif
