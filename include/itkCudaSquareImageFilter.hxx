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
#ifndef itkCudaSquareImageFilter_hxx
#define itkCudaSquareImageFilter_hxx

#include "itkCudaSquareImage.hcu"

namespace itk
{
template <typename TImage>
void
CudaSquareImageFilter<TImage>::GPUComputeElements(const PixelType * in,
                                                  PixelType *       out,
                                                  size_t            count,
                                                  cudaStream_t      stream)
{
  CudaSquareImage<PixelType>(count, in, out, stream);
}

template <typename TImage>
void
CudaSquareImageFilter<TImage>::GPUComputeRegion(const PixelType *          in,
                                                const CudaRegionGeometry & geometry,
                                                PixelType *                out,
                                                cudaStream_t               stream)
{
  CudaSquareImageRegion<PixelType>(in, geometry, out, stream); // one pass, without the scratch copy
}
} // namespace itk

#endif
