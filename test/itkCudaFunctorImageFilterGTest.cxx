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
#include "itkAbsImageFilter.h"
#include "itkAddImageFilter.h"
#include "itkMaximumImageFilter.h"
#include "itkMinimumImageFilter.h"
#include "itkMultiplyImageFilter.h"
#include "itkSquareImageFilter.h"
#include "itkSubtractImageFilter.h"
#include "itkCommand.h"
#include "itkCudaAbsImageFilter.h"
#include "itkCudaAddImageFilter.h"
#include "itkCudaMaximumImageFilter.h"
#include "itkCudaMinimumImageFilter.h"
#include "itkCudaMultiplyImageFilter.h"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaSubtractImageFilter.h"
#include "itkCudaTestFunctors.h"
#include "itkCudaTestUtilities.h"
#include "itkImageRegionIterator.h"
#include "itkStreamingImageFilter.h"
#include "itkUnaryGeneratorImageFilter.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

// The element-wise functor filters (CudaAbsImageFilter, CudaAddImageFilter,
// a functor of the test suite's own, CudaSquareImageFilter's events) against
// ITK's CPU filters, on the GPU and through their CPU parents.
namespace
{
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
  return { { 37, 23, 11 } }; // not a multiple of any pack: heads and tails
}

/** The range of the test pixels: every value of the type, but for signed
 * integers of int's size or more half of it, where ITK's functors (the
 * reference) have no undefined behaviour (abs of the most negative value, a
 * sum that overflows). */
template <typename T>
double
LowestPixel()
{
  return std::is_integral<T>::value && std::is_signed<T>::value && sizeof(T) >= sizeof(int)
           ? -static_cast<double>(std::numeric_limits<T>::max() / 2)
           : static_cast<double>(std::numeric_limits<T>::lowest());
}
template <typename T>
double
HighestPixel()
{
  return std::is_integral<T>::value && std::is_signed<T>::value && sizeof(T) >= sizeof(int)
           ? static_cast<double>(std::numeric_limits<T>::max() / 2)
           : static_cast<double>(std::numeric_limits<T>::max());
}

/** Pixels of every magnitude of that range, its ends among them. */
template <typename T>
std::vector<T>
MakePixels(size_t count, unsigned int seed)
{
  std::mt19937   generator(seed);
  std::vector<T> pixels(count);
  const double   low = LowestPixel<T>();
  const double   high = HighestPixel<T>();
  std::uniform_real_distribution<double> wide(std::is_integral<T>::value ? low : -1.0e6,
                                              std::is_integral<T>::value ? high : 1.0e6);
  for (auto & pixel : pixels)
  {
    pixel = static_cast<T>(wide(generator));
  }
  pixels[0] = static_cast<T>(low);
  pixels[1] = static_cast<T>(high);
  pixels[2] = T(0);
  if (std::is_floating_point<T>::value)
  {
    pixels[3] = static_cast<T>(-0.0);
    pixels[4] = std::numeric_limits<T>::denorm_min();
    pixels[5] = -std::numeric_limits<T>::infinity();
  }
  return pixels;
}

/** Equal bit for bit (so -0 differs from +0 and NaN equals NaN). */
template <typename T>
::testing::AssertionResult
SameBits(const std::vector<T> & got, const std::vector<T> & expected)
{
  if (got.size() != expected.size())
  {
    return ::testing::AssertionFailure() << got.size() << " pixels, expected " << expected.size();
  }
  for (size_t i = 0; i < got.size(); ++i)
  {
    if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0)
    {
      return ::testing::AssertionFailure() << "pixel " << i << ": got " << +got[i] << ", expected " << +expected[i];
    }
  }
  return ::testing::AssertionSuccess();
}

template <typename T>
std::vector<T>
ReferenceAbs(const std::vector<T> & pixels)
{
  auto filter = itk::AbsImageFilter<ImageOf<T>, ImageOf<T>>::New();
  filter->SetInput(MakeImageOfPixels<ImageOf<T>>(OddSize(), pixels));
  filter->Update();
  return HostPixels(filter->GetOutput());
}

