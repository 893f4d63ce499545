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
#include "itkBinaryThresholdImageFilter.h"
#include "itkCastImageFilter.h"
#include "itkCudaBinaryThresholdImageFilter.h"
#include "itkCudaCastImageFilter.h"
#include "itkCudaDivideImageFilter.h"
#include "itkCudaDivideOrZeroOutImageFilter.h"
#include "itkCudaExpImageFilter.h"
#include "itkCudaLogImageFilter.h"
#include "itkCudaShiftScaleImageFilter.h"
#include "itkCudaSqrtImageFilter.h"
#include "itkCudaTestUtilities.h"
#include "itkCudaThresholdImageFilter.h"
#include "itkDivideImageFilter.h"
#include "itkDivideOrZeroOutImageFilter.h"
#include "itkExpImageFilter.h"
#include "itkLogImageFilter.h"
#include "itkShiftScaleImageFilter.h"
#include "itkSqrtImageFilter.h"
#include "itkThresholdImageFilter.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// ITK's intensity and threshold filters on the GPU (CudaDivideImageFilter,
// CudaDivideOrZeroOutImageFilter, CudaSqrtImageFilter, CudaExpImageFilter,
// CudaLogImageFilter, CudaBinaryThresholdImageFilter, CudaThresholdImageFilter,
// CudaCastImageFilter): each against the ITK filter it subclasses, on the
// GPU (skipped without one) and through its CPU parent, and its device
// functor against ITK's on the host (what the kernels compute, pixel by
// pixel, with no GPU).
namespace
{
using itk::CudaTest::ExceptionMessage;
using itk::CudaTest::HostPixels;
using itk::CudaTest::MakeImageOfPixels;
constexpr unsigned int Dimension = 3;
template <typename T>
using CudaImageOf = itk::CudaImage<T, Dimension>;
template <typename T>
using ImageOf = itk::Image<T, Dimension>;

itk::Size<Dimension>
OddSize()
{
  return { { 41, 19, 13 } }; // not a multiple of any pack: heads and tails
}
size_t
OddCount()
{
  return 41 * 19 * 13;
}

/** `count` pixels spread over the type's range (a fifth of them small:
 * near the thresholds of the division), with the special values first. */
template <typename T>
std::vector<T>
MakePixels(size_t count, unsigned int seed, double low, double high)
{
  std::mt19937                           generator(seed);
  std::uniform_real_distribution<double> wide(low, high);
  std::uniform_int_distribution<int>     small(-3, 3);
  std::vector<T>                         pixels(count);
  for (size_t i = 0; i < count; ++i)
  {
    const double value = i % 5 == 0 ? small(generator) * (std::is_integral<T>::value ? 1.0 : 0.25) : wide(generator);
    pixels[i] = static_cast<T>(std::min(high, std::max(low, value)));
  }
  pixels[0] = T(0);
  pixels[1] = static_cast<T>(low);
  pixels[2] = static_cast<T>(high);
  if constexpr (std::is_floating_point<T>::value)
  {
    const T special[] = { static_cast<T>(-0.0),
                          std::numeric_limits<T>::denorm_min(),
                          std::numeric_limits<T>::infinity(),
                          -std::numeric_limits<T>::infinity(),
                          std::numeric_limits<T>::quiet_NaN(),
                          static_cast<T>(1e-17),
                          static_cast<T>(-2e-17),
                          static_cast<T>(3e-17),
                          static_cast<T>(1.1e-8), // near float's zero of itk::Math::AlmostEquals
                          static_cast<T>(-1.2e-8) };
    std::copy(std::begin(special), std::end(special), pixels.begin() + 3);
  }
  return pixels;
}

/** Equal, bit for bit but for the sign of NaNs (x86 makes negative NaNs,
 * the GPU positive ones), or within `ulps` units in the last place. */
template <typename T>
::testing::AssertionResult
SameValues(const std::vector<T> & got, const std::vector<T> & expected, int ulps = 0)
{
  if (got.size() != expected.size())
  {
    return ::testing::AssertionFailure() << got.size() << " pixels, expected " << expected.size();
  }
  for (size_t i = 0; i < got.size(); ++i)
  {
    if constexpr (std::is_floating_point<T>::value)
    {
      if (std::isnan(got[i]) && std::isnan(expected[i]))
      {
        continue;
      }
      T next = expected[i];
      bool close = std::memcmp(&got[i], &expected[i], sizeof(T)) == 0;
      T previous = expected[i];
      for (int k = 0; k < ulps && !close; ++k)
      {
        next = std::nextafter(next, std::numeric_limits<T>::infinity());
        previous = std::nextafter(previous, -std::numeric_limits<T>::infinity());
        close = got[i] == next || got[i] == previous;
      }
      if (close)
      {
        continue;
      }
    }
    else if (got[i] == expected[i])
    {
      continue;
    }
    return ::testing::AssertionFailure() << "pixel " << i << ": got " << +got[i] << ", expected " << +expected[i];
  }
  return ::testing::AssertionSuccess();
}

/** The ITK filter `TITKFilter` (of itk::Images) and `TCudaFilter` (of
 * CudaImages), configured alike by `configure`, on the same inputs: the
 * pixels they make. On the GPU, the output must have been computed there. */
template <typename TCudaFilter, typename TITKFilter, typename TConfigure, typename... TPixels>
std::pair<typename TCudaFilter::Pointer, typename TITKFilter::Pointer>
ExpectLikeITK(bool gpu, int ulps, const TConfigure & configure, const std::vector<TPixels> &... inputs)
{
  auto reference = TITKFilter::New();
  auto filter = TCudaFilter::New();
  filter->SetGPUEnabled(gpu);
  unsigned int index = 0;
  (reference->SetInput(index++, MakeImageOfPixels<ImageOf<TPixels>>(OddSize(), inputs)), ...);
  index = 0;
  (filter->SetInput(index++, MakeImageOfPixels<CudaImageOf<TPixels>>(OddSize(), inputs)), ...);
  configure(reference.GetPointer());
  configure(filter.GetPointer());
  reference->Update();
  filter->Update();
  if (gpu)
  {
    EXPECT_TRUE(filter->GetOutput()->GetCudaDataManager()->IsCPUBufferDirty()) << "computed on the GPU";
  }
  EXPECT_TRUE(SameValues(HostPixels(filter->GetOutput()), HostPixels(reference->GetOutput()), ulps));
  return { filter, reference };
}

/** Both paths: the GPU (skipped without one) and the CPU parent. */
class CudaIntensityFilters : public ::testing::TestWithParam<bool>
{};
INSTANTIATE_TEST_SUITE_P(Paths, CudaIntensityFilters, ::testing::Values(true, false), [](const auto & info) {
  return info.param ? std::string("GPU") : std::string("CPUParent");
});

// ---- Divide, DivideOrZeroOut
template <typename T>
void
ExpectDivideLikeITK(bool gpu)
{
  SCOPED_TRACE(typeid(T).name());
  const double low = std::is_signed<T>::value ? std::max(-1e6, static_cast<double>(std::numeric_limits<T>::lowest())) : 0.0;
  const double high = std::min(1e6, static_cast<double>(std::numeric_limits<T>::max()));
  const auto   numerators = MakePixels<T>(OddCount(), 1, low, high);
  const auto   denominators = MakePixels<T>(OddCount(), 2, low, high); // zeros and near-zeros among them
  using CudaFilter = itk::CudaDivideImageFilter<CudaImageOf<T>>;
  using ITKFilter = itk::DivideImageFilter<ImageOf<T>, ImageOf<T>, ImageOf<T>>;
  ExpectLikeITK<CudaFilter, ITKFilter>(gpu, 0, [](auto *) {}, numerators, denominators);
  // A constant divisor, and a constant dividend.
  ExpectLikeITK<CudaFilter, ITKFilter>(
    gpu, 0, [](auto * f) { f->SetConstant2(T(3)); }, numerators, denominators);
  ExpectLikeITK<CudaFilter, ITKFilter>(
    gpu, 0, [](auto * f) { f->SetConstant1(T(100)); }, numerators, denominators);
}

TEST_P(CudaIntensityFilters, DivideMatchesITK)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  ExpectDivideLikeITK<float>(GetParam());
  ExpectDivideLikeITK<double>(GetParam());
  ExpectDivideLikeITK<int>(GetParam());
  ExpectDivideLikeITK<short>(GetParam());
  ExpectDivideLikeITK<unsigned char>(GetParam());
}

