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

// The reductions (CudaStatisticsImageFilter, CudaMinimumMaximumImageCalculator,
// CudaImageDotProduct) against ITK's StatisticsImageFilter and
// MinimumMaximumImageCalculator, on the GPU and on their CPU paths.

#include "itkCudaImage.h"
#include "itkCudaImageReductions.h"
#include "itkCudaMinimumMaximumImageCalculator.h"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaStatisticsImageFilter.h"
#include "itkCudaTestUtilities.h"

#include "itkImage.h"
#include "itkMinimumMaximumImageCalculator.h"
#include "itkStatisticsImageFilter.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace
{
using itk::CudaTest::ExceptionMessage;
using itk::CudaTest::MakeImageOfPixels;

template <typename T, unsigned int D = 3>
using CudaImageOf = itk::CudaImage<T, D>;
template <typename T, unsigned int D = 3>
using ImageOf = itk::Image<T, D>;

itk::Size<3>
OddSize()
{
  return { { 67, 31, 23 } }; // not a multiple of any pack: heads and tails
}

/** Pixels of every sign and size the type holds (a bounded range for the
 * wide ones), with repeated extrema: ties are ITK's first occurrence. */
template <typename T>
std::vector<T>
MakePixels(size_t count, unsigned int seed)
{
  std::mt19937                           generator(seed);
  const double                           low = std::is_signed<T>::value ? -1000.0 : 0.0;
  const double                           high = std::min(1000.0, static_cast<double>(std::numeric_limits<T>::max()));
  std::uniform_real_distribution<double> values(low, high);
  std::vector<T>                         pixels(count);
  for (auto & pixel : pixels)
  {
    pixel = static_cast<T>(values(generator));
  }
  pixels[count / 3] = static_cast<T>(-2000 * std::is_signed<T>::value);
  pixels[count / 2] = pixels[count / 3]; // a later equal minimum
  pixels[count / 5] = static_cast<T>(std::is_same<T, unsigned char>::value ? 255 : 3000);
  pixels[count - 1] = pixels[count / 5]; // a later equal maximum, in the last pixel
  return pixels;
}

/** The sum of magnitudes of `pixels` (of their squares): the scale of the
 * rounding errors of a sum of them in any order. */
template <typename T>
double
Magnitude(const std::vector<T> & pixels, bool squares)
{
  double sum = 0.0;
  for (const T & pixel : pixels)
  {
    const double value = static_cast<double>(pixel);
    sum += squares ? value * value : std::abs(value);
  }
  return sum;
}

/** Both paths: the GPU (skipped without one) and ITK's CPU code. */
class CudaReductions : public ::testing::TestWithParam<bool>
{};
INSTANTIATE_TEST_SUITE_P(Paths, CudaReductions, ::testing::Values(true, false), [](const auto & info) {
  return info.param ? std::string("GPU") : std::string("CPUParent");
});

// ---- StatisticsImageFilter

template <typename T, unsigned int D>
void
ExpectStatisticsLikeITK(bool gpu, const itk::Size<D> & size, unsigned int divisions)
{
  SCOPED_TRACE(std::string(typeid(T).name()) + " " + std::to_string(D) + "-D, " + std::to_string(divisions) +
               " pieces");
  const auto pixels = MakePixels<T>(itk::ImageRegion<D>(size).GetNumberOfPixels(), 7);
  auto       reference = itk::StatisticsImageFilter<ImageOf<T, D>>::New();
  reference->SetInput(MakeImageOfPixels<ImageOf<T, D>>(size, pixels));
  reference->SetNumberOfStreamDivisions(divisions);
  reference->Update();
  auto filter = itk::CudaStatisticsImageFilter<CudaImageOf<T, D>>::New();
  filter->SetGPUEnabled(gpu);
  filter->SetInput(MakeImageOfPixels<CudaImageOf<T, D>>(size, pixels));
  filter->SetNumberOfStreamDivisions(divisions);
  filter->Update();
  EXPECT_EQ(filter->GetComputedOnGPU(), gpu);

  EXPECT_EQ(+filter->GetMinimum(), +reference->GetMinimum());
  EXPECT_EQ(+filter->GetMaximum(), +reference->GetMaximum());
  const double sums = 1e-12 * Magnitude(pixels, false);
  const double squares = 1e-12 * Magnitude(pixels, true);
  const double count = static_cast<double>(pixels.size());
  EXPECT_NEAR(filter->GetSum(), reference->GetSum(), sums);
  EXPECT_NEAR(filter->GetSumOfSquares(), reference->GetSumOfSquares(), squares);
  EXPECT_NEAR(filter->GetMean(), reference->GetMean(), sums / count);
  EXPECT_NEAR(filter->GetVariance(), reference->GetVariance(), 1e-9 * reference->GetVariance());
  EXPECT_NEAR(filter->GetSigma(), reference->GetSigma(), 1e-9 * reference->GetSigma());
}

TEST_P(CudaReductions, StatisticsMatchITKs)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  ExpectStatisticsLikeITK<float, 3>(GetParam(), OddSize(), 1);
  ExpectStatisticsLikeITK<double, 3>(GetParam(), OddSize(), 1);
  ExpectStatisticsLikeITK<unsigned char, 3>(GetParam(), OddSize(), 1);
  ExpectStatisticsLikeITK<short, 3>(GetParam(), OddSize(), 1);
  ExpectStatisticsLikeITK<unsigned short, 3>(GetParam(), OddSize(), 1);
  ExpectStatisticsLikeITK<int, 3>(GetParam(), OddSize(), 1);
  ExpectStatisticsLikeITK<unsigned int, 3>(GetParam(), OddSize(), 1);
}

