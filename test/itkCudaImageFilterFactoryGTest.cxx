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
#include "itkCudaAbsImageFilter.h"
#include "itkCudaAddImageFilter.h"
#include "itkCudaImageFilterFactory.h"
#include "itkCudaMaximumImageFilter.h"
#include "itkCudaMinimumImageFilter.h"
#include "itkCudaMultiplyImageFilter.h"
#include "itkCudaSubtractImageFilter.h"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaTestUtilities.h"
#include "itkBinaryThresholdImageFilter.h"
#include "itkCastImageFilter.h"
#include "itkConstantPadImageFilter.h"
#include "itkCropImageFilter.h"
#include "itkBoxMeanImageFilter.h"
#include "itkDiscreteGaussianImageFilter.h"
#include "itkMeanImageFilter.h"
#include "itkGradientImageFilter.h"
#include "itkGradientMagnitudeImageFilter.h"
#include "itkLaplacianImageFilter.h"
#include "itkDivideImageFilter.h"
#include "itkDivideOrZeroOutImageFilter.h"
#include "itkExpImageFilter.h"
#include "itkExtractImageFilter.h"
#include "itkLogImageFilter.h"
#include "itkPasteImageFilter.h"
#include "itkShiftScaleImageFilter.h"
#include "itkSqrtImageFilter.h"
#include "itkStatisticsImageFilter.h"
#include "itkThresholdImageFilter.h"

#include <cstdlib>
#include <string>
#include <typeinfo>

namespace
{
using ImageF3 = itk::CudaImage<float, 3>;
using ImageD2 = itk::CudaImage<double, 2>;

size_t
RegisteredFilterFactories()
{
  size_t count = 0;
  for (itk::ObjectFactoryBase * factory : itk::ObjectFactoryBase::GetRegisteredFactories())
  {
    count += std::string(factory->GetNameOfClass()) == "CudaImageFilterFactory" ? 1 : 0;
  }
  return count;
}

/** The factory registered for one test, and gone after it: the other tests
 * make ITK's filters of CudaImages to compare with. */
class CudaImageFilterFactoryTest : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    ASSERT_EQ(RegisteredFilterFactories(), 0u);
    itk::CudaImageFilterFactory::RegisterOneFactory();
  }
  void
  TearDown() override
  {
    for (itk::ObjectFactoryBase * factory : itk::ObjectFactoryBase::GetRegisteredFactories())
    {
      if (std::string(factory->GetNameOfClass()) == "CudaImageFilterFactory")
      {
        itk::ObjectFactoryBase::UnRegisterFactory(factory);
      }
    }
  }
};

TEST_F(CudaImageFilterFactoryTest, ITKsFiltersOfCudaImagesAreTheCUDAOnes)
{
  itk::CudaImageFilterFactory::RegisterOneFactory(); // a second call registers none
  EXPECT_EQ(RegisteredFilterFactories(), 1u);

  auto add = itk::AddImageFilter<ImageF3, ImageF3, ImageF3>::New();
  EXPECT_NE(dynamic_cast<itk::CudaAddImageFilter<ImageF3> *>(add.GetPointer()), nullptr);
  auto square = itk::SquareImageFilter<ImageF3, ImageF3>::New();
  ASSERT_NE(dynamic_cast<itk::CudaSquareImageFilter<ImageF3> *>(square.GetPointer()), nullptr);
  EXPECT_FALSE(square->GetInPlace()); // ITK's default, not CudaSquareImageFilter's
  auto subtract = itk::SubtractImageFilter<ImageD2, ImageD2, ImageD2>::New();
  EXPECT_NE(dynamic_cast<itk::CudaSubtractImageFilter<ImageD2> *>(subtract.GetPointer()), nullptr);
  auto multiply = itk::MultiplyImageFilter<ImageF3, ImageF3, ImageF3>::New();
  EXPECT_NE(dynamic_cast<itk::CudaMultiplyImageFilter<ImageF3> *>(multiply.GetPointer()), nullptr);
  auto maximum = itk::MaximumImageFilter<ImageF3, ImageF3, ImageF3>::New();
  EXPECT_NE(dynamic_cast<itk::CudaMaximumImageFilter<ImageF3> *>(maximum.GetPointer()), nullptr);
  auto minimum = itk::MinimumImageFilter<ImageD2, ImageD2, ImageD2>::New();
  EXPECT_NE(dynamic_cast<itk::CudaMinimumImageFilter<ImageD2> *>(minimum.GetPointer()), nullptr);
  auto absolute = itk::AbsImageFilter<ImageD2, ImageD2>::New();
  EXPECT_NE(dynamic_cast<itk::CudaAbsImageFilter<ImageD2> *>(absolute.GetPointer()), nullptr);
  EXPECT_NE((dynamic_cast<itk::CudaSquareImageFilter<itk::CudaImage<double, 4>> *>(
              itk::SquareImageFilter<itk::CudaImage<double, 4>, itk::CudaImage<double, 4>>::New().GetPointer())),
            nullptr);

  // Types it does not cover keep ITK's filter.
  using ImageI3 = itk::CudaImage<int, 3>;
  using PlainF3 = itk::Image<float, 3>;
  auto integers = itk::AddImageFilter<ImageI3, ImageI3, ImageI3>::New();
  EXPECT_EQ(typeid(*integers), typeid(itk::AddImageFilter<ImageI3, ImageI3, ImageI3>));
  auto plain = itk::AddImageFilter<PlainF3, PlainF3, PlainF3>::New();
  EXPECT_EQ(typeid(*plain), typeid(itk::AddImageFilter<PlainF3, PlainF3, PlainF3>));
  auto mixed = itk::SquareImageFilter<ImageF3, itk::CudaImage<double, 3>>::New();
  EXPECT_EQ(typeid(*mixed), typeid(itk::SquareImageFilter<ImageF3, itk::CudaImage<double, 3>>));
}

