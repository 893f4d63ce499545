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
#ifndef itkCudaError_h
#define itkCudaError_h

/** \file itkCudaError.h
 * \brief Turning CUDA status codes into itk::ExceptionObject.
 *
 * This header includes no ITK header so that `.cu` files compiled by nvcc can
 * use it; itkCudaUtil.h includes it for C++ code.
 * \ingroup CudaCommon
 */

#include "CudaCommonExport.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace itk
{
/** Throw an itk::ExceptionObject naming the CUDA error (name, description and
 * numeric code) when `error` is not cudaSuccess; do nothing otherwise. The
 * sticky "last error" of the runtime is cleared so that the next call starts
 * clean. */
CudaCommon_EXPORT void
CudaCheckError(cudaError_t error, const char * file = "", int line = 0, const char * location = "");

/** Same for a driver API status. The driver is looked up at run time, so the
 * library does not link libcuda and loads on machines without a driver. */
CudaCommon_EXPORT void
CudaCheckError(CUresult error, const char * file = "", int line = 0, const char * location = "");

/** Check the launch of the kernel that was just enqueued (configuration errors
 * and earlier asynchronous faults both surface here). */
CudaCommon_EXPORT void
CudaCheckKernelLaunch(const char * kernelName, const char * file = "", int line = 0);
} // namespace itk

/** Evaluate a CUDA runtime or driver call and throw an itk::ExceptionObject
 * naming the error when it failed. */
#define CUDA_CHECK(expr) ::itk::CudaCheckError((expr), __FILE__, __LINE__, __func__)

/** Place right after a `kernel<<<...>>>(...)` launch. */
#define CUDA_CHECK_KERNEL_LAUNCH(kernelName) ::itk::CudaCheckKernelLaunch((kernelName), __FILE__, __LINE__)

#endif