template <typename T>
std::vector<T>
ReferenceAdd(const std::vector<T> & first, const std::vector<T> & second)
{
  auto filter = itk::AddImageFilter<ImageOf<T>, ImageOf<T>, ImageOf<T>>::New();
  filter->SetInput1(MakeImageOfPixels<ImageOf<T>>(OddSize(), first));
  filter->SetInput2(MakeImageOfPixels<ImageOf<T>>(OddSize(), second));
  filter->Update();
  return HostPixels(filter->GetOutput());
}

/** Whether ITK's product of `v` and `w` (in the promoted type, int for the
 * narrow integers) is defined: no signed overflow. Where it is not, ours
 * wraps around (CudaWrappingArithmetic), as ITK's does on the usual
 * hardware, and the test does not compare. */
template <typename T>
bool
ProductIsDefined(T v, T w)
{
  using Product = decltype(v * w);
  if constexpr (std::is_integral<Product>::value && std::is_signed<Product>::value)
  {
    const double product = static_cast<double>(v) * static_cast<double>(w);
    return product <= static_cast<double>(std::numeric_limits<Product>::max()) &&
           product >= static_cast<double>(std::numeric_limits<Product>::lowest());
  }
  return true;
}

/** Equal bit for bit, or both NaN: a NaN the arithmetic makes (inf - inf,
 * 0 * inf) has the sign bit set on x86 and clear on the GPU. */
template <typename T>
::testing::AssertionResult
SameValues(const std::vector<T> & got, const std::vector<T> & expected)
{
  if constexpr (std::is_floating_point<T>::value)
  {
    if (got.size() == expected.size())
    {
      std::vector<T> a = got;
      std::vector<T> b = expected;
      for (size_t i = 0; i < a.size(); ++i)
      {
        if (std::isnan(a[i]) && std::isnan(b[i]))
        {
          a[i] = b[i];
        }
      }
      return SameBits(a, b);
    }
  }
  return SameBits(got, expected);
}

template <typename T>
class CudaFunctorFilterTypedTest : public ::testing::Test
{};
using PixelTypes = ::testing::Types<float, double, signed char, unsigned char, short, unsigned short, int>;
TYPED_TEST_SUITE(CudaFunctorFilterTypedTest, PixelTypes);

// The device functors are host functions too: compared here with ITK's
// functors on every 8- and 16-bit value and on samples of the wider types,
// with no GPU (what the kernels compute, pixel by pixel).
template <typename T>
std::vector<T>
FunctorSamples()
{
  std::vector<T> values;
  if (sizeof(T) <= 2 && std::is_integral<T>::value)
  {
    for (long long v = std::numeric_limits<T>::lowest(); v <= static_cast<long long>(std::numeric_limits<T>::max());
         ++v)
    {
      values.push_back(static_cast<T>(v));
    }
    return values;
  }
  values = MakePixels<T>(4096, 21);
  if (std::is_floating_point<T>::value)
  {
    values.push_back(std::numeric_limits<T>::quiet_NaN());
    values.push_back(-std::numeric_limits<T>::quiet_NaN());
  }
  return values;
}

TYPED_TEST(CudaFunctorFilterTypedTest, DeviceFunctorsComputeWhatITKsFunctorsCompute)
{
  using T = TypeParam;
  const std::vector<T>                      values = FunctorSamples<T>();
  const itk::Functor::Abs<T, T>             itkAbs;
  const itk::CudaAbsFunctor<T, T, itk::CudaITKMathAbsIsStdAbs> cudaAbs;
  const itk::Functor::Square<T, T>          itkSquare;
  const itk::CudaSquareFunctor<T, T>        cudaSquare;
  const itk::Functor::Add2<T, T, T>         itkAdd;
  const itk::CudaAddFunctor<T, T, T>        cudaAdd;
  const itk::Functor::Sub2<T, T, T>         itkSubtract;
  const itk::CudaSubtractFunctor<T, T, T>   cudaSubtract;
  std::vector<T>                            got;
  std::vector<T>                            expected;
  for (size_t i = 0; i < values.size(); ++i)
  {
    const T v = values[i];
    const T w = values[(i * 7919 + 13) % values.size()];
    got.insert(got.end(),
               { cudaAbs(v), cudaAdd(v, w), cudaSubtract(v, w), itk::CudaMaximumFunctor<T>{}(v, w),
                 itk::CudaMinimumFunctor<T>{}(v, w) });
    expected.insert(expected.end(),
                    { itkAbs(v), itkAdd(v, w), itkSubtract(v, w), itk::Functor::Maximum<T, T, T>{}(v, w),
                      itk::Functor::Minimum<T, T, T>{}(v, w) });
    if (ProductIsDefined(v, w))
    {
      got.push_back(itk::CudaMultiplyFunctor<T, T, T>{}(v, w));
      expected.push_back(itk::Functor::Mult<T, T, T>{}(v, w));
    }
    // An integer square beyond the pixel type is undefined behaviour in
    // ITK's conversion from double (x86 gives the low bits below 2^31, 0
    // above); the kernels keep the low bits. Compared where it is defined.
    const double square = static_cast<double>(v) * static_cast<double>(v);
    if (std::is_floating_point<T>::value || square <= static_cast<double>(std::numeric_limits<T>::max()))
    {
      got.push_back(cudaSquare(v));
      expected.push_back(itkSquare(v));
    }
  }
  EXPECT_TRUE(SameBits(got, expected)) << "pixels are (abs, add, subtract, maximum, minimum[, multiply][, square]) of each value in turn";
}

