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
#include "itkCudaTestUtilities.h"
#include "itkImageRegionConstIterator.h"
#include "itkImageRegionIterator.h"
#include "itkSquareImageFilter.h"

#include <random>

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

TEST(CudaSquareImageFilter, ChainStaysOnTheDevice)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  using ImageType = itk::CudaImage<float, 3>;
  ImageType::SizeType size = { { 64, 48, 40 } };
  auto                input = MakeRandomImage<ImageType>(size, 3);
  std::vector<float>  expected(input->GetBufferPointer(),
                              input->GetBufferPointer() + input->GetBufferedRegion().GetNumberOfPixels());
  for (auto & v : expected)
  {
    v = std::sqrt(std::abs(v)) / 4.0f; // keep 4 squarings in range
  }
  std::copy(expected.begin(), expected.end(), input->GetBufferPointer());
  for (auto & v : expected)
  {
    for (int k = 0; k < 4; ++k)
    {
      v = v * v;
    }
  }
  std::vector<itk::CudaSquareImageFilter<ImageType>::Pointer> filters;
  ImageType::Pointer                                          current = input;
  for (int k = 0; k < 4; ++k)
  {
    auto filter = itk::CudaSquareImageFilter<ImageType>::New();
    filter->SetInput(current);
    filter->InPlaceOff();
    filters.push_back(filter);
    current = filter->GetOutput();
  }
  current->Update();
  EXPECT_TRUE(TransfersAre(input->GetCudaDataManager(), 1, 0));
  for (const auto & filter : filters)
  {
    EXPECT_TRUE(TransfersAre(filter->GetOutput()->GetCudaDataManager(), 0, 0));
  }
  ExpectEqualPixels<ImageType>(current, expected);
  EXPECT_TRUE(TransfersAre(current->GetCudaDataManager(), 0, 1));
  // Intermediate results were never needed on the host.
  EXPECT_TRUE(TransfersAre(filters[1]->GetOutput()->GetCudaDataManager(), 0, 0));
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
} // namespace