TEST_P(CudaIntensityFilters, DivideByAConstantZeroIsRefusedAsITKRefusesIt)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  auto filter = itk::CudaDivideImageFilter<CudaImageOf<float>>::New();
  filter->SetGPUEnabled(GetParam());
  filter->SetInput1(MakeImageOfPixels<CudaImageOf<float>>(OddSize(), std::vector<float>(OddCount(), 1.0f)));
  filter->SetConstant2(1e-18f); // zero as itk::Math::AlmostEquals sees it
  const std::string message = ExceptionMessage([&] { filter->Update(); });
  EXPECT_NE(message.find("denominator should not be set to zero"), std::string::npos) << message;
}

TEST_P(CudaIntensityFilters, DivideOrZeroOutMatchesITK)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const auto numerators = MakePixels<float>(OddCount(), 3, -1e3, 1e3);
  const auto denominators = MakePixels<float>(OddCount(), 4, -2.0, 2.0); // below the threshold, and negative
  using CudaFilter = itk::CudaDivideOrZeroOutImageFilter<CudaImageOf<float>>;
  using ITKFilter = itk::DivideOrZeroOutImageFilter<ImageOf<float>, ImageOf<float>, ImageOf<float>>;
  ExpectLikeITK<CudaFilter, ITKFilter>(GetParam(), 0, [](auto *) {}, numerators, denominators); // ITK's defaults
  ExpectLikeITK<CudaFilter, ITKFilter>(
    GetParam(),
    0,
    [](auto * f) {
      f->SetThreshold(0.5f);
      f->SetConstant(-7.0f);
    },
    numerators,
    denominators);
  const auto doubles = MakePixels<double>(OddCount(), 5, -1e3, 1e3);
  ExpectLikeITK<itk::CudaDivideOrZeroOutImageFilter<CudaImageOf<double>>,
                itk::DivideOrZeroOutImageFilter<ImageOf<double>, ImageOf<double>, ImageOf<double>>>(
    GetParam(), 0, [](auto * f) { f->SetThreshold(-1.0); }, doubles, MakePixels<double>(OddCount(), 6, -3.0, 3.0));
}

