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
// The plugin library ITK loads from ITK_AUTOLOAD_PATH: its itkLoad() gives
// ITK a CudaImageFilterFactory (itkCudaImageFilterFactory.h), as ITK's own
// factory plugins do.
#include "itkCudaImageFilterFactory.h"

extern "C"
{
  ITK_ABI_EXPORT itk::ObjectFactoryBase *
                 itkLoad();
}

namespace
{
itk::CudaImageFilterFactory::Pointer loadedFactory;
}

itk::ObjectFactoryBase *
itkLoad()
{
  loadedFactory = itk::CudaImageFilterFactory::New();
  return loadedFactory;
}
