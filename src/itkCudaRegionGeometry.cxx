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

#include <cuda_runtime.h> // make_cudaPitchedPtr, make_cudaPos, make_cudaExtent

namespace itk
{
void
CudaCopyRegionAsync(void * out, const void * in, const CudaRegionGeometry & geometry, size_t pixelBytes,
                    cudaStream_t stream)
{
  for (int d = 0; d < 3; ++d)
  {
    if (geometry.Offset[d] + geometry.OutputSize[d] > geometry.InputSize[d])
    {
      CudaCheckError(cudaErrorInvalidValue, __FILE__, __LINE__, "CudaCopyRegionAsync: the box leaves the input");
    }
  }
  if (geometry.OutputSize[0] * geometry.OutputSize[1] * geometry.OutputSize[2] == 0)
  {
    return;
  }
  cudaMemcpy3DParms copy{};
  copy.srcPtr = make_cudaPitchedPtr(const_cast<void *>(in), geometry.InputSize[0] * pixelBytes,
                                    geometry.InputSize[0], geometry.InputSize[1]);
  copy.srcPos = make_cudaPos(geometry.Offset[0] * pixelBytes, geometry.Offset[1], geometry.Offset[2]);
  copy.dstPtr = make_cudaPitchedPtr(out, geometry.OutputSize[0] * pixelBytes, geometry.OutputSize[0],
                                    geometry.OutputSize[1]);
  copy.extent = make_cudaExtent(geometry.OutputSize[0] * pixelBytes, geometry.OutputSize[1], geometry.OutputSize[2]);
  copy.kind = cudaMemcpyDeviceToDevice;
  CUDA_CHECK(cudaMemcpy3DAsync(&copy, stream));
}
} // namespace itk