// ---- Sqrt, Exp, Log: exp and log are the device's libm against the
// host's, each within an ulp of double: after the conversion to float
// within an ulp of float, in double within two of double.
template <typename T>
void
ExpectElementaryLikeITK(bool gpu)
{
  SCOPED_TRACE(typeid(T).name());
  const int  ulps = gpu ? (std::is_same<T, float>::value ? 1 : 2) : 0;
  const auto pixels = MakePixels<T>(OddCount(), 7, -50.0, 700.0); // exp overflows float past 88, double past 709
  ExpectLikeITK<itk::CudaSqrtImageFilter<CudaImageOf<T>>, itk::SqrtImageFilter<ImageOf<T>, ImageOf<T>>>(
    gpu, 0, [](auto *) {}, pixels);
  ExpectLikeITK<itk::CudaExpImageFilter<CudaImageOf<T>>, itk::ExpImageFilter<ImageOf<T>, ImageOf<T>>>(
    gpu, ulps, [](auto *) {}, pixels);
  ExpectLikeITK<itk::CudaLogImageFilter<CudaImageOf<T>>, itk::LogImageFilter<ImageOf<T>, ImageOf<T>>>(
    gpu, ulps, [](auto *) {}, pixels);
}

TEST_P(CudaIntensityFilters, SqrtExpAndLogMatchITK)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  ExpectElementaryLikeITK<float>(GetParam());
  ExpectElementaryLikeITK<double>(GetParam());
}

// ---- BinaryThreshold, Threshold
TEST_P(CudaIntensityFilters, BinaryThresholdMatchesITK)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const auto floats = MakePixels<float>(OddCount(), 8, -100.0, 100.0);
  ExpectLikeITK<itk::CudaBinaryThresholdImageFilter<CudaImageOf<float>, CudaImageOf<unsigned char>>,
                itk::BinaryThresholdImageFilter<ImageOf<float>, ImageOf<unsigned char>>>(
    GetParam(),
    0,
    [](auto * f) {
      f->SetLowerThreshold(-10.0f);
      f->SetUpperThreshold(0.5f);
      f->SetInsideValue(200);
      f->SetOutsideValue(7);
    },
    floats);
  ExpectLikeITK<itk::CudaBinaryThresholdImageFilter<CudaImageOf<float>, CudaImageOf<unsigned char>>,
                itk::BinaryThresholdImageFilter<ImageOf<float>, ImageOf<unsigned char>>>(
    GetParam(), 0, [](auto *) {}, floats); // ITK's defaults: every value but NaN inside
  // The thresholds as decorated inputs, the output of the input's type.
  const auto shorts = MakePixels<short>(OddCount(), 9, -32768.0, 32767.0);
  ExpectLikeITK<itk::CudaBinaryThresholdImageFilter<CudaImageOf<short>, CudaImageOf<short>>,
                itk::BinaryThresholdImageFilter<ImageOf<short>, ImageOf<short>>>(
    GetParam(),
    0,
    [](auto * f) {
      auto lower = itk::SimpleDataObjectDecorator<short>::New();
      lower->Set(-1000);
      f->SetLowerThresholdInput(lower);
      f->SetUpperThreshold(25000);
      f->SetInsideValue(-1);
    },
    shorts);
}

