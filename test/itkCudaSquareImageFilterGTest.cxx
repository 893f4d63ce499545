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
#include "itkCudaSquareImageFilter.h"
#include "itkCudaSquareImage.hcu"
#include "itkCudaTestUtilities.h"
#include "itkImageRegionConstIterator.h"
#include "itkImageRegionIterator.h"
#include "itkSquareImageFilter.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace
{
using itk::CudaTest::TransfersAre;

// Deterministic pseudo-random pixels whose squares fit the pixel type.
template <typename TImage>
typename TImage::Pointer
MakeRandomImage(const typename TImage::SizeType & size, unsigned int seed)
{
  using PixelType = typename TImage::PixelType;
  auto image = TImage::New();
  image->SetRegions(size);
  image->Allocate();
  std::mt19937 generator(seed);
  double       limit = 1000.0;
  if (std::is_integral<PixelType>::value)
  {
    limit = std::sqrt(static_cast<double>(std::numeric_limits<PixelType>::max())) - 1.0;
  }
  const double low = std::is_signed<PixelType>::value ? -limit : 0.0;
  std::uniform_real_distribution<double> distribution(low, limit);
  for (itk::ImageRegionIterator<TImage> it(image, image->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    it.Set(static_cast<PixelType>(distribution(generator)));
  }
  image->Modified();
  return image;
}

template <typename TImage>
typename TImage::SizeType
TestSize()
{
  typename TImage::SizeType size;
  const unsigned int        edges[4] = { 37, 29, 11, 3 }; // not multiples of any block size
  for (unsigned int d = 0; d < TImage::ImageDimension; ++d)
  {
    size[d] = edges[d];
  }
  if (TImage::ImageDimension == 1)
  {
    size[0] = 100003;
  }
  return size;
}

// ITK's CPU SquareImageFilter on a plain Image with the same pixels.
template <typename TImage>
std::vector<typename TImage::PixelType>
ReferenceSquares(const TImage * input)
{
  using PixelType = typename TImage::PixelType;
  using CPUImage = itk::Image<PixelType, TImage::ImageDimension>;
  auto cpuInput = CPUImage::New();
  cpuInput->SetRegions(input->GetBufferedRegion());
  cpuInput->Allocate();
  const size_t n = input->GetBufferedRegion().GetNumberOfPixels();
  std::copy_n(input->GetBufferPointer(), n, cpuInput->GetBufferPointer());
  auto square = itk::SquareImageFilter<CPUImage, CPUImage>::New();
  square->SetInput(cpuInput);
  square->Update();
  return std::vector<PixelType>(square->GetOutput()->GetBufferPointer(), square->GetOutput()->GetBufferPointer() + n);
}

template <typename TImage>
void
ExpectEqualPixels(const TImage * image, const std::vector<typename TImage::PixelType> & expected)
{
  const typename TImage::PixelType * pixels = image->GetBufferPointer();
  size_t                             mismatches = 0;
  for (size_t i = 0; i < expected.size(); ++i)
  {
    if (pixels[i] != expected[i] && ++mismatches <= 5)
    {
      ADD_FAILURE() << "pixel " << i << ": got " << +pixels[i] << ", expected " << +expected[i];
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

template <typename TImage>
class CudaSquareImageFilterTypedTest : public ::testing::Test
{};

using ImageTypes = ::testing::Types<itk::CudaImage<float, 2>,
                                    itk::CudaImage<float, 3>,
                                    itk::CudaImage<double, 3>,
                                    itk::CudaImage<int, 3>,
                                    itk::CudaImage<unsigned int, 2>,
                                    itk::CudaImage<unsigned long, 3>,
                                    itk::CudaImage<short, 2>,
                                    itk::CudaImage<unsigned short, 3>,
                                    itk::CudaImage<unsigned char, 2>,
                                    itk::CudaImage<signed char, 3>,
                                    itk::CudaImage<float, 1>,
                                    itk::CudaImage<float, 4>>;
TYPED_TEST_SUITE(CudaSquareImageFilterTypedTest, ImageTypes);

// Runs everywhere: the GPU path with a device, the CPU fallback without.
TYPED_TEST(CudaSquareImageFilterTypedTest, SquaresEveryPixelLikeITK)
{
  using ImageType = TypeParam;
  for (const bool inPlace : { true, false })
  {
    auto input = MakeRandomImage<ImageType>(TestSize<ImageType>(), 7);
    const auto expected = ReferenceSquares<ImageType>(input.GetPointer());
    auto       filter = itk::CudaSquareImageFilter<ImageType>::New();
    filter->SetInput(input);
    filter->SetInPlace(inPlace);
    filter->Update();
    ExpectEqualPixels<ImageType>(filter->GetOutput(), expected);
    if (itk::IsCudaAvailable())
    {
      // One upload of the input, one download of the result.
      EXPECT_TRUE(TransfersAre(filter->GetOutput()->GetCudaDataManager(), inPlace ? 1 : 0, 1));
    }
  }
}

TYPED_TEST(CudaSquareImageFilterTypedTest, GPUAndCPUPathsAgree)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  using ImageType = TypeParam;
  auto input = MakeRandomImage<ImageType>(TestSize<ImageType>(), 11);
  auto gpu = itk::CudaSquareImageFilter<ImageType>::New();
  gpu->SetInput(input);
  gpu->InPlaceOff();
  gpu->Update();
  auto cpu = itk::CudaSquareImageFilter<ImageType>::New();
  cpu->SetInput(input);
  cpu->InPlaceOff();
  cpu->GPUEnabledOff();
  cpu->Update();
  EXPECT_TRUE(TransfersAre(cpu->GetOutput()->GetCudaDataManager(), 0, 0));
  const size_t n = input->GetBufferedRegion().GetNumberOfPixels();
  const auto * cpuPixels = cpu->GetOutput()->GetBufferPointer();
  ExpectEqualPixels<ImageType>(gpu->GetOutput(), std::vector<typename ImageType::PixelType>(cpuPixels, cpuPixels + n));
}

TEST(CudaSquareImageFilter, ChainOfTenStaysOnTheDevice)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  using ImageType = itk::CudaImage<float, 3>;
  ImageType::SizeType size = { { 64, 48, 40 } };
  auto                input = ImageType::New();
  input->SetRegions(size);
  input->Allocate();
  const size_t       n = input->GetBufferedRegion().GetNumberOfPixels();
  std::vector<float> expected(n);
  for (size_t i = 0; i < n; ++i)
  {
    input->GetBufferPointer()[i] = 1.0f - static_cast<float>(i % 97) / 400.0f; // stays in (0, 1] when squared
    float v = input->GetBufferPointer()[i];
    for (int k = 0; k < 10; ++k)
    {
      v = v * v;
    }
    expected[i] = v;
  }
  std::vector<itk::CudaSquareImageFilter<ImageType>::Pointer> filters;
  ImageType::Pointer                                          current = input;
  for (int k = 0; k < 10; ++k)
  {
    auto filter = itk::CudaSquareImageFilter<ImageType>::New();
    filter->SetInput(current);
    filter->InPlaceOff();
    filters.push_back(filter);
    current = filter->GetOutput();
  }
  current->Update();
  // Exactly one upload (the input) and, once the host reads, one download.
  uint64_t uploads = 0;
  uint64_t downloads = 0;
  auto     count = [&](const ImageType * image) {
    const auto s = image->GetCudaDataManager()->GetTransferStatistics();
    uploads += s.HostToDeviceCount;
    downloads += s.DeviceToHostCount;
  };
  count(input);
  for (const auto & filter : filters)
  {
    count(filter->GetOutput());
  }
  EXPECT_EQ(uploads, 1u);
  EXPECT_EQ(downloads, 0u);
  ExpectEqualPixels<ImageType>(current, expected);
  uploads = downloads = 0;
  count(input);
  for (const auto & filter : filters)
  {
    count(filter->GetOutput());
  }
  EXPECT_EQ(uploads, 1u);
  EXPECT_EQ(downloads, 1u);
}

TEST(CudaSquareImageFilter, RerunsWhenTheInputChangesOnTheCPU)
{
  using ImageType = itk::CudaImage<float, 2>;
  ImageType::SizeType size = { { 16, 16 } };
  auto                input = MakeRandomImage<ImageType>(size, 5);
  auto                filter = itk::CudaSquareImageFilter<ImageType>::New();
  filter->SetInput(input);
  filter->InPlaceOff();
  filter->Update();
  const ImageType::IndexType index = { { 3, 4 } };
  input->SetPixel(index, 3.0f);
  input->Modified(); // as for any itk::Image, SetPixel alone does not re-run the pipeline
  filter->Update();
  EXPECT_EQ(filter->GetOutput()->GetPixel(index), 9.0f);
}

// ---------------------------------------------------------------------------
// itk::CudaSquareImage called directly on device memory: every start and
// end alignment of the 16-byte vector path, in and out equally or differently
// misaligned, and in place.

// The square ITK's CPU SquareImageFilter computes.
template <typename T>
T
ReferenceSquare(T x)
{
  if constexpr (std::is_integral<T>::value)
  {
    return static_cast<T>(static_cast<double>(x) * x);
  }
  else
  {
    return x * x;
  }
}

// Deterministic pseudo-random pixels whose squares fit the pixel type (so the
// CPU reference is defined), with fractions for floating-point types.
template <typename T>
std::vector<T>
MakeRandomPixels(size_t n, unsigned int seed)
{
  std::mt19937   generator(seed);
  std::vector<T> pixels(n);
  if constexpr (std::is_integral<T>::value)
  {
    const auto limit = static_cast<long long>(std::sqrt(static_cast<double>(std::numeric_limits<T>::max())));
    std::uniform_int_distribution<long long> distribution(std::is_signed<T>::value ? -limit : 0, limit);
    for (auto & p : pixels)
    {
      p = static_cast<T>(distribution(generator));
    }
  }
  else
  {
    std::uniform_real_distribution<T> distribution(T(-1000), T(1000));
    for (auto & p : pixels)
    {
      p = distribution(generator);
    }
  }
  return pixels;
}

constexpr unsigned char sentinelByte = 0xA5; // a negative short/float/double and not a square below 16^2
constexpr size_t        guardBytes = 16;     // poisoned bytes on each side of the output

// Device bytes, poisoned with the sentinel, from which a test cuts misaligned pixel pointers.
class PoisonedDeviceBytes
{
public:
  explicit PoisonedDeviceBytes(size_t bytes)
    : m_Bytes(bytes)
  {
    m_Memory->Allocate(bytes);
    CUDA_CHECK(cudaMemset(m_Memory->GetPointer(), sentinelByte, bytes));
  }
  char *
  At(size_t offset) const
  {
    return static_cast<char *>(m_Memory->GetPointer()) + offset;
  }
  std::vector<unsigned char>
  Download() const
  {
    std::vector<unsigned char> host(m_Bytes);
    CUDA_CHECK(cudaMemcpy(host.data(), m_Memory->GetPointer(), m_Bytes, cudaMemcpyDeviceToHost));
    return host;
  }

private:
  size_t                      m_Bytes;
  itk::GPUMemPointer::Pointer m_Memory{ itk::GPUMemPointer::New() };
};

// Squares `input` from byte inOffset of one buffer into byte guardBytes + outOffset
// of another (or in place at that offset) and checks every pixel and every byte around them.
template <typename T>
::testing::AssertionResult
SquaresAtOffsets(const std::vector<T> & input, size_t inOffset, size_t outOffset, bool inPlace)
{
  const size_t        n = input.size();
  const size_t        pixelBytes = n * sizeof(T);
  const size_t        outStart = guardBytes + outOffset;
  PoisonedDeviceBytes outBuffer(outStart + pixelBytes + 2 * guardBytes);
  T *                 out = reinterpret_cast<T *>(outBuffer.At(outStart));
  const T *           in = out;

  std::unique_ptr<PoisonedDeviceBytes> inBuffer;
  if (inPlace)
  {
    CUDA_CHECK(cudaMemcpy(out, input.data(), pixelBytes, cudaMemcpyHostToDevice));
  }
  else
  {
    inBuffer = std::make_unique<PoisonedDeviceBytes>(inOffset + pixelBytes + guardBytes);
    in = reinterpret_cast<const T *>(inBuffer->At(inOffset));
    CUDA_CHECK(cudaMemcpy(inBuffer->At(inOffset), input.data(), pixelBytes, cudaMemcpyHostToDevice));
  }
  itk::CudaSquareImage<T>(n, in, out);
  CUDA_CHECK(cudaDeviceSynchronize());

  const std::vector<unsigned char> bytes = outBuffer.Download();
  std::ostringstream               where;
  where << n << " pixels, in at byte " << inOffset << ", out at byte " << outOffset << (inPlace ? " (in place)" : "")
        << ": ";
  for (size_t b = 0; b < bytes.size(); ++b)
  {
    if ((b < outStart || b >= outStart + pixelBytes) && bytes[b] != sentinelByte)
    {
      return ::testing::AssertionFailure()
             << where.str() << "byte " << static_cast<long long>(b - outStart) << " relative to out was written";
    }
  }
  size_t             mismatches = 0;
  std::ostringstream first;
  for (size_t i = 0; i < n; ++i)
  {
    T got;
    std::memcpy(&got, bytes.data() + outStart + i * sizeof(T), sizeof(T));
    const T expected = ReferenceSquare(input[i]);
    if (got != expected && ++mismatches <= 3)
    {
      first << " pixel " << i << " of " << +input[i] << ": got " << +got << ", expected " << +expected << ";";
    }
  }
  if (mismatches != 0)
  {
    return ::testing::AssertionFailure() << where.str() << mismatches << " wrong pixels:" << first.str();
  }
  if (!inPlace)
  {
    const std::vector<unsigned char> inBytes = inBuffer->Download();
    if (std::memcmp(inBytes.data() + inOffset, input.data(), pixelBytes) != 0)
    {
      return ::testing::AssertionFailure() << where.str() << "the input was modified";
    }
  }
  return ::testing::AssertionSuccess();
}

template <typename T>
class CudaSquareImageKernelTypedTest : public ::testing::Test
{};

using KernelPixelTypes = ::testing::Types<unsigned char, short, float, double>;
TYPED_TEST_SUITE(CudaSquareImageKernelTypedTest, KernelPixelTypes);

TYPED_TEST(CudaSquareImageKernelTypedTest, SquaresEveryPixelAtEveryAlignment)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  using T = TypeParam;
  for (const size_t n : { size_t{ 0 }, size_t{ 1 }, size_t{ 15 }, size_t{ 16 }, size_t{ 17 }, size_t{ 1000003 } })
  {
    const std::vector<T> input = MakeRandomPixels<T>(n, static_cast<unsigned int>(n) + 1);
    for (size_t inOffset = 0; inOffset < 16; inOffset += sizeof(T))
    {
      for (size_t outOffset = 0; outOffset < 16; outOffset += sizeof(T))
      {
        EXPECT_TRUE(SquaresAtOffsets(input, inOffset, outOffset, false));
      }
      EXPECT_TRUE(SquaresAtOffsets(input, inOffset, inOffset, true));
    }
  }
}

// Pointers misaligned for the pixel type are refused before anything reaches
// the device, so host memory stands in for device memory and no GPU is needed.
template <typename T>
void
ExpectMisalignedPointersRefused()
{
  alignas(16) unsigned char storage[64] = {};
  T *                       aligned = reinterpret_cast<T *>(storage);
  T *                       misaligned = reinterpret_cast<T *>(storage + 1);
  const std::string message = itk::CudaTest::ExceptionMessage([&] { itk::CudaSquareImage<T>(4, misaligned, aligned); });
  EXPECT_NE(message.find("cudaErrorMisalignedAddress"), std::string::npos) << message;
  EXPECT_NE(message.find("aligned to " + std::to_string(alignof(T)) + " bytes, got in at 1 and out at 0"),
            std::string::npos)
    << message;
  EXPECT_NE(itk::CudaTest::ExceptionMessage([&] { itk::CudaSquareImage<T>(4, aligned, misaligned); }), "");
}

TEST(CudaSquareImageKernel, RefusesPointersMisalignedForThePixel)
{
  ExpectMisalignedPointersRefused<short>();
  ExpectMisalignedPointersRefused<float>();
  ExpectMisalignedPointersRefused<double>();
}

// 8- and 16-bit squares that overflow the pixel keep their low bits, as the
// double product converted through a 32-bit integer did before.
template <typename T>
void
ExpectEveryValueSquaresToItsLowBits()
{
  std::vector<T> input;
  for (long long v = std::numeric_limits<T>::min(); v <= std::numeric_limits<T>::max(); ++v)
  {
    input.push_back(static_cast<T>(v));
  }
  const size_t        bytes = input.size() * sizeof(T);
  PoisonedDeviceBytes in(bytes), out(bytes);
  CUDA_CHECK(cudaMemcpy(in.At(0), input.data(), bytes, cudaMemcpyHostToDevice));
  itk::CudaSquareImage<T>(input.size(), reinterpret_cast<const T *>(in.At(0)), reinterpret_cast<T *>(out.At(0)));
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<unsigned char> result = out.Download();
  size_t                           mismatches = 0;
  for (size_t i = 0; i < input.size(); ++i)
  {
    T got;
    std::memcpy(&got, result.data() + i * sizeof(T), sizeof(T));
    const auto value = static_cast<uint32_t>(static_cast<int64_t>(input[i]));
    const T    expected = static_cast<T>(value * value);
    if (got != expected && ++mismatches <= 5)
    {
      ADD_FAILURE() << "square of " << +input[i] << ": got " << +got << ", expected " << +expected;
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(CudaSquareImageKernel, SmallIntegersWrapLikeTheDoubleProductDid)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  ExpectEveryValueSquaresToItsLowBits<unsigned char>();
  ExpectEveryValueSquaresToItsLowBits<signed char>();
  ExpectEveryValueSquaresToItsLowBits<short>();
  ExpectEveryValueSquaresToItsLowBits<unsigned short>();
}
} // namespace