TEST_P(CudaReductions, StatisticsOfStreamedPiecesAndOfOtherDimensionsMatchITKs)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  ExpectStatisticsLikeITK<float, 3>(GetParam(), OddSize(), 5);
  ExpectStatisticsLikeITK<float, 2>(GetParam(), itk::Size<2>{ { 1001, 17 } }, 3);
  ExpectStatisticsLikeITK<double, 4>(GetParam(), itk::Size<4>{ { 13, 11, 7, 5 } }, 2);
  ExpectStatisticsLikeITK<float, 1>(GetParam(), itk::Size<1>{ { 100003 } }, 1);
}

TEST_P(CudaReductions, StatisticsOfNonFiniteAndExtremePixelsAreITKs)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  // ITK's extrema start at max() and NonpositiveMin() and pass NaNs by: an
  // image of +inf and NaN has a minimum of FLT_MAX.
  const std::vector<float> pixels = { std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                                      std::numeric_limits<float>::infinity() };
  auto reference = itk::StatisticsImageFilter<ImageOf<float, 1>>::New();
  reference->SetInput(MakeImageOfPixels<ImageOf<float, 1>>(itk::Size<1>{ { 3 } }, pixels));
  reference->Update();
  auto filter = itk::CudaStatisticsImageFilter<CudaImageOf<float, 1>>::New();
  filter->SetGPUEnabled(GetParam());
  filter->SetInput(MakeImageOfPixels<CudaImageOf<float, 1>>(itk::Size<1>{ { 3 } }, pixels));
  filter->Update();
  EXPECT_EQ(filter->GetMinimum(), reference->GetMinimum());
  EXPECT_EQ(filter->GetMinimum(), std::numeric_limits<float>::max());
  EXPECT_EQ(filter->GetMaximum(), reference->GetMaximum());
  EXPECT_TRUE(std::isnan(filter->GetSum()) && std::isnan(reference->GetSum()));
  EXPECT_TRUE(std::isnan(filter->GetMean()) && std::isnan(reference->GetMean()));
}

TEST(CudaReductions, StatisticsOfAnImageOnTheGPUBringNoPixelsToTheHost)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  using ImageType = CudaImageOf<float>;
  const auto pixels = MakePixels<float>(itk::ImageRegion<3>(OddSize()).GetNumberOfPixels(), 3);
  auto       square = itk::CudaSquareImageFilter<ImageType>::New();
  square->SetInput(MakeImageOfPixels<ImageType>(OddSize(), pixels));
  auto statistics = itk::CudaStatisticsImageFilter<ImageType>::New();
  statistics->SetInput(square->GetOutput());
  statistics->Update();
  const itk::CudaDataManager * manager = square->GetOutput()->GetCudaDataManager();
  EXPECT_TRUE(manager->IsCPUBufferDirty()) << "the squares stayed on the GPU";
  EXPECT_EQ(manager->GetTransferStatistics().DeviceToHostCount, 0u);
  double sum = 0.0;
  for (const float value : pixels)
  {
    sum += static_cast<double>(value * value);
  }
  EXPECT_NEAR(statistics->GetSum(), sum, 1e-12 * sum);
  EXPECT_EQ(statistics->GetNumberOfStreamDivisions(), 1u);
}

TEST(CudaReductions, StatisticsOfAnEmptyImageAreITKs)
{
  // An empty input is left to ITK's filter: the same answer, or the same refusal.
  auto empty = CudaImageOf<float>::New();
  empty->SetRegions(itk::Size<3>{ { 0, 4, 4 } });
  empty->Allocate();
  auto filter = itk::CudaStatisticsImageFilter<CudaImageOf<float>>::New();
  filter->SetInput(empty);
  auto reference = itk::StatisticsImageFilter<CudaImageOf<float>>::New();
  reference->SetInput(empty);
  const std::string expected = ExceptionMessage([&] { reference->Update(); });
  const std::string got = ExceptionMessage([&] { filter->Update(); });
  EXPECT_EQ(got.empty(), expected.empty()) << got << " / " << expected;
  EXPECT_FALSE(filter->GetComputedOnGPU());
  if (expected.empty())
  {
    EXPECT_EQ(filter->GetMinimum(), reference->GetMinimum());
    EXPECT_EQ(filter->GetMaximum(), reference->GetMaximum());
  }
}