TEST_P(CudaIntensityFilters, BinaryThresholdRefusesALowerAboveTheUpperAsITK)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  auto filter = itk::CudaBinaryThresholdImageFilter<CudaImageOf<float>, CudaImageOf<unsigned char>>::New();
  filter->SetGPUEnabled(GetParam());
  filter->SetInput(MakeImageOfPixels<CudaImageOf<float>>(OddSize(), std::vector<float>(OddCount(), 1.0f)));
  filter->SetLowerThreshold(2.0f);
  filter->SetUpperThreshold(1.0f);
  const std::string message = ExceptionMessage([&] { filter->Update(); });
  EXPECT_NE(message.find("Lower threshold cannot be greater than upper threshold"), std::string::npos) << message;
}

TEST_P(CudaIntensityFilters, ThresholdMatchesITK)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const auto floats = MakePixels<float>(OddCount(), 10, -100.0, 100.0);
  using CudaFilter = itk::CudaThresholdImageFilter<CudaImageOf<float>>;
  using ITKFilter = itk::ThresholdImageFilter<ImageOf<float>>;
  ExpectLikeITK<CudaFilter, ITKFilter>(
    GetParam(),
    0,
    [](auto * f) {
      f->ThresholdOutside(-5.0f, 50.0f);
      f->SetOutsideValue(-1.5f);
    },
    floats);
  ExpectLikeITK<CudaFilter, ITKFilter>(GetParam(), 0, [](auto * f) { f->ThresholdBelow(0.0f); }, floats);
  const auto bytes = MakePixels<unsigned char>(OddCount(), 11, 0.0, 255.0);
  ExpectLikeITK<itk::CudaThresholdImageFilter<CudaImageOf<unsigned char>>, itk::ThresholdImageFilter<ImageOf<unsigned char>>>(
    GetParam(), 0, [](auto * f) { f->ThresholdAbove(100); }, bytes);
}

// ---- Cast
template <typename TIn, typename TOut>
void
ExpectCastLikeITK(bool gpu)
{
  SCOPED_TRACE(std::string(typeid(TIn).name()) + " to " + typeid(TOut).name());
  // Values the output type holds (C++ defines those conversions alone).
  const double low = std::max(static_cast<double>(std::numeric_limits<TOut>::lowest()),
                              static_cast<double>(std::numeric_limits<TIn>::lowest()));
  const double high = std::min(static_cast<double>(std::numeric_limits<TOut>::max()),
                               static_cast<double>(std::numeric_limits<TIn>::max()));
  auto pixels = MakePixels<TIn>(OddCount(), 12, low, high);
  if constexpr (std::is_floating_point<TIn>::value && std::is_integral<TOut>::value)
  {
    for (size_t i = 3; i < 11; ++i)
    {
      pixels[i] = static_cast<TIn>(i); // no NaN or infinity
    }
  }
  ExpectLikeITK<itk::CudaCastImageFilter<CudaImageOf<TIn>, CudaImageOf<TOut>>,
                itk::CastImageFilter<ImageOf<TIn>, ImageOf<TOut>>>(gpu, 0, [](auto *) {}, pixels);
}

TEST_P(CudaIntensityFilters, CastMatchesITK)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  ExpectCastLikeITK<float, double>(GetParam());
  ExpectCastLikeITK<double, float>(GetParam());
  ExpectCastLikeITK<float, unsigned char>(GetParam());
  ExpectCastLikeITK<double, short>(GetParam());
  ExpectCastLikeITK<float, int>(GetParam());
  ExpectCastLikeITK<unsigned char, float>(GetParam());
  ExpectCastLikeITK<short, unsigned short>(GetParam());
  ExpectCastLikeITK<int, unsigned char>(GetParam());
  ExpectCastLikeITK<float, float>(GetParam());
}

