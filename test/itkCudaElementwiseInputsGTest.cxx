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
#include "itkAddImageFilter.h"
#include "itkCudaAddImageFilter.h"
#include "itkCudaDeviceSplitter.h"
#include "itkCudaHostMemoryPool.h"
#include "itkCudaTestUtilities.h"
#include "itkStreamingImageFilter.h"

#include <cstring>
#include <random>
#include <vector>

// CudaElementwiseImageFilter with several inputs (through
// CudaBinaryFunctorImageFilter): inputs and output of three pixel sizes
// (unsigned char + float -> double), images and constants, on each path of
// the base: whole buffers, streamed pieces of larger inputs, chunks streamed
// from pinned host memory, the split across devices; against ITK's
// AddImageFilter of the same types, bit for bit.
namespace
{
constexpr unsigned int Dimension = 3;
using Image1 = itk::CudaImage<unsigned char, Dimension>;
using Image2 = itk::CudaImage<float, Dimension>;
using OutputImage = itk::CudaImage<double, Dimension>;
using FilterType = itk::CudaAddImageFilter<Image1, Image2, OutputImage>;
using ReferenceType =
  itk::AddImageFilter<itk::Image<unsigned char, Dimension>, itk::Image<float, Dimension>, itk::Image<double, Dimension>>;

itk::Size<Dimension>
OddSize()
{
  return { { 131, 67, 29 } }; // 254,473 pixels: no piece, chunk or pack boundary falls on the end
}

template <typename TImage>
typename TImage::Pointer
MakeImage(unsigned int seed)
{
  auto image = TImage::New();
  image->SetRegions(OddSize());
  image->Allocate();
  std::mt19937                           generator(seed);
  std::uniform_real_distribution<double> values(0.0, 255.0);
  auto *                                 pixels = image->GetBufferPointer();
  for (size_t i = 0; i < image->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    pixels[i] = static_cast<typename TImage::PixelType>(values(generator) * (seed % 2 ? 1.0 : 0.37));
  }
  return image;
}

/** ITK's sum of the same pixels (the constants where given). */
std::vector<double>
Reference(const Image1 * first, const Image2 * second, const unsigned char * constant1, const float * constant2)
{
  auto reference = ReferenceType::New();
  if (constant1 != nullptr)
  {
    reference->SetConstant1(*constant1);
  }
  else
  {
    auto image = itk::Image<unsigned char, Dimension>::New();
    image->SetRegions(first->GetBufferedRegion());
    image->Allocate();
    std::memcpy(image->GetBufferPointer(), first->GetBufferPointer(), first->GetBufferedRegion().GetNumberOfPixels());
    reference->SetInput1(image);
  }
  if (constant2 != nullptr)
  {
    reference->SetConstant2(*constant2);
  }
  else
  {
    auto image = itk::Image<float, Dimension>::New();
    image->SetRegions(second->GetBufferedRegion());
    image->Allocate();
    std::memcpy(image->GetBufferPointer(), second->GetBufferPointer(),
                second->GetBufferedRegion().GetNumberOfPixels() * sizeof(float));
    reference->SetInput2(image);
  }
  reference->Update();
  const double * sum = reference->GetOutput()->GetBufferPointer();
  return { sum, sum + reference->GetOutput()->GetBufferedRegion().GetNumberOfPixels() };
}

::testing::AssertionResult
SameBits(const OutputImage * output, const std::vector<double> & expected)
{
  const double * got = output->GetBufferPointer(); // the GPU result comes down here
  if (output->GetBufferedRegion().GetNumberOfPixels() != expected.size())
  {
    return ::testing::AssertionFailure() << output->GetBufferedRegion().GetNumberOfPixels() << " pixels, expected "
                                         << expected.size();
  }
  for (size_t i = 0; i < expected.size(); ++i)
  {
    if (std::memcmp(&got[i], &expected[i], sizeof(double)) != 0)
    {
      return ::testing::AssertionFailure() << "pixel " << i << ": got " << got[i] << ", expected " << expected[i];
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(CudaElementwiseInputs, ThreePixelSizesOnTheDevice)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto first = MakeImage<Image1>(1);
  auto second = MakeImage<Image2>(2);
  auto filter = FilterType::New();
  filter->SetInput1(first);
  filter->SetInput2(second);
  filter->Update();
  EXPECT_TRUE(filter->GetOutput()->GetCudaDataManager()->IsCPUBufferDirty()) << "computed on the GPU";
  EXPECT_TRUE(SameBits(filter->GetOutput(), Reference(first, second, nullptr, nullptr)));

  // Each input a constant in turn.
  const unsigned char constant1 = 201;
  const float         constant2 = -3.25f;
  filter->SetConstant1(constant1);
  filter->Update();
  EXPECT_TRUE(SameBits(filter->GetOutput(), Reference(first, second, &constant1, nullptr)));
  filter->SetInput1(first);
  filter->SetConstant2(constant2);
  filter->Update();
  EXPECT_TRUE(SameBits(filter->GetOutput(), Reference(first, second, nullptr, &constant2)));
}

TEST(CudaElementwiseInputs, ThreePixelSizesInStreamedPiecesOfLargerInputs)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto first = MakeImage<Image1>(3);
  auto second = MakeImage<Image2>(4);
  second->GetCudaDataManager()->GetGPUBufferPointer(); // one input on the device, one on the host
  second->Modified();
  const std::vector<double> expected = Reference(first, second, nullptr, nullptr);
  auto                      filter = FilterType::New();
  filter->SetInput1(first);
  filter->SetInput2(second);
  auto streamer = itk::StreamingImageFilter<OutputImage, OutputImage>::New();
  streamer->SetInput(filter->GetOutput());
  streamer->SetNumberOfStreamDivisions(5);
  streamer->Update();
  EXPECT_LT(filter->GetOutput()->GetBufferedRegion().GetNumberOfPixels(), expected.size()) << "the last piece alone";
  EXPECT_TRUE(SameBits(streamer->GetOutput(), expected));
}

TEST(CudaElementwiseInputs, ThreePixelSizesStreamedFromPinnedHostMemory)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto &     pool = itk::CudaHostMemoryPool::GetInstance();
  const auto previous = pool.GetPinning();
  pool.SetPinning(itk::CudaHostPinning::Always);
  auto first = MakeImage<Image1>(5);
  auto second = MakeImage<Image2>(6);
  auto filter = FilterType::New();
  filter->SetTransferChunkBytes(64 << 10); // 8192 doubles a chunk: about 31 chunks
  filter->SetInput1(first);
  filter->SetInput2(second);
  filter->Update(); // whole copies: the output has no host buffer yet
  EXPECT_TRUE(SameBits(filter->GetOutput(), Reference(first, second, nullptr, nullptr)));

  first->GetBufferPointer()[7] = 3;
  second->GetBufferPointer()[7] = 0.5f;
  first->Modified();
  second->Modified();
  const auto output = filter->GetOutput()->GetCudaDataManager();
  output->ResetTransferStatistics();
  filter->Update();
  pool.SetPinning(previous);
  const auto statistics = output->GetTransferStatistics();
  EXPECT_EQ(statistics.HostToDeviceCount, 2u) << "streamed: one upload per input, counted on the output";
  EXPECT_EQ(statistics.DeviceToHostCount, 1u);
  EXPECT_FALSE(output->IsCPUBufferDirty());
  EXPECT_FALSE(output->IsGPUBufferDirty()) << "both copies current";
  EXPECT_TRUE(SameBits(filter->GetOutput(), Reference(first, second, nullptr, nullptr)));
}

TEST(CudaElementwiseInputs, ThreePixelSizesSplitOnTheHomeDevice)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const int home = itk::CudaGetDefaultDevice();
  auto      first = MakeImage<Image1>(7);
  auto      second = MakeImage<Image2>(8);
  auto      filter = FilterType::New();
  filter->SetInput1(first);
  filter->SetInput2(second);
  filter->SetSplitDevices({ home });
  filter->Update();
  const auto & pieces = filter->GetDeviceSplitter().GetLastPieces();
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].Device, home);
  EXPECT_EQ(pieces[0].Count, first->GetBufferedRegion().GetNumberOfPixels());
  EXPECT_TRUE(SameBits(filter->GetOutput(), Reference(first, second, nullptr, nullptr)));
}