// Where ITK's functors are undefined, ours are defined, and give what ITK's
// give on the usual hardware.
TEST(CudaFunctors, SignedExtremesAreDefined)
{
  constexpr int lowest = std::numeric_limits<int>::lowest();
  constexpr int highest = std::numeric_limits<int>::max();
  EXPECT_EQ((itk::CudaAddFunctor<int>{}(highest, 1)), lowest);
  EXPECT_EQ((itk::CudaAddFunctor<int>{}(lowest, -1)), highest);
  EXPECT_EQ((itk::CudaAbsFunctor<int, int, true>{}(lowest)), lowest);
  EXPECT_EQ((itk::CudaAbsFunctor<int, int, false>{}(lowest)), lowest);
  EXPECT_EQ((itk::CudaAbsFunctor<int, double, false>{}(lowest)), 2147483648.0) << "vnl_math's unsigned absolute value";
  EXPECT_EQ((itk::CudaAbsFunctor<int, double, true>{}(lowest)), -2147483648.0) << "std::abs's";
  EXPECT_EQ((itk::CudaAbsFunctor<signed char>{}(-128)), -128) << "128 as unsigned char, then signed char";
  EXPECT_EQ((itk::CudaAbsFunctor<signed char, short>{}(-128)), 128);
}

template <typename T>
void
ExpectAbsLikeITK(bool gpu)
{
  const auto pixels = MakePixels<T>(OddSize()[0] * OddSize()[1] * OddSize()[2], 7);
  auto       filter = itk::CudaAbsImageFilter<CudaImageOf<T>>::New();
  filter->SetGPUEnabled(gpu);
  filter->SetInput(MakeImageOfPixels<CudaImageOf<T>>(OddSize(), pixels));
  filter->Update();
  if (gpu)
  {
    EXPECT_TRUE(filter->GetOutput()->GetCudaDataManager()->IsCPUBufferDirty()) << "computed on the GPU";
  }
  EXPECT_TRUE(SameBits(HostPixels(filter->GetOutput()), ReferenceAbs(pixels)));
}

TYPED_TEST(CudaFunctorFilterTypedTest, AbsMatchesITKOnTheGPU)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  ExpectAbsLikeITK<TypeParam>(true);
}

TYPED_TEST(CudaFunctorFilterTypedTest, AbsMatchesITKThroughTheCPUParent)
{
  ExpectAbsLikeITK<TypeParam>(false);
}

/** `TCudaFilter` (over CudaImages) against `TITKFilter` (over itk::Images),
 * on images and with a constant on either side. */