// ---- MinimumMaximumImageCalculator

template <typename T, unsigned int D>
void
ExpectExtremaLikeITK(bool gpu, const itk::Size<D> & size, const std::vector<T> & pixels, const itk::ImageRegion<D> * region)
{
  SCOPED_TRACE(std::string(typeid(T).name()) + " " + std::to_string(D) + "-D" + (region ? ", a region" : ""));
  auto reference = itk::MinimumMaximumImageCalculator<ImageOf<T, D>>::New();
  reference->SetImage(MakeImageOfPixels<ImageOf<T, D>>(size, pixels));
  auto calculator = itk::CudaMinimumMaximumImageCalculator<CudaImageOf<T, D>>::New();
  calculator->SetGPUEnabled(gpu);
  calculator->SetImage(MakeImageOfPixels<CudaImageOf<T, D>>(size, pixels));
  if (region != nullptr)
  {
    reference->SetRegion(*region);
    calculator->SetRegion(*region);
  }
  reference->Compute();
  calculator->Compute();
  EXPECT_EQ(calculator->GetComputedOnGPU(), gpu);
  EXPECT_EQ(+calculator->GetMinimum(), +reference->GetMinimum());
  EXPECT_EQ(+calculator->GetMaximum(), +reference->GetMaximum());
  EXPECT_EQ(calculator->GetIndexOfMinimum(), reference->GetIndexOfMinimum());
  EXPECT_EQ(calculator->GetIndexOfMaximum(), reference->GetIndexOfMaximum());
}

TEST_P(CudaReductions, ExtremaAndTheirFirstIndicesMatchITKs)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const size_t count = itk::ImageRegion<3>(OddSize()).GetNumberOfPixels();
  ExpectExtremaLikeITK<float, 3>(GetParam(), OddSize(), MakePixels<float>(count, 1), nullptr);
  ExpectExtremaLikeITK<double, 3>(GetParam(), OddSize(), MakePixels<double>(count, 2), nullptr);
  ExpectExtremaLikeITK<unsigned char, 3>(GetParam(), OddSize(), MakePixels<unsigned char>(count, 3), nullptr);
  ExpectExtremaLikeITK<short, 3>(GetParam(), OddSize(), MakePixels<short>(count, 4), nullptr);
  ExpectExtremaLikeITK<unsigned long, 3>(GetParam(), OddSize(), MakePixels<unsigned long>(count, 5), nullptr);
  // A region of its own: rows apart in memory, and a 4-D one of several slabs.
  const itk::ImageRegion<3> box({ { 5, 3, 2 } }, { { 40, 20, 17 } });
  ExpectExtremaLikeITK<float, 3>(GetParam(), OddSize(), MakePixels<float>(count, 6), &box);
  const itk::Size<4>        size4{ { 9, 8, 7, 6 } };
  const itk::ImageRegion<4> box4({ { 1, 2, 0, 1 } }, { { 7, 5, 7, 4 } });
  ExpectExtremaLikeITK<int, 4>(GetParam(), size4, MakePixels<int>(9 * 8 * 7 * 6, 7), &box4);
}

TEST_P(CudaReductions, ExtremaOfEqualPixelsAndOfNaNsAreITKs)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const itk::Size<1> size{ { 1000 } };
  // All equal: the first pixel's index for both.
  ExpectExtremaLikeITK<short, 1>(GetParam(), size, std::vector<short>(1000, 42), nullptr);
  // -0 and +0 compare equal: the first of them is the minimum.
  std::vector<float> zeros(1000, 1.0f);
  zeros[100] = 0.0f;
  zeros[50] = -0.0f;
  ExpectExtremaLikeITK<float, 1>(GetParam(), size, zeros, nullptr);
  // NaNs are passed by; an image of NaNs keeps ITK's initial values and indices.
  std::vector<float> nans(1000, std::numeric_limits<float>::quiet_NaN());
  nans[700] = -3.0f;
  ExpectExtremaLikeITK<float, 1>(GetParam(), size, nans, nullptr);
  ExpectExtremaLikeITK<float, 1>(
    GetParam(), size, std::vector<float>(1000, std::numeric_limits<float>::quiet_NaN()), nullptr);
  ExpectExtremaLikeITK<float, 1>(GetParam(), size, std::vector<float>(1000, std::numeric_limits<float>::max()), nullptr);
}