TEST(CudaElementwiseInputs, ThreePixelSizesSplitAcrossTwoDevices)
{
  int devices = 0;
  if (itk::IsCudaAvailable())
  {
    CUDA_CHECK(cudaGetDeviceCount(&devices));
  }
  if (devices < 2)
  {
    GTEST_SKIP() << "needs two CUDA devices, found " << devices;
  }
  auto first = MakeImage<Image1>(9);
  auto second = MakeImage<Image2>(10);
  auto filter = FilterType::New();
  filter->SetInput1(first);
  filter->SetInput2(second);
  filter->SetSplitDevices({ 0, 1 }, { 1.0, 3.0 });
  filter->GetDeviceSplitter().SetChunkBytes(100000); // several chunks per lane, rounded to whole granules
  filter->Update();
  const auto & pieces = filter->GetDeviceSplitter().GetLastPieces();
  ASSERT_EQ(pieces.size(), 2u);
  // Every piece starts on a 256-byte boundary of each buffer: of the bytes,
  // whose granule is the largest, 256 pixels.
  EXPECT_EQ(pieces[1].First % 256, 0u);
  EXPECT_TRUE(SameBits(filter->GetOutput(), Reference(first, second, nullptr, nullptr)));

  const float constant2 = 0.125f;
  filter->SetConstant2(constant2);
  filter->Update();
  EXPECT_TRUE(SameBits(filter->GetOutput(), Reference(first, second, nullptr, &constant2)));
}

TEST(CudaElementwiseInputs, CPUParentWithoutGPU)
{
  auto first = MakeImage<Image1>(11);
  auto second = MakeImage<Image2>(12);
  auto filter = FilterType::New();
  filter->SetGPUEnabled(false);
  filter->SetInput1(first);
  filter->SetInput2(second);
  filter->Update();
  EXPECT_TRUE(SameBits(filter->GetOutput(), Reference(first, second, nullptr, nullptr)));
}
} // namespace