template <typename T, typename TCudaFilter, typename TITKFilter>
void
ExpectBinaryLikeITK(bool gpu, std::vector<T> first, std::vector<T> second)
{
  const size_t count = first.size();
  const auto   reference = [](const std::vector<T> & a, const std::vector<T> & b) {
    auto filter = TITKFilter::New();
    filter->SetInput1(MakeImageOfPixels<ImageOf<T>>(OddSize(), a));
    filter->SetInput2(MakeImageOfPixels<ImageOf<T>>(OddSize(), b));
    filter->Update();
    return HostPixels(filter->GetOutput());
  };
  auto filter = TCudaFilter::New();
  filter->SetGPUEnabled(gpu);
  filter->SetInput1(MakeImageOfPixels<CudaImageOf<T>>(OddSize(), first));
  filter->SetInput2(MakeImageOfPixels<CudaImageOf<T>>(OddSize(), second));
  filter->Update();
  if (gpu)
  {
    EXPECT_TRUE(filter->GetOutput()->GetCudaDataManager()->IsCPUBufferDirty()) << "computed on the GPU";
  }
  EXPECT_TRUE(SameValues(HostPixels(filter->GetOutput()), reference(first, second)));
  const T constant = first[count / 2];
  filter->SetConstant2(constant);
  filter->Update();
  EXPECT_TRUE(SameValues(HostPixels(filter->GetOutput()), reference(first, std::vector<T>(count, constant))));
  filter->SetConstant1(constant);
  filter->SetInput2(MakeImageOfPixels<CudaImageOf<T>>(OddSize(), second));
  filter->Update();
  EXPECT_TRUE(SameValues(HostPixels(filter->GetOutput()), reference(std::vector<T>(count, constant), second)));
}

template <typename T>
void
ExpectAddLikeITK(bool gpu)
{
  const size_t count = OddSize()[0] * OddSize()[1] * OddSize()[2];
  ExpectBinaryLikeITK<T, itk::CudaAddImageFilter<CudaImageOf<T>>,
                      itk::AddImageFilter<ImageOf<T>, ImageOf<T>, ImageOf<T>>>(
    gpu, MakePixels<T>(count, 11), MakePixels<T>(count, 12));
}

TYPED_TEST(CudaFunctorFilterTypedTest, AddMatchesITKOnTheGPU)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  ExpectAddLikeITK<TypeParam>(true);
}

TYPED_TEST(CudaFunctorFilterTypedTest, AddMatchesITKThroughTheCPUParent)
{
  ExpectAddLikeITK<TypeParam>(false);
}

template <typename T>
void
ExpectSubtractLikeITK(bool gpu)
{
  const size_t count = OddSize()[0] * OddSize()[1] * OddSize()[2];
  ExpectBinaryLikeITK<T, itk::CudaSubtractImageFilter<CudaImageOf<T>>,
                      itk::SubtractImageFilter<ImageOf<T>, ImageOf<T>, ImageOf<T>>>(
    gpu, MakePixels<T>(count, 31), MakePixels<T>(count, 32));
}

/** Factors whose products ITK computes without a signed overflow (for int
 * and the narrow integers promoted to int). */
template <typename T>
std::vector<T>
MakeFactors(size_t count, unsigned int seed)
{
  std::vector<T> pixels = MakePixels<T>(count, seed);
  if constexpr (std::is_integral<T>::value)
  {
    for (auto & pixel : pixels)
    {
      pixel = static_cast<T>(static_cast<long long>(pixel) % 46341); // 46340^2 < 2^31 - 1 < 46341^2
    }
  }
  return pixels;
}

template <typename T>
void
ExpectMultiplyLikeITK(bool gpu)
{
  const size_t count = OddSize()[0] * OddSize()[1] * OddSize()[2];
  ExpectBinaryLikeITK<T, itk::CudaMultiplyImageFilter<CudaImageOf<T>>,
                      itk::MultiplyImageFilter<ImageOf<T>, ImageOf<T>, ImageOf<T>>>(
    gpu, MakeFactors<T>(count, 41), MakeFactors<T>(count, 42));
}

template <typename T>
void
ExpectMaximumAndMinimumLikeITK(bool gpu)
{
  const size_t count = OddSize()[0] * OddSize()[1] * OddSize()[2];
  std::vector<T> first = MakePixels<T>(count, 51);
  std::vector<T> second = MakePixels<T>(count, 52);
  if constexpr (std::is_floating_point<T>::value)
  {
    first[6] = std::numeric_limits<T>::quiet_NaN(); // a NaN on either side: ITK's choice
    second[7] = std::numeric_limits<T>::quiet_NaN();
    second[8] = first[8]; // equal pixels, and -0 against +0
    first[9] = T(0);
    second[9] = static_cast<T>(-0.0);
  }
  ExpectBinaryLikeITK<T, itk::CudaMaximumImageFilter<CudaImageOf<T>>,
                      itk::MaximumImageFilter<ImageOf<T>, ImageOf<T>, ImageOf<T>>>(gpu, first, second);
  ExpectBinaryLikeITK<T, itk::CudaMinimumImageFilter<CudaImageOf<T>>,
                      itk::MinimumImageFilter<ImageOf<T>, ImageOf<T>, ImageOf<T>>>(gpu, first, second);
}