// ---- ShiftScale
template <typename TIn, typename TOut>
void
ExpectShiftScaleLikeITK(bool gpu, double shift, double scale, double low, double high)
{
  SCOPED_TRACE(std::string(typeid(TIn).name()) + " to " + typeid(TOut).name() + ", shift " + std::to_string(shift) +
               ", scale " + std::to_string(scale));
  const auto pixels = MakePixels<TIn>(OddCount(), 17, low, high);
  const auto filters = ExpectLikeITK<itk::CudaShiftScaleImageFilter<CudaImageOf<TIn>, CudaImageOf<TOut>>,
                                     itk::ShiftScaleImageFilter<ImageOf<TIn>, ImageOf<TOut>>>(
    gpu,
    0,
    [shift, scale](auto * f) {
      f->SetShift(shift);
      f->SetScale(scale);
    },
    pixels);
  EXPECT_EQ(filters.first->GetUnderflowCount(), filters.second->GetUnderflowCount());
  EXPECT_EQ(filters.first->GetOverflowCount(), filters.second->GetOverflowCount());
}

TEST_P(CudaIntensityFilters, ShiftScaleMatchesITKWithItsCounts)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  // Into the range, and out of it on both sides (counted).
  ExpectShiftScaleLikeITK<float, float>(GetParam(), 0.5, -3.0, -1e3, 1e3);
  ExpectShiftScaleLikeITK<float, float>(GetParam(), 1.0, 1e36, -1e3, 1e3);
  ExpectShiftScaleLikeITK<double, double>(GetParam(), -2.0, 0.25, -1e6, 1e6);
  ExpectShiftScaleLikeITK<float, unsigned char>(GetParam(), 10.0, 2.0, -100.0, 200.0);
  ExpectShiftScaleLikeITK<double, unsigned char>(GetParam(), 0.0, 1.0, -1e3, 1e3);
  ExpectShiftScaleLikeITK<short, short>(GetParam(), 100.0, 3.0, -30000.0, 30000.0);
  ExpectShiftScaleLikeITK<unsigned char, unsigned char>(GetParam(), -20.0, 1.5, 0.0, 255.0);
}

TEST_P(CudaIntensityFilters, ShiftScaleCountsAreThoseOfTheLastUpdate)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  auto filter = itk::CudaShiftScaleImageFilter<CudaImageOf<float>, CudaImageOf<unsigned char>>::New();
  filter->SetGPUEnabled(GetParam());
  filter->SetInput(MakeImageOfPixels<CudaImageOf<float>>(OddSize(), std::vector<float>(OddCount(), 300.0f)));
  filter->Update();
  EXPECT_EQ(filter->GetOverflowCount(), OddCount());
  EXPECT_EQ(filter->GetUnderflowCount(), 0u);
  filter->SetShift(-400.0); // every pixel below 0 now, counted anew
  filter->Update();
  EXPECT_EQ(filter->GetOverflowCount(), 0u);
  EXPECT_EQ(filter->GetUnderflowCount(), OddCount());
  // Counts not read before the next update are dropped with it.
  filter->SetShift(-200.0);
  filter->Update();
  filter->SetScale(-1.0);
  filter->Update();
  EXPECT_EQ(filter->GetUnderflowCount(), OddCount()) << "-(300 - 200) < 0";
  EXPECT_EQ(filter->GetOverflowCount(), 0u);
}

TEST(CudaIntensityFilters, CastInPlaceOfOneTypeComputesNothing)
{
  auto image = MakeImageOfPixels<CudaImageOf<float>>(OddSize(), MakePixels<float>(OddCount(), 13, -1.0, 1.0));
  const float * buffer = image->GetBufferPointer();
  auto          cast = itk::CudaCastImageFilter<CudaImageOf<float>, CudaImageOf<float>>::New();
  cast->SetInput(image);
  cast->InPlaceOn();
  image = nullptr;
  cast->Update();
  EXPECT_EQ(cast->GetOutput()->GetBufferPointer(), buffer) << "the input's buffer, untouched";
  EXPECT_EQ(cast->GetOutput()->GetCudaDataManager()->GetTransferStatistics().HostToDeviceCount, 0u)
    << "nothing went to the device";
}

