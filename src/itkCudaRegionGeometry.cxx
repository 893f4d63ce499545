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

namespace itk
{
void
CudaCopyRegionAsync(void * out, const void * in, const CudaRegionGeometry & geometry, size_t pixelBytes,
                    cudaStream_t stream)
{
  const CudaBufferBox inBox{ { geometry.InputSize[0], geometry.InputSize[1], geometry.InputSize[2] },
                             { geometry.Offset[0], geometry.Offset[1], geometry.Offset[2] } };
  const CudaBufferBox outBox{ { geometry.OutputSize[0], geometry.OutputSize[1], geometry.OutputSize[2] },
                              { 0, 0, 0 } };
  const size_t        size[3] = { geometry.OutputSize[0], geometry.OutputSize[1], geometry.OutputSize[2] };
  CudaCopyBoxAsync(out, outBox, in, inBox, size, pixelBytes, stream);
}
} // namespace itk