TYPED_TEST(CudaFunctorFilterTypedTest, MaximumAndMinimumMatchITKOnTheGPU)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  ExpectMaximumAndMinimumLikeITK<TypeParam>(true);
}

TYPED_TEST(CudaFunctorFilterTypedTest, MaximumAndMinimumMatchITKThroughTheCPUParent)
{
  ExpectMaximumAndMinimumLikeITK<TypeParam>(false);
}

TYPED_TEST(CudaFunctorFilterTypedTest, SubtractMatchesITKOnTheGPU)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  ExpectSubtractLikeITK<TypeParam>(true);
}

TYPED_TEST(CudaFunctorFilterTypedTest, SubtractMatchesITKThroughTheCPUParent)
{
  ExpectSubtractLikeITK<TypeParam>(false);
}

TYPED_TEST(CudaFunctorFilterTypedTest, MultiplyMatchesITKOnTheGPU)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  ExpectMultiplyLikeITK<TypeParam>(true);
}

TYPED_TEST(CudaFunctorFilterTypedTest, MultiplyMatchesITKThroughTheCPUParent)
{
  ExpectMultiplyLikeITK<TypeParam>(false);
}

TEST(CudaAddImageFilter, RunsInPlaceOnTheFirstInputsBuffers)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  using ImageType = CudaImageOf<float>;
  const size_t count = OddSize()[0] * OddSize()[1] * OddSize()[2];
  const auto   first = MakePixels<float>(count, 3);
  const auto   second = MakePixels<float>(count, 4);
  auto         input1 = MakeImageOfPixels<ImageType>(OddSize(), first);
  input1->GetCudaDataManager()->GetGPUBufferPointer(); // the first input lives on the device
  const void * device = input1->GetCudaDataManager()->GetConstGPUBufferPointer();
  auto         filter = itk::CudaAddImageFilter<ImageType>::New();
  filter->InPlaceOn();
  filter->SetInput1(input1);
  filter->SetInput2(MakeImageOfPixels<ImageType>(OddSize(), second));
  input1 = nullptr;
  filter->Update();
  EXPECT_EQ(filter->GetOutput()->GetCudaDataManager()->GetConstGPUBufferPointer(), device);
  EXPECT_TRUE(SameBits(HostPixels(filter->GetOutput()), ReferenceAdd(first, second)));
}

TEST(CudaAddImageFilter, AddsStreamedPiecesOfLargerInputs)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  using ImageType = CudaImageOf<short>;
  const size_t count = OddSize()[0] * OddSize()[1] * OddSize()[2];
  const auto   first = MakePixels<short>(count, 5);
  const auto   second = MakePixels<short>(count, 6);
  auto         add = itk::CudaAddImageFilter<ImageType>::New();
  auto         input1 = MakeImageOfPixels<ImageType>(OddSize(), first);
  auto         input2 = MakeImageOfPixels<ImageType>(OddSize(), second);
  input1->GetCudaDataManager()->GetGPUBufferPointer();
  add->SetInput1(input1);
  add->SetInput2(input2);
  auto streamer = itk::StreamingImageFilter<ImageType, ImageType>::New();
  streamer->SetInput(add->GetOutput());
  streamer->SetNumberOfStreamDivisions(4);
  streamer->Update();
  EXPECT_LT(add->GetOutput()->GetBufferedRegion().GetNumberOfPixels(), count) << "the last piece alone";
  EXPECT_TRUE(SameBits(HostPixels(streamer->GetOutput()), ReferenceAdd(first, second)));
}