TEST_F(CudaImageFilterFactoryTest, ITKsIntensityThresholdShiftScaleCastRegionAndStatisticsFiltersToo)
{
  using ImageD3 = itk::CudaImage<double, 3>;
  using ImageF4 = itk::CudaImage<float, 4>;
  const auto nameOf = [](const auto & filter) { return std::string(filter->GetNameOfClass()); };
  EXPECT_EQ(nameOf(itk::DivideImageFilter<ImageF3, ImageF3, ImageF3>::New()), "CudaDivideImageFilter");
  EXPECT_EQ(nameOf(itk::DivideOrZeroOutImageFilter<ImageD2, ImageD2, ImageD2>::New()),
            "CudaDivideOrZeroOutImageFilter");
  EXPECT_EQ(nameOf(itk::SqrtImageFilter<ImageF3, ImageF3>::New()), "CudaSqrtImageFilter");
  EXPECT_EQ(nameOf(itk::ExpImageFilter<ImageD2, ImageD2>::New()), "CudaExpImageFilter");
  EXPECT_EQ(nameOf(itk::LogImageFilter<ImageF4, ImageF4>::New()), "CudaLogImageFilter");
  EXPECT_EQ(nameOf(itk::ThresholdImageFilter<ImageF4>::New()), "CudaThresholdImageFilter");
  EXPECT_EQ(nameOf(itk::BinaryThresholdImageFilter<ImageF3, ImageF3>::New()), "CudaBinaryThresholdImageFilter");
  EXPECT_EQ(nameOf(itk::CastImageFilter<ImageF3, ImageD3>::New()), "CudaCastImageFilter");
  EXPECT_EQ(nameOf(itk::CastImageFilter<ImageD3, ImageF3>::New()), "CudaCastImageFilter");
  EXPECT_EQ(nameOf(itk::ExtractImageFilter<ImageF3, ImageD2>::New()), "ExtractImageFilter") << "two pixel types";
  EXPECT_EQ(nameOf(itk::ExtractImageFilter<ImageF3, itk::CudaImage<float, 2>>::New()), "CudaExtractImageFilter");
  EXPECT_EQ(nameOf(itk::ExtractImageFilter<ImageF4, ImageF3>::New()), "CudaExtractImageFilter");
  EXPECT_EQ(nameOf(itk::ExtractImageFilter<ImageD2, ImageD2>::New()), "CudaExtractImageFilter");
  EXPECT_EQ(nameOf(itk::CropImageFilter<ImageF3, ImageF3>::New()), "CudaCropImageFilter");
  EXPECT_EQ(nameOf(itk::ConstantPadImageFilter<ImageD2, ImageD2>::New()), "CudaConstantPadImageFilter");
  EXPECT_EQ(nameOf(itk::PasteImageFilter<ImageF4>::New()), "CudaPasteImageFilter");
  EXPECT_EQ(nameOf(itk::PasteImageFilter<ImageD3, ImageD2, ImageD3>::New()), "CudaPasteImageFilter") << "a slice";
  EXPECT_FALSE(itk::PasteImageFilter<ImageF3>::New()->GetInPlace()) << "ITK's default";
  EXPECT_EQ(nameOf(itk::ShiftScaleImageFilter<ImageD2, ImageD2>::New()), "CudaShiftScaleImageFilter");
  EXPECT_EQ(nameOf(itk::DiscreteGaussianImageFilter<ImageF3, ImageF3>::New()), "CudaDiscreteGaussianImageFilter");
  EXPECT_EQ(nameOf(itk::DiscreteGaussianImageFilter<ImageD2, ImageD2>::New()), "CudaDiscreteGaussianImageFilter");
  EXPECT_EQ(nameOf(itk::MeanImageFilter<ImageF3, ImageF3>::New()), "CudaMeanImageFilter");
  EXPECT_EQ(nameOf(itk::BoxMeanImageFilter<ImageD2, ImageD2>::New()), "CudaBoxMeanImageFilter");
  EXPECT_EQ(nameOf(itk::GradientMagnitudeImageFilter<ImageF3, ImageF3>::New()), "CudaGradientMagnitudeImageFilter");
  EXPECT_EQ(nameOf(itk::LaplacianImageFilter<ImageD2, ImageD2>::New()), "CudaLaplacianImageFilter");
  using VectorsF3 = itk::CudaImage<itk::CovariantVector<float, 3>, 3>;
  using ImageD4 = itk::CudaImage<double, 4>;
  using VectorsD4 = itk::CudaImage<itk::CovariantVector<double, 4>, 4>;
  EXPECT_EQ(nameOf(itk::GradientImageFilter<ImageF3, float, float, VectorsF3>::New()), "CudaGradientImageFilter");
  EXPECT_EQ(nameOf(itk::GradientImageFilter<ImageD4, double, double, VectorsD4>::New()), "CudaGradientImageFilter");
  EXPECT_EQ(nameOf(itk::StatisticsImageFilter<ImageF4>::New()), "CudaStatisticsImageFilter");
  EXPECT_EQ(nameOf(itk::StatisticsImageFilter<ImageD3>::New()), "CudaStatisticsImageFilter");
  // Types it does not cover keep ITK's filter.
  using ImageUC3 = itk::CudaImage<unsigned char, 3>;
  EXPECT_EQ(nameOf(itk::BinaryThresholdImageFilter<ImageF3, ImageUC3>::New()), "BinaryThresholdImageFilter");
  EXPECT_EQ(nameOf(itk::CastImageFilter<ImageF3, ImageUC3>::New()), "CastImageFilter");
  EXPECT_EQ(nameOf(itk::DivideImageFilter<ImageUC3, ImageUC3, ImageUC3>::New()), "DivideImageFilter");
  EXPECT_EQ(nameOf(itk::StatisticsImageFilter<ImageUC3>::New()), "StatisticsImageFilter");
  EXPECT_EQ(nameOf(itk::ConstantPadImageFilter<ImageUC3, ImageUC3>::New()), "ConstantPadImageFilter");
  EXPECT_EQ(nameOf(itk::GradientImageFilter<ImageF3>::New()), "GradientImageFilter") << "into itk::Image's vectors";
}

