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
#include "itkCudaMemoryProbe.h"
#include "itkCudaUtil.h"

namespace itk
{
CudaMemoryProbe::CudaMemoryProbe()
  : ResourceProbe<CudaMemoryLoadType, MeanCudaMemoryLoadType>("Cuda memory", "kB")
{}

CudaMemoryProbe::~CudaMemoryProbe() = default;

CudaMemoryProbe::CudaMemoryLoadType
CudaMemoryProbe::GetInstantValue() const
{
  if (!IsCudaAvailable())
  {
    return 0;
  }
  size_t freeBytes = 0;
  size_t totalBytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
  return static_cast<CudaMemoryLoadType>((totalBytes - freeBytes) / 1024);
}
} // namespace itk