// Vector pixels (displacement fields): the kernels see itk::CudaVectorPixel,
// whose sum is itk::Vector's, component by component in float.
template <typename TPixel, unsigned int VDimension>
void
ExpectVectorAddLikeITK(bool gpu, bool inPlace)
{
  using CudaImageType = itk::CudaImage<TPixel, VDimension>;
  using ImageType = itk::Image<TPixel, VDimension>;
  itk::Size<VDimension> size;
  for (unsigned int d = 0; d < VDimension; ++d)
  {
    size[d] = OddSize()[d];
  }
  const size_t             count = itk::ImageRegion<VDimension>(size).GetNumberOfPixels();
  const size_t             components = count * TPixel::Dimension;
  const std::vector<float> first = MakePixels<float>(components, 31);
  const std::vector<float> second = MakePixels<float>(components, 32);
  const auto               make = [&size](auto image, const std::vector<float> & values) {
    image->SetRegions(size);
    image->Allocate();
    std::memcpy(static_cast<void *>(image->GetBufferPointer()), values.data(), values.size() * sizeof(float));
    return image;
  };
  const auto componentsOf = [components](const auto * image) {
    const auto * values = reinterpret_cast<const float *>(image->GetBufferPointer());
    return std::vector<float>(values, values + components);
  };
  TPixel constant;
  for (unsigned int c = 0; c < TPixel::Dimension; ++c)
  {
    constant[c] = first[count / 2 * TPixel::Dimension + c];
  }

  auto reference = itk::AddImageFilter<ImageType>::New();
  reference->SetInput1(make(ImageType::New(), first));
  reference->SetInput2(make(ImageType::New(), second));
  reference->Update();
  const std::vector<float> expected = componentsOf(reference->GetOutput());
  reference->SetConstant2(constant);
  reference->Update();
  const std::vector<float> expectedWithConstant = componentsOf(reference->GetOutput());

  auto filter = itk::CudaAddImageFilter<CudaImageType>::New();
  filter->SetGPUEnabled(gpu);
  filter->SetInPlace(inPlace);
  filter->SetInput1(make(CudaImageType::New(), first));
  filter->SetInput2(make(CudaImageType::New(), second));
  filter->Update();
  if (gpu)
  {
    EXPECT_TRUE(filter->GetOutput()->GetCudaDataManager()->IsCPUBufferDirty()) << "computed on the GPU";
  }
  EXPECT_TRUE(SameBits(componentsOf(static_cast<const CudaImageType *>(filter->GetOutput())), expected));
  filter->SetInput1(make(CudaImageType::New(), first));
  filter->SetConstant2(constant);
  filter->Update();
  EXPECT_TRUE(
    SameBits(componentsOf(static_cast<const CudaImageType *>(filter->GetOutput())), expectedWithConstant));
}

TEST(CudaAddImageFilter, AddsVectorPixelsLikeITKOnTheGPU)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  for (const bool inPlace : { false, true })
  {
    SCOPED_TRACE(inPlace ? "in place" : "out of place");
    ExpectVectorAddLikeITK<itk::Vector<float, 3>, 3>(true, inPlace);
    ExpectVectorAddLikeITK<itk::CovariantVector<float, 3>, 3>(true, inPlace);
    ExpectVectorAddLikeITK<itk::Vector<float, 2>, 2>(true, inPlace);
    // 16 bytes aligned to 4: one pixel at a time, never a 16-byte pack.
    ExpectVectorAddLikeITK<itk::Vector<float, 4>, 3>(true, inPlace);
  }
}

TEST(CudaAddImageFilter, AddsVectorPixelsLikeITKThroughTheCPUParent)
{
  ExpectVectorAddLikeITK<itk::Vector<float, 3>, 3>(false, false);
  ExpectVectorAddLikeITK<itk::CovariantVector<float, 2>, 2>(false, true);
}

TEST(CudaVectorPixel, IsTheDeviceViewOfITKsVectorPixels)
{
  static_assert(std::is_same<itk::CudaDevicePixelType<itk::Vector<float, 3>>, itk::CudaVectorPixel<float, 3>>::value,
                "itk::Vector");
  static_assert(
    std::is_same<itk::CudaDevicePixelType<itk::CovariantVector<double, 2>>, itk::CudaVectorPixel<double, 2>>::value,
    "itk::CovariantVector");
  static_assert(std::is_same<itk::CudaDevicePixelType<short>, short>::value, "scalars are themselves");
  const float                 first[3] = { 1.5f, -2.0f, 1.0e30f };
  const float                 second[3] = { 0.25f, 2.0f, 1.0e30f };
  const itk::Vector<float, 3> a(first);
  const itk::Vector<float, 3> b(second);
  const auto                  sum = itk::CudaAsDevicePixel(a) + itk::CudaAsDevicePixel(b);
  const itk::Vector<float, 3> expected = a + b;
  for (unsigned int c = 0; c < 3; ++c)
  {
    EXPECT_EQ(sum[c], expected[c]) << "component " << c;
  }
  const itk::Vector<float, 3> pixels[2] = { a, b };
  EXPECT_EQ(static_cast<const void *>(itk::CudaAsDevicePixels(pixels)), static_cast<const void *>(pixels))
    << "the same memory, seen as the device type";
  EXPECT_EQ(itk::CudaAsDevicePixels(pixels)[1][2], 1.0e30f);
}

