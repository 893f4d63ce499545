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
#include "itkCudaTestUtilities.h"

namespace
{
template <typename TPixel, unsigned int VDimension>
bool
NewReturnsCudaImage()
{
  auto image = itk::Image<TPixel, VDimension>::New();
  return dynamic_cast<itk::CudaImage<TPixel, VDimension> *>(image.GetPointer()) != nullptr;
}

TEST(CudaImageFactory, OverridesTheListedImageTypes)
{
  auto factory = itk::CudaImageFactory::New();
  itk::ObjectFactoryBase::RegisterFactory(factory);
  EXPECT_TRUE((NewReturnsCudaImage<float, 3>()));
  EXPECT_TRUE((NewReturnsCudaImage<double, 1>()));
  EXPECT_TRUE((NewReturnsCudaImage<unsigned char, 2>()));
  EXPECT_TRUE((NewReturnsCudaImage<signed char, 3>()));
  EXPECT_TRUE((NewReturnsCudaImage<int, 2>()));
  EXPECT_TRUE((NewReturnsCudaImage<unsigned int, 3>()));
  EXPECT_FALSE((NewReturnsCudaImage<short, 2>()));
  EXPECT_FALSE((NewReturnsCudaImage<float, 4>()));
  EXPECT_EQ(factory->GetClassOverrideNames().size(), 18u);
  EXPECT_NE(std::string(factory->GetDescription()).find("CudaImage"), std::string::npos);

  // An overridden image works as an Image everywhere.
  auto image = itk::Image<float, 3>::New();
  image->SetRegions(itk::Image<float, 3>::SizeType{ { 3, 3, 3 } });
  image->Allocate();
  image->FillBuffer(2.0f);
  EXPECT_EQ(image->GetBufferPointer()[26], 2.0f);

  itk::ObjectFactoryBase::UnRegisterFactory(factory);
  EXPECT_FALSE((NewReturnsCudaImage<float, 3>()));
}

TEST(CudaImageFactory, RegisterOneFactoryOnlyWithADevice)
{
  const bool registered = itk::CudaImageFactory::RegisterOneFactory();
  EXPECT_EQ(registered, itk::IsCudaAvailable());
  EXPECT_EQ(itk::CudaImageFactory::RegisterOneFactory(), registered); // idempotent
  EXPECT_EQ((NewReturnsCudaImage<float, 2>()), registered);
  for (auto * factory : itk::ObjectFactoryBase::GetRegisteredFactories())
  {
    if (dynamic_cast<itk::CudaImageFactory *>(factory) != nullptr)
    {
      itk::ObjectFactoryBase::UnRegisterFactory(factory);
    }
  }
}
} // namespace
