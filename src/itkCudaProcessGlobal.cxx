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
#include "itkCudaProcessGlobal.h"

#include "itkCudaCommonConfiguration.h"
#include "itkConfigure.h"
#include "itkSingleton.h"

#include <mutex>
#include <string>

namespace itk
{
namespace CudaDetail
{
void *
ProcessGlobal(const char * name, size_t bytes, void * (*make)())
{
  const std::string key = std::string("CudaCommon ") + CudaCommon_VERSION_STRING + ' ' + name + ' ' +
                          std::to_string(bytes);
  static std::mutex           mutex; // this copy's threads
  std::lock_guard<std::mutex> lock(mutex);
  SingletonIndex * const      index = SingletonIndex::GetInstance();
  if (void * const found = index->GetGlobalInstance<void>(key.c_str()))
  {
    return found;
  }
  void * const made = make();
  // Never deleted (see the header): nothing to do when the index goes.
#if ITK_VERSION_MAJOR > 5 || (ITK_VERSION_MAJOR == 5 && ITK_VERSION_MINOR >= 4)
  index->SetGlobalInstance<void>(key.c_str(), made, [] {});
#else
  index->SetGlobalInstance<void>(key.c_str(), made, [](void *) {}, [] {});
#endif
  return made;
}
} // namespace CudaDetail
} // namespace itk