// A functor of one's own: the device functor, its kernels instantiated in
// itkCudaTestKernels.cu, and this class; the same functor serves the CPU
// parent, ITK's UnaryGeneratorImageFilter.
template <typename TImage>
class CudaScaleAndShiftImageFilter
  : public itk::CudaUnaryFunctorImageFilter<TImage,
                                            TImage,
                                            itk::CudaTest::ScaleAndShift,
                                            itk::UnaryGeneratorImageFilter<TImage, TImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaScaleAndShiftImageFilter);
  using Self = CudaScaleAndShiftImageFilter;
  using Superclass = itk::CudaUnaryFunctorImageFilter<TImage,
                                                      TImage,
                                                      itk::CudaTest::ScaleAndShift,
                                                      itk::UnaryGeneratorImageFilter<TImage, TImage>>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);

  void
  SetScaleAndShift(float scale, float shift)
  {
    const itk::CudaTest::ScaleAndShift functor{ scale, shift };
    this->SetCudaFunctor(functor);
    this->SetFunctor(functor);
  }

protected:
  CudaScaleAndShiftImageFilter() { this->SetScaleAndShift(1.0f, 0.0f); }
};

TEST(CudaUnaryFunctorImageFilter, RunsAFunctorOfOnesOwnOnBothPaths)
{
  using ImageType = CudaImageOf<float>;
  const size_t       count = OddSize()[0] * OddSize()[1] * OddSize()[2];
  std::vector<float> pixels(count);
  std::vector<float> expected(count);
  for (size_t i = 0; i < count; ++i)
  {
    // Whole numbers: pixel * 3 - 7 is exact with or without a fused multiply-add.
    pixels[i] = static_cast<float>(static_cast<int>(i % 1001) - 500);
    expected[i] = pixels[i] * 3.0f - 7.0f;
  }
  for (const bool gpu : { false, true })
  {
    if (gpu && !itk::IsCudaAvailable())
    {
      continue; // the GPU half: below, skipped visibly
    }
    auto filter = CudaScaleAndShiftImageFilter<ImageType>::New();
    filter->SetScaleAndShift(3.0f, -7.0f);
    filter->SetGPUEnabled(gpu);
    filter->SetInput(MakeImageOfPixels<ImageType>(OddSize(), pixels));
    filter->Update();
    EXPECT_TRUE(SameBits(HostPixels(filter->GetOutput()), expected)) << (gpu ? "GPU" : "CPU parent");
  }
  ITK_CUDA_SKIP_WITHOUT_GPU();
}

/** What an observer of a filter saw, in order. */
struct EventLog
{
  std::vector<std::string> Events;
  std::vector<float>       Progress;
  bool                     AbortAtZero{ false };
};

void
Observe(itk::ProcessObject * filter, EventLog & log)
{
  auto record = itk::CStyleCommand::New();
  record->SetClientData(&log);
  record->SetCallback([](itk::Object * caller, const itk::EventObject & event, void * data) {
    auto & log = *static_cast<EventLog *>(data);
    auto * process = static_cast<itk::ProcessObject *>(caller);
    log.Events.emplace_back(event.GetEventName());
    if (itk::ProgressEvent().CheckEvent(&event))
    {
      log.Progress.push_back(process->GetProgress());
      if (log.AbortAtZero && process->GetProgress() == 0.0f)
      {
        process->AbortGenerateDataOn();
      }
    }
  });
  filter->AddObserver(itk::StartEvent(), record);
  filter->AddObserver(itk::ProgressEvent(), record);
  filter->AddObserver(itk::EndEvent(), record);
  filter->AddObserver(itk::AbortEvent(), record);
}

