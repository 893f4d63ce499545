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
#ifndef rtkCuda13Compat_h
#define rtkCuda13Compat_h

// Force-included into the CUDA files of the RTK compatibility build. CUDA 13
// maps cuCtxCreate to cuCtxCreate_v4(context, parameters, flags, device);
// RTK 2.7.0 (src/rtkCudaUtilities.cu) calls the three-argument form.
#include <cuda.h>

#if defined(CUDA_VERSION) && CUDA_VERSION >= 13000
#  undef cuCtxCreate
#  define cuCtxCreate(context, flags, device) cuCtxCreate_v4((context), nullptr, (flags), (device))
#endif

#endif