// ---- The functors on the host, on every 8- and 16-bit value or samples
template <typename T>
std::vector<T>
Samples()
{
  std::vector<T> values;
  if constexpr (std::is_integral<T>::value && sizeof(T) <= 2)
  {
    for (long long v = std::numeric_limits<T>::lowest(); v <= static_cast<long long>(std::numeric_limits<T>::max()); ++v)
    {
      values.push_back(static_cast<T>(v));
    }
    return values;
  }
  return MakePixels<T>(20000, 14, static_cast<double>(std::numeric_limits<T>::lowest()) / 2,
                       static_cast<double>(std::numeric_limits<T>::max()) / 2);
}

template <typename T>
void
ExpectDivideFunctorLikeITKs()
{
  SCOPED_TRACE(typeid(T).name());
  const std::vector<T>                  values = Samples<T>();
  const itk::Functor::Div<T, T, T>      itk;
  const itk::CudaDivideFunctor<T, T, T> cuda;
  std::mt19937                          generator(15);
  std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
  for (size_t i = 0; i < 200000; ++i)
  {
    const T a = values[pick(generator)];
    T b = values[pick(generator)];
    if (i % 7 == 0)
    {
      b = T(0);
    }
    else if (i % 7 == 1)
    {
      b = static_cast<T>(b * 1e-40); // near zero, on both sides of AlmostEquals' bound
    }
    if constexpr (std::is_integral<T>::value && std::is_signed<T>::value)
    {
      if (a == std::numeric_limits<T>::lowest() && b == T(-1))
      {
        continue; // an overflow in C++'s division (int only: narrower types divide as int)
      }
    }
    const T expected = itk(a, b);
    const T got = cuda(a, b);
    ASSERT_TRUE((std::is_floating_point<T>::value && std::isnan(static_cast<double>(expected)) &&
                 std::isnan(static_cast<double>(got))) ||
                std::memcmp(&expected, &got, sizeof(T)) == 0)
      << +a << " / " << +b << ": got " << +got << ", expected " << +expected;
  }
}

TEST(CudaIntensityFunctors, DivideComputesWhatITKsDivComputes)
{
  ExpectDivideFunctorLikeITKs<float>();
  ExpectDivideFunctorLikeITKs<double>();
  ExpectDivideFunctorLikeITKs<unsigned char>();
  ExpectDivideFunctorLikeITKs<short>();
  ExpectDivideFunctorLikeITKs<unsigned short>();
  ExpectDivideFunctorLikeITKs<int>();
  ExpectDivideFunctorLikeITKs<unsigned int>();
}

TEST(CudaIntensityFunctors, ThresholdsComputeWhatITKsCompute)
{
  for (const short v : Samples<short>())
  {
    itk::Functor::BinaryThreshold<short, unsigned char> itk;
    itk.SetLowerThreshold(-7);
    itk.SetUpperThreshold(300);
    itk.SetInsideValue(9);
    itk.SetOutsideValue(1);
    const itk::CudaBinaryThresholdFunctor<short, unsigned char> cuda{ -7, 300, 9, 1 };
    ASSERT_EQ(cuda(v), itk(v)) << v;
  }
}

// A floating-point value out of an integer type's range converts as x86-64
// converts it (C++ leaves it undefined): what ITK's CastImageFilter gives
// on the platform of its wheels. Checked against ITK's filter here.
TEST(CudaIntensityFunctors, CastOutOfRangeAsITKOnX86)
{
  const std::vector<float> values = { 300.0f,   -1.0f,    -200.5f,  65535.75f, 70000.0f, -32769.0f, 3e9f,
                                      -3e9f,    5e9f,     -5e9f,    1e20f,     -1e20f,   std::numeric_limits<float>::infinity(),
                                      std::numeric_limits<float>::quiet_NaN() };
  const auto check = [&values](auto outputValue) {
    using TOut = decltype(outputValue);
    SCOPED_TRACE(typeid(TOut).name());
    auto cast = itk::CastImageFilter<itk::Image<float, 1>, itk::Image<TOut, 1>>::New();
    auto image = itk::Image<float, 1>::New();
    image->SetRegions(itk::Size<1>{ { values.size() } });
    image->Allocate();
    std::copy(values.begin(), values.end(), image->GetBufferPointer());
    cast->SetInput(image);
    cast->Update();
    const itk::CudaCastFunctor<float, TOut> cuda;
    for (size_t i = 0; i < values.size(); ++i)
    {
      EXPECT_EQ(+cuda(values[i]), +cast->GetOutput()->GetBufferPointer()[i]) << values[i];
    }
  };
  check(static_cast<unsigned char>(0));
  check(static_cast<short>(0));
  check(static_cast<unsigned short>(0));
  check(0);
  check(0u);
}
} // namespace