TEST_F(CudaImageFilterFactoryTest, TheFilterItMakesComputesWhatITKsDoes)
{
  const ImageF3::SizeType size{ { 17, 9, 5 } };
  auto                    first = ImageF3::New();
  auto                    second = ImageF3::New();
  for (auto * image : { first.GetPointer(), second.GetPointer() })
  {
    image->SetRegions(size);
    image->Allocate();
  }
  const size_t count = first->GetBufferedRegion().GetNumberOfPixels();
  for (size_t i = 0; i < count; ++i)
  {
    first->GetBufferPointer()[i] = static_cast<float>(i % 13) - 6.0f;
    second->GetBufferPointer()[i] = 0.5f * static_cast<float>(i % 7);
  }
  auto add = itk::AddImageFilter<ImageF3, ImageF3, ImageF3>::New(); // the CUDA one
  add->SetInput1(first);
  add->SetInput2(second);
  auto square = itk::SquareImageFilter<ImageF3, ImageF3>::New(); // the CUDA one, not in place
  square->SetInput(add->GetOutput());
  square->Update();
  const ImageF3 * sum = add->GetOutput();
  const ImageF3 * result = square->GetOutput();
  for (size_t i = 0; i < count; ++i)
  {
    const float expected = first->GetBufferPointer()[i] + second->GetBufferPointer()[i];
    ASSERT_EQ(sum->GetBufferPointer()[i], expected) << i; // the input was kept
    ASSERT_EQ(result->GetBufferPointer()[i], expected * expected) << i;
  }
}

// ITK loads the plugin library from ITK_AUTOLOAD_PATH at the first use of a
// factory: CTest runs this in a process of its own with the variable set to
// the build's autoload directory (CUDACOMMON_EXPECT_AUTOLOAD=1).
TEST(CudaImageFilterFactoryAutoload, ThePluginInITKAutoloadPathRegistersIt)
{
  if (std::getenv("CUDACOMMON_EXPECT_AUTOLOAD") == nullptr)
  {
    GTEST_SKIP() << "run by CTest with ITK_AUTOLOAD_PATH set to the plugin's directory";
  }
  auto add = itk::AddImageFilter<ImageF3, ImageF3, ImageF3>::New();
  EXPECT_NE(dynamic_cast<itk::CudaAddImageFilter<ImageF3> *>(add.GetPointer()), nullptr);
  EXPECT_EQ(RegisteredFilterFactories(), 1u);
  itk::CudaImageFilterFactory::RegisterOneFactory(); // finds the plugin's
  EXPECT_EQ(RegisteredFilterFactories(), 1u);
}
} // namespace
