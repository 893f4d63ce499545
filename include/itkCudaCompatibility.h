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
#ifndef itkCudaCompatibility_h
#define itkCudaCompatibility_h

/** \file itkCudaCompatibility.h
 * \brief The one place where CudaCommon bridges ITK macros whose names changed
 * between ITK 5.2 and ITK 6. Every other header uses the macros defined here.
 * \ingroup CudaCommon
 */

#include "itkMacro.h"

// ITK 5.4 introduced itkOverrideGetNameOfClassMacro / itkVirtualGetNameOfClassMacro;
// ITK 6 removed itkTypeMacro.
#if defined(itkOverrideGetNameOfClassMacro)
#  define itkCudaTypeMacro(thisClass, superclass) itkOverrideGetNameOfClassMacro(thisClass)
#  define itkCudaTypeMacroNoParent(thisClass) itkVirtualGetNameOfClassMacro(thisClass)
#else
#  define itkCudaTypeMacro(thisClass, superclass) itkTypeMacro(thisClass, superclass)
#  define itkCudaTypeMacroNoParent(thisClass) itkTypeMacroNoParent(thisClass)
#endif

#endif
