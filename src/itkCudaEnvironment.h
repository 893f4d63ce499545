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
#ifndef itkCudaEnvironment_h
#define itkCudaEnvironment_h

/** \file itkCudaEnvironment.h
 * \brief The one reader of CudaCommon's environment switches (private to the
 * library). Each switch is read where its setting is first needed, and the
 * caller keeps what it read for the process (the README's table of
 * environment variables says what each means):
 *
 * | variable | read by | kind |
 * |---|---|---|
 * | ITK_RELEASE_DIRTY_GPU_BUFFERS | CudaDataManager | switch, on |
 * | ITK_CUDA_CONST_CPU_ACCESS_READ_ONLY | CudaDataManager | switch, off |
 * | ITK_CUDA_MEMORY_POOL | the stream-ordered device pools | switch, on |
 * | ITK_CUDA_POOL_RELEASE_THRESHOLD, ITK_CUDA_POOL_MAXIMUM_SIZE | the device pools | bytes |
 * | ITK_CUDA_HOST_CACHE_MB | CudaHostMemoryPool | number (MiB) |
 * | ITK_CUDA_HOST_PINNING | CudaHostMemoryPool | word: reuse, always, never |
 * | ITK_CUDA_STREAMS_PER_DEVICE | the device's stream pool | number, 1 to 64 |
 * | ITK_CUDA_BLOCKING_STREAMS | the device's stream pool | switch, off |
 * | ITK_CUDA_DEVICE | CudaGetDefaultDevice() | number, a device index |
 */

#include <cstdint>
#include <string>

namespace itk
{
namespace CudaDetail
{
/** The variable's text; nullptr when it is not set. */
const char *
EnvironmentText(const char * name);

/** On for 1, true, on or yes, off for 0, false, off or no (any case);
 * `fallback` when unset or anything else. */
bool
EnvironmentSwitch(const char * name, bool fallback);

/** A byte count: digits, optionally followed by K, M or G (binary units;
 * "M", "MB" and "MiB" alike, any case); `fallback` when unset, empty or
 * anything else. */
uint64_t
EnvironmentBytes(const char * name, uint64_t fallback);

/** The variable's text as a whole number (digits only); false when unset or
 * anything else (then `*value` is unchanged). */
bool
EnvironmentNumber(const char * name, uint64_t * value);

/** The variable's text in lower case; empty when unset. */
std::string
EnvironmentWord(const char * name);
} // namespace CudaDetail
} // namespace itk

#endif
