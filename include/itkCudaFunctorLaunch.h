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
#ifndef itkCudaFunctorLaunch_h
#define itkCudaFunctorLaunch_h

/** \file itkCudaFunctorLaunch.h
 * \brief Host declarations of the element-wise kernels' launch functions,
 * for the host compiler and nvcc alike. Their definitions are in
 * itkCudaFunctorKernels.cuh: a `.cu` file instantiates them for a functor and
 * its pixel types with ITK_CUDA_INSTANTIATE_UNARY_FUNCTOR or
 * ITK_CUDA_INSTANTIATE_BINARY_FUNCTOR; a call without that instantiation is
 * a link error naming the function.
 *
 * Each function queues its kernel on `stream`, checks the launch and returns
 * without waiting. Pointers are device memory of the current device, aligned
 * for their pixel type; an output may be the same memory as an input of the
 * same pixel size (in place), else it must not overlap the inputs.
 * \throws itk::ExceptionObject naming the CUDA error (misaligned pointers are
 * refused before the launch: on the device they would end the context).
 * \ingroup CudaCommon
 */

#include "itkCudaRegionGeometry.h"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace itk
{
/** out[i] = functor(in[i]) for i in [0, count). */
template <typename TInput, typename TOutput, typename TFunctor>
void
CudaTransformElements(size_t count, const TInput * in, TOutput * out, const TFunctor & functor, cudaStream_t stream);

/** The box `geometry` of `in`, through `functor`, into the compact `out`
 * (one 3-D slab of a streamed piece; see CudaForEachRegionSlab()). */
template <typename TInput, typename TOutput, typename TFunctor>
void
CudaTransformRegion(const TInput *             in,
                    const CudaRegionGeometry & geometry,
                    TOutput *                  out,
                    const TFunctor &           functor,
                    cudaStream_t               stream);

/** out[i] = functor(in1[i], in2[i]) for i in [0, count). */
template <typename TInput1, typename TInput2, typename TOutput, typename TFunctor>
void
CudaTransformElements(size_t           count,
                      const TInput1 *  in1,
                      const TInput2 *  in2,
                      TOutput *        out,
                      const TFunctor & functor,
                      cudaStream_t     stream);

/** \class CudaBindFirst
 * \brief A binary functor with its first argument fixed (an input given as
 * a constant, SetConstant1()): a unary functor of the second.
 * \ingroup CudaCommon */
template <typename TFunctor, typename TInput1>
struct CudaBindFirst
{
  TFunctor Functor;
  TInput1  Constant;
  template <typename TInput2>
  __host__ __device__ auto
  operator()(const TInput2 & second) const
  {
    return Functor(Constant, second);
  }
};

/** \class CudaBindSecond
 * \brief A binary functor with its second argument fixed (SetConstant2()).
 * \ingroup CudaCommon */
template <typename TFunctor, typename TInput2>
struct CudaBindSecond
{
  TFunctor Functor;
  TInput2  Constant;
  template <typename TInput1>
  __host__ __device__ auto
  operator()(const TInput1 & first) const
  {
    return Functor(first, Constant);
  }
};
} // namespace itk

#endif