TEST_P(CudaReductions, ComputeMinimumAndComputeMaximumKeepTheOtherAsITKDoes)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  using ImageType = CudaImageOf<float, 1>;
  const itk::Size<1> size{ { 300 } };
  std::vector<float> first(300, 1.0f);
  first[10] = -5.0f;
  first[20] = 9.0f;
  std::vector<float> second(300, 2.0f);
  second[30] = -7.0f;
  second[40] = 11.0f;
  auto calculator = itk::CudaMinimumMaximumImageCalculator<ImageType>::New();
  calculator->SetGPUEnabled(GetParam());
  calculator->SetImage(MakeImageOfPixels<ImageType>(size, first));
  calculator->Compute();
  calculator->SetImage(MakeImageOfPixels<ImageType>(size, second));
  calculator->ComputeMinimum();
  EXPECT_EQ(calculator->GetMinimum(), -7.0f);
  EXPECT_EQ(calculator->GetIndexOfMinimum()[0], 30);
  EXPECT_EQ(calculator->GetMaximum(), 9.0f) << "the maximum of the first image, as ITK's calculator keeps it";
  EXPECT_EQ(calculator->GetIndexOfMaximum()[0], 20);
  calculator->ComputeMaximum();
  EXPECT_EQ(calculator->GetMaximum(), 11.0f);
  EXPECT_EQ(calculator->GetIndexOfMaximum()[0], 40);
}

// On the GPU path alone: ITK's calculator reads outside the buffer unchecked.
TEST(CudaReductions, ARegionOutsideTheBufferIsRefused)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  using ImageType = CudaImageOf<float>;
  auto calculator = itk::CudaMinimumMaximumImageCalculator<ImageType>::New();
  calculator->SetImage(MakeImageOfPixels<ImageType>(OddSize(), std::vector<float>(67 * 31 * 23, 1.0f)));
  calculator->SetRegion(itk::ImageRegion<3>({ { 60, 0, 0 } }, { { 10, 2, 2 } }));
  const std::string message = ExceptionMessage([&] { calculator->Compute(); });
  EXPECT_NE(message.find("is not inside the image's buffered region"), std::string::npos) << message;
}

// ---- dot product

template <typename T>
void
ExpectDotProductOfDoubleSums()
{
  SCOPED_TRACE(typeid(T).name());
  using ImageType = CudaImageOf<T>;
  const size_t count = itk::ImageRegion<3>(OddSize()).GetNumberOfPixels();
  const auto   x = MakePixels<T>(count, 11);
  const auto   y = MakePixels<T>(count, 12);
  double       expected = 0.0;
  double       magnitude = 0.0;
  for (size_t i = 0; i < count; ++i)
  {
    expected += static_cast<double>(x[i]) * static_cast<double>(y[i]);
    magnitude += std::abs(static_cast<double>(x[i]) * static_cast<double>(y[i]));
  }
  auto a = MakeImageOfPixels<ImageType>(OddSize(), x);
  auto b = MakeImageOfPixels<ImageType>(OddSize(), y);
  EXPECT_NEAR(itk::CudaImageDotProduct(a.GetPointer(), b.GetPointer()), expected, 1e-12 * magnitude);
  EXPECT_NEAR(itk::CudaImageDotProduct(a.GetPointer(), a.GetPointer()), Magnitude(x, true), 1e-12 * Magnitude(x, true));
  if (itk::IsCudaAvailable())
  {
    EXPECT_FALSE(a->GetCudaDataManager()->IsGPUBufferDirty()) << "computed on the GPU";
  }
}

TEST(CudaReductions, DotProductsAreSumsInDouble)
{
  ExpectDotProductOfDoubleSums<float>();
  ExpectDotProductOfDoubleSums<double>();
}

TEST(CudaReductions, DotProductsOfMismatchedOrEmptyImages)
{
  using ImageType = CudaImageOf<float>;
  auto a = MakeImageOfPixels<ImageType>(OddSize(), std::vector<float>(67 * 31 * 23, 1.0f));
  auto b = MakeImageOfPixels<ImageType>(itk::Size<3>{ { 67, 31, 22 } }, std::vector<float>(67 * 31 * 22, 1.0f));
  const std::string message = ExceptionMessage([&] { itk::CudaImageDotProduct(a.GetPointer(), b.GetPointer()); });
  EXPECT_NE(message.find("buffered regions of different sizes"), std::string::npos) << message;
  const std::string missing = ExceptionMessage([&] { itk::CudaImageDotProduct(a.GetPointer(), static_cast<ImageType *>(nullptr)); });
  EXPECT_NE(missing.find("an image is missing"), std::string::npos) << missing;
  auto empty = ImageType::New();
  empty->SetRegions(itk::Size<3>{ { 0, 0, 0 } });
  empty->Allocate();
  EXPECT_EQ(itk::CudaImageDotProduct(empty.GetPointer(), empty.GetPointer()), 0.0);
}
} // namespace
