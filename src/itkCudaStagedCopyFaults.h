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
#ifndef itkCudaStagedCopyFaults_h
#define itkCudaStagedCopyFaults_h

// Fault injection into the staged copies, for the test suite's error-path
// tests only: internal, not installed.

#include "itkCudaStagedCopy.h"

namespace itk
{
/** Make the `n`-th staged chunk from now (1 = the next one, counting both
 * directions) fail with `error` instead of being enqueued, while earlier
 * chunks may still be in flight; 0 disables. */
CudaCommon_EXPORT void
CudaStagedCopyFailChunkAfter(unsigned int n, cudaError_t error = cudaErrorLaunchFailure) noexcept;
} // namespace itk

#endif
