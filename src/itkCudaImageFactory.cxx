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
#include "itkCudaImage.h"
#include "itkCreateObjectFunction.h"
#include "itkVersion.h"
#include "itkCudaProcessGlobal.h"

#include <mutex>
#include <string>

namespace itk
{
template <typename TPixel>
void
CudaImageFactory::RegisterOverridesForPixel()
{
  this->RegisterOverride(typeid(Image<TPixel, 1>).name(), typeid(CudaImage<TPixel, 1>).name(), "CUDA image override",
                         true, CreateObjectFunction<CudaImage<TPixel, 1>>::New());
  this->RegisterOverride(typeid(Image<TPixel, 2>).name(), typeid(CudaImage<TPixel, 2>).name(), "CUDA image override",
                         true, CreateObjectFunction<CudaImage<TPixel, 2>>::New());
  this->RegisterOverride(typeid(Image<TPixel, 3>).name(), typeid(CudaImage<TPixel, 3>).name(), "CUDA image override",
                         true, CreateObjectFunction<CudaImage<TPixel, 3>>::New());
}

CudaImageFactory::CudaImageFactory()
{
  this->RegisterOverridesForPixel<unsigned char>();
  this->RegisterOverridesForPixel<signed char>();
  this->RegisterOverridesForPixel<int>();
  this->RegisterOverridesForPixel<unsigned int>();
  this->RegisterOverridesForPixel<float>();
  this->RegisterOverridesForPixel<double>();
}

const char *
CudaImageFactory::GetITKSourceVersion() const
{
  return ITK_SOURCE_VERSION;
}

const char *
CudaImageFactory::GetDescription() const
{
  return "Makes itk::Image<P, D>::New() return itk::CudaImage<P, D>";
}

namespace CudaDetail
{
bool
RegisterFactoryOnce(const char * className, ObjectFactoryBase::Pointer (*make)())
{
  static std::mutex &         mutex = ProcessGlobalOf<std::mutex>("FactoryRegistration");
  std::lock_guard<std::mutex> lock(mutex);
  for (ObjectFactoryBase * factory : ObjectFactoryBase::GetRegisteredFactories())
  {
    // By name, as ITK knows factories: one class in every copy of the library.
    if (std::string(factory->GetNameOfClass()) == className)
    {
      return true;
    }
  }
  ObjectFactoryBase::Pointer made = make();
  if (made.IsNull())
  {
    return false;
  }
  ObjectFactoryBase::RegisterFactory(made);
  return true;
}
} // namespace CudaDetail

bool
CudaImageFactory::RegisterOneFactory()
{
  return CudaDetail::RegisterFactoryOnce("CudaImageFactory", []() -> ObjectFactoryBase::Pointer {
    if (!IsCudaAvailable())
    {
      return nullptr;
    }
    return CudaImageFactory::New().GetPointer();
  });
}
} // namespace itk
