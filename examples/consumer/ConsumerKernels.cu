// SPDX-License-Identifier: Apache-2.0
#include "ConsumerKernels.hcu"
#include "itkCudaFunctorKernels.cuh"
#include "itkCudaKernelLaunch.hcu"

// [readme-snippet]
// The functor filter's kernels: one line.
ITK_CUDA_INSTANTIATE_UNARY_FUNCTOR(ClampFunctor, float, float);

// A kernel of one's own, launched on the stream it is given.
__global__ void
ShiftScaleKernel(const float * in, float * out, size_t count, double shift, double scale)
{
  const size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
  {
    out[i] = static_cast<float>((static_cast<double>(in[i]) + shift) * scale);
  }
}

void
CudaShiftScale(const float * in, float * out, size_t count, double shift, double scale, cudaStream_t stream)
{
  if (count == 0)
  {
    return;
  }
  ShiftScaleKernel<<<itk::CudaGridSizeForElements(count, 256), 256, 0, stream>>>(in, out, count, shift, scale);
  CUDA_CHECK_KERNEL_LAUNCH("ShiftScaleKernel");
}
// [readme-snippet-end]
