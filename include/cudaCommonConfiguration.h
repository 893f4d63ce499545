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
#ifndef cudaCommonConfiguration_h
#define cudaCommonConfiguration_h

/** \file cudaCommonConfiguration.h
 * \brief The name ITKCudaCommon 2.0 gave its configuration header, which
 * RTK's rtkConfiguration.h.in includes when CMake says CudaCommon_VERSION_MAJOR:
 * the same version macros as itkCudaCommonConfiguration.h.
 * \ingroup CudaCommon
 */
#include "itkCudaCommonConfiguration.h"

#endif