void
ExpectProgressLikeITK(bool gpu)
{
  using ImageType = CudaImageOf<float>;
  auto filter = itk::CudaSquareImageFilter<ImageType>::New();
  filter->SetGPUEnabled(gpu);
  filter->SetInput(MakeImageOfPixels<ImageType>(OddSize(), MakePixels<float>(OddSize()[0] * OddSize()[1] * OddSize()[2], 1)));
  EventLog log;
  Observe(filter, log);
  filter->Update();
  ASSERT_GE(log.Events.size(), 4u);
  EXPECT_EQ(log.Events.front(), "StartEvent");
  EXPECT_EQ(log.Events.back(), "EndEvent");
  ASSERT_GE(log.Progress.size(), 2u);
  EXPECT_EQ(log.Progress.front(), 0.0f);
  EXPECT_EQ(log.Progress.back(), 1.0f);
  if (gpu)
  {
    EXPECT_EQ(log.Events, (std::vector<std::string>{ "StartEvent", "ProgressEvent", "ProgressEvent", "EndEvent" }));
  }
}

TEST(CudaFilterEvents, ProgressGoesFromZeroToOneOnTheGPU)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  ExpectProgressLikeITK(true);
}

TEST(CudaFilterEvents, ProgressGoesFromZeroToOneThroughTheCPUParent)
{
  ExpectProgressLikeITK(false);
}

TEST(CudaFilterEvents, AnObserverAbortsTheUpdateBeforeTheGPUWork)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  using ImageType = CudaImageOf<float>;
  const auto pixels = MakePixels<float>(OddSize()[0] * OddSize()[1] * OddSize()[2], 2);
  auto       input = MakeImageOfPixels<ImageType>(OddSize(), pixels);
  auto       filter = itk::CudaAbsImageFilter<ImageType>::New();
  filter->SetInput(input);
  EventLog log;
  log.AbortAtZero = true;
  Observe(filter, log);
  EXPECT_THROW(filter->Update(), itk::ProcessAborted);
  EXPECT_EQ(log.Events, (std::vector<std::string>{ "StartEvent", "ProgressEvent", "AbortEvent" }));
  // Nothing was lost: the input is intact, and the next update runs.
  EXPECT_TRUE(SameBits(HostPixels(input.GetPointer()), pixels));
  log.AbortAtZero = false;
  filter->Modified();
  filter->Update();
  EXPECT_TRUE(SameBits(HostPixels(filter->GetOutput()), ReferenceAbs(pixels)));
}

// The binary kernel at every relative alignment of its three pointers
// (packs where they agree, narrower packs or single pixels where not).
TEST(CudaTransformElements, AddsAtEveryAlignment)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  constexpr size_t   count = 1000;
  constexpr size_t   slack = 8;
  const auto         first = MakePixels<float>(count + slack, 8);
  const auto         second = MakePixels<float>(count + slack, 9);
  float *            device = nullptr;
  const size_t       bytes = 3 * (count + slack) * sizeof(float);
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&device), bytes));
  const std::unique_ptr<float, cudaError_t (*)(void *)> owned(device, cudaFree);
  float *            in1 = device;
  float *            in2 = device + (count + slack);
  float *            out = device + 2 * (count + slack);
  CUDA_CHECK(cudaMemcpy(in1, first.data(), first.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(in2, second.data(), second.size() * sizeof(float), cudaMemcpyHostToDevice));
  const itk::CudaAddFunctor<float> add;
  for (size_t a : { 0, 1, 2, 3 })
  {
    for (size_t b : { 0, 1, 3 })
    {
      for (size_t c : { 0, 2, 3 })
      {
        CUDA_CHECK(cudaMemset(out, 0xff, (count + slack) * sizeof(float)));
        itk::CudaTransformElements(count, in1 + a, in2 + b, out + c, add, nullptr);
        std::vector<float> got(count + slack);
        CUDA_CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
        size_t mismatches = 0;
        for (size_t i = 0; i < count; ++i)
        {
          mismatches += got[c + i] != first[a + i] + second[b + i];
        }
        EXPECT_EQ(mismatches, 0u) << "offsets " << a << ", " << b << ", " << c;
        uint32_t untouched = 0;
        std::memcpy(&untouched, &got[c + count], sizeof(untouched));
        EXPECT_EQ(untouched, 0xffffffffu) << "wrote past the end at offsets " << a << ", " << b << ", " << c;
      }
    }
  }
}
} // namespace
