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
#include "itkCudaDeviceSplitter.h"
#include "itkCudaSquareImage.hcu"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaTestUtilities.h"
#include "itkImageRegionConstIterator.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

// One element-wise update shared by several devices (CudaDeviceSplitter and
// CudaSquareImageFilter::SetSplitDevices). The partition and the argument
// checks run everywhere; the split itself on one GPU (the home device alone)
// and on machines with two GPUs (peer copies, pipelined chunks).
namespace
{
using itk::CudaDeviceSplitter;
using itk::CudaTest::ExceptionMessage;
using itk::CudaTest::TransfersAre;
using Pieces = std::vector<CudaDeviceSplitter::Piece>;

using itk::CudaTest::CurrentDevice;
using itk::CudaTest::DeviceCount;

#define SKIP_WITHOUT_TWO_GPUS()                                                                                       \
  if (DeviceCount() < 2)                                                                                              \
  {                                                                                                                   \
    GTEST_SKIP() << "needs two CUDA devices, found " << DeviceCount();                                               \
  }

// The pieces cover [0, count) in order, without gaps or overlaps, each on a
// 256-byte boundary (in whole elements).
void
ExpectTiling(const Pieces & pieces, size_t count, size_t elementBytes)
{
  size_t next = 0;
  for (const auto & piece : pieces)
  {
    EXPECT_EQ(piece.First, next);
    EXPECT_GT(piece.Count, 0u);
    EXPECT_EQ(piece.First * elementBytes % std::lcm(elementBytes, size_t{ 256 }), 0u) << "piece at " << piece.First;
    next = piece.First + piece.Count;
  }
  EXPECT_EQ(next, count);
}

TEST(CudaDeviceSplitter, PartitionGivesEqualSharesOnAlignedBoundaries)
{
  const Pieces pieces = CudaDeviceSplitter::Partition(1000003, sizeof(float), { 0, 1 });
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].Device, 0);
  EXPECT_EQ(pieces[1].Device, 1);
  ExpectTiling(pieces, 1000003, sizeof(float));
  EXPECT_LE(std::abs(static_cast<double>(pieces[0].Count) - 500001.5), 64.0); // within one 256-byte granule
}

TEST(CudaDeviceSplitter, PartitionFollowsTheWeights)
{
  const Pieces pieces = CudaDeviceSplitter::Partition(1 << 20, sizeof(double), { 2, 0, 1 }, { 3.0, 0.0, 1.0 });
  ASSERT_EQ(pieces.size(), 2u); // the zero weight takes nothing
  EXPECT_EQ(pieces[0].Device, 2);
  EXPECT_EQ(pieces[1].Device, 1);
  EXPECT_EQ(pieces[0].Count, 3u << 18);
  ExpectTiling(pieces, 1 << 20, sizeof(double));
}

TEST(CudaDeviceSplitter, PartitionOfOddElementSizesAndTinyBuffers)
{
  // 12-byte elements: boundaries on multiples of 768 bytes = 64 elements.
  const Pieces odd = CudaDeviceSplitter::Partition(10000, 12, { 0, 1, 2 });
  ASSERT_EQ(odd.size(), 3u);
  ExpectTiling(odd, 10000, 12);
  // Fewer elements than one granule: all on the first device.
  const Pieces tiny = CudaDeviceSplitter::Partition(10, sizeof(float), { 0, 1 });
  ASSERT_EQ(tiny.size(), 1u);
  EXPECT_EQ(tiny[0].Device, 0);
  EXPECT_EQ(tiny[0].Count, 10u);
  // No devices: one piece for the home device (-1).
  const Pieces home = CudaDeviceSplitter::Partition(77, 1, {});
  ASSERT_EQ(home.size(), 1u);
  EXPECT_EQ(home[0].Device, -1);
  EXPECT_EQ(home[0].Count, 77u);
}

TEST(CudaDeviceSplitter, RejectsBadDevicesAndWeights)
{
  CudaDeviceSplitter splitter;
  EXPECT_NE(ExceptionMessage([&] { splitter.SetDevices({ 0, -1 }); }).find("the negative index -1"), std::string::npos);
  EXPECT_NE(ExceptionMessage([&] { splitter.SetDevices({ 1, 1 }); }).find("a second 1"), std::string::npos);
  EXPECT_NE(ExceptionMessage([&] { splitter.SetDevices({ 0, 1 }, { 1.0 }); }).find("one weight per device (2), got 1"),
            std::string::npos);
  EXPECT_NE(ExceptionMessage([&] { splitter.SetDevices({ 0, 1 }, { 1.0, -2.0 }); }).find("got -2"), std::string::npos);
  EXPECT_NE(ExceptionMessage([&] {
              splitter.SetDevices({ 0 }, { std::numeric_limits<double>::quiet_NaN() });
            }).find("finite weights"),
            std::string::npos);
  EXPECT_NE(ExceptionMessage([&] { splitter.SetDevices({ 0, 1 }, { 0.0, 0.0 }); }).find("at least one weight > 0"),
            std::string::npos);
  EXPECT_TRUE(splitter.GetDevices().empty()); // unchanged by the failures
  EXPECT_NE(ExceptionMessage([&] { splitter.SetChunkBytes(0); }).find("chunk size > 0"), std::string::npos);
  splitter.SetDevices({ 1, 0 }, { 1.0, 2.0 });
  EXPECT_EQ(splitter.GetDevices(), (std::vector<int>{ 1, 0 }));
  EXPECT_EQ(splitter.GetWeights(), (std::vector<double>{ 1.0, 2.0 }));
}

using ImageType = itk::CudaImage<float, 3>;
using FilterType = itk::CudaSquareImageFilter<ImageType>;

TEST(CudaDeviceSplitter, FilterTakesTheSplitAndReportsIt)
{
  auto filter = FilterType::New();
  EXPECT_TRUE(filter->GetSplitDevices().empty());
  const auto before = filter->GetMTime();
  filter->SetSplitDevices({ 0, 1 }, { 2.0, 1.0 });
  EXPECT_GT(filter->GetMTime(), before);
  EXPECT_EQ(filter->GetSplitDevices(), (std::vector<int>{ 0, 1 }));
  EXPECT_EQ(filter->GetSplitWeights(), (std::vector<double>{ 2.0, 1.0 }));
  std::ostringstream printed;
  filter->Print(printed);
  EXPECT_NE(printed.str().find("devices {0, 1}, weights {2, 1}"), std::string::npos) << printed.str();
  EXPECT_NE(ExceptionMessage([&] { filter->SetSplitDevices({ 3, 3 }); }).find("a second 3"), std::string::npos);
}

// Pixels whose squares are exact in float: value(i) = (i mod 1021) - 510.
ImageType::Pointer
MakeImage(const ImageType::SizeType & size)
{
  auto image = ImageType::New();
  image->SetRegions(size);
  image->Allocate();
  float *      buffer = image->GetBufferPointer();
  const size_t count = image->GetBufferedRegion().GetNumberOfPixels();
  for (size_t i = 0; i < count; ++i)
  {
    buffer[i] = static_cast<float>(static_cast<int>(i % 1021) - 510);
  }
  image->Modified();
  return image;
}

// Every pixel of `output` is the square of the value MakeImage() put there.
::testing::AssertionResult
IsSquareOfMakeImage(const ImageType * output)
{
  const float * buffer = output->GetBufferPointer();
  const size_t  count = output->GetBufferedRegion().GetNumberOfPixels();
  for (size_t i = 0; i < count; ++i)
  {
    const float value = static_cast<float>(static_cast<int>(i % 1021) - 510);
    if (buffer[i] != value * value)
    {
      return ::testing::AssertionFailure() << "pixel " << i << " is " << buffer[i] << ", expected " << value * value;
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(CudaDeviceSplitter, AllDevicesIsAChoiceOfItsOwn)
{
  auto filter = FilterType::New();
  EXPECT_FALSE(filter->GetSplitAcrossAllDevices());
  filter->SplitAcrossAllDevicesOn();
  EXPECT_TRUE(filter->GetSplitAcrossAllDevices());
  EXPECT_TRUE(filter->GetSplitDevices().empty());
  std::ostringstream printed;
  filter->Print(printed);
  EXPECT_NE(printed.str().find("all devices"), std::string::npos) << printed.str();
  filter->SetSplitDevices({ 0 });
  EXPECT_FALSE(filter->GetSplitAcrossAllDevices());
  filter->SplitAcrossAllDevicesOn();
  filter->SplitAcrossAllDevicesOff();
  EXPECT_FALSE(filter->GetSplitAcrossAllDevices());
  EXPECT_TRUE(filter->GetSplitDevices().empty());
}

// Every visible device takes a share, the image's device first: one piece on
// a machine with one GPU, two on a machine with two.
TEST(CudaDeviceSplitter, AllDevicesUsesWhatThereIs)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  CUDA_CHECK(cudaSetDevice(0));
  auto input = MakeImage({ { 255, 129, 65 } });
  auto filter = FilterType::New();
  filter->SetInput(input);
  filter->InPlaceOff();
  filter->SplitAcrossAllDevicesOn();
  filter->Update();
  const auto & pieces = filter->GetDeviceSplitter().GetLastPieces();
  ASSERT_EQ(pieces.size(), static_cast<size_t>(DeviceCount()));
  EXPECT_EQ(pieces[0].Device, filter->GetOutput()->GetCudaDataManager()->GetDevice());
  EXPECT_TRUE(IsSquareOfMakeImage(filter->GetOutput()));
  EXPECT_EQ(CurrentDevice(), 0);
}

TEST(CudaDeviceSplitter, OneDeviceListedIsTheUsualUpdate)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const int home = itk::CudaGetDefaultDevice();
  auto      input = MakeImage({ { 129, 65, 33 } });
  auto      filter = FilterType::New();
  filter->SetInput(input);
  filter->InPlaceOff();
  filter->SetSplitDevices({ home });
  filter->Update();
  const auto & pieces = filter->GetDeviceSplitter().GetLastPieces();
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].Device, home);
  EXPECT_EQ(pieces[0].Count, 129u * 65u * 33u);
  EXPECT_TRUE(IsSquareOfMakeImage(filter->GetOutput()));
  EXPECT_TRUE(TransfersAre(filter->GetOutput()->GetCudaDataManager(), 0, 1));
}

TEST(CudaDeviceSplitter, ADeviceBeyondTheCountIsReportedByUpdate)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto input = MakeImage({ { 16, 16, 16 } });
  auto filter = FilterType::New();
  filter->SetInput(input);
  filter->InPlaceOff();
  filter->SetSplitDevices({ 0, 64 });
  const std::string message = ExceptionMessage([&] { filter->Update(); });
  EXPECT_NE(message.find("invalid CUDA device 64"), std::string::npos) << message;
  filter->SetSplitDevices({});
  filter->Update(); // fine again
  EXPECT_TRUE(IsSquareOfMakeImage(filter->GetOutput()));
}

// Two devices: every combination of who holds the image, who computes and in
// which proportion gives the same pixels, with small chunks so that each
// remote piece passes through all three streams several times.
struct SplitCase
{
  int                 ImageDevice;
  std::vector<int>    Devices;
  std::vector<double> Weights;
  bool                InPlace;
};

class CudaTwoDeviceSplit : public ::testing::TestWithParam<SplitCase>
{};

TEST_P(CudaTwoDeviceSplit, SameAsOneDevice)
{
  SKIP_WITHOUT_TWO_GPUS();
  const SplitCase & c = GetParam();
  CUDA_CHECK(cudaSetDevice(0));
  auto input = MakeImage({ { 257, 129, 67 } }); // 2221331 pixels: pieces end off any boundary
  input->GetCudaDataManager()->SetDevice(c.ImageDevice);
  auto filter = FilterType::New();
  filter->SetInput(input);
  filter->SetInPlace(c.InPlace);
  filter->SetSplitDevices(c.Devices, c.Weights);
  filter->GetDeviceSplitter().SetChunkBytes(256 << 10);
  filter->Update();
  ImageType * output = filter->GetOutput();
  EXPECT_EQ(output->GetCudaDataManager()->GetDevice(), c.ImageDevice); // the output stays home
  EXPECT_EQ(CurrentDevice(), 0);

  const auto & pieces = filter->GetDeviceSplitter().GetLastPieces();
  const auto   expected = CudaDeviceSplitter::Partition(257 * 129 * 67, sizeof(float), c.Devices, c.Weights);
  ASSERT_EQ(pieces.size(), expected.size());
  for (size_t i = 0; i < pieces.size(); ++i)
  {
    EXPECT_EQ(pieces[i].Device, expected[i].Device);
    EXPECT_EQ(pieces[i].Count, expected[i].Count);
  }
  EXPECT_TRUE(IsSquareOfMakeImage(output));
  const auto stats = output->GetCudaDataManager()->GetTransferStatistics();
  EXPECT_EQ(stats.DeviceToHostCount, 1u); // the host read above; the split itself moved nothing through the host
  EXPECT_EQ(stats.HostToDeviceCount, c.InPlace ? 1u : 0u);

  // Again, with the scratch kept from the first update.
  filter->SetInput(MakeImage({ { 257, 129, 67 } }));
  filter->GetInput()->GetCudaDataManager()->SetDevice(c.ImageDevice);
  filter->Update();
  EXPECT_TRUE(IsSquareOfMakeImage(filter->GetOutput()));
}

INSTANTIATE_TEST_SUITE_P(
  Cases,
  CudaTwoDeviceSplit,
  ::testing::Values(SplitCase{ 0, { 0, 1 }, {}, false },
                    SplitCase{ 0, { 0, 1 }, {}, true },
                    SplitCase{ 0, { 0, 1 }, { 4.0, 1.0 }, false },
                    SplitCase{ 0, { 1 }, {}, true },       // all the work on the other device
                    SplitCase{ 1, { 0, 1 }, {}, false },   // the image on the second device
                    SplitCase{ 1, { 1, 0 }, { 1.0, 3.0 }, true }),
  [](const ::testing::TestParamInfo<SplitCase> & info) { return "Case" + std::to_string(info.index); });

TEST(CudaDeviceSplitter, OtherPixelTypesSplitAlike)
{
  SKIP_WITHOUT_TWO_GPUS();
  using CharImage = itk::CudaImage<unsigned char, 2>;
  auto image = CharImage::New();
  image->SetRegions(CharImage::SizeType{ { 1001, 999 } });
  image->Allocate();
  unsigned char * buffer = image->GetBufferPointer();
  const size_t    count = image->GetBufferedRegion().GetNumberOfPixels();
  for (size_t i = 0; i < count; ++i)
  {
    buffer[i] = static_cast<unsigned char>(i % 16);
  }
  image->Modified();
  auto filter = itk::CudaSquareImageFilter<CharImage>::New();
  filter->SetInput(image);
  filter->InPlaceOff();
  filter->SetSplitDevices({ 0, 1 });
  filter->GetDeviceSplitter().SetChunkBytes(100000); // not a multiple of 256: rounded to whole granules
  filter->Update();
  const unsigned char * squared = filter->GetOutput()->GetBufferPointer();
  for (size_t i = 0; i < count; ++i)
  {
    ASSERT_EQ(squared[i], (i % 16) * (i % 16)) << "pixel " << i;
  }
}

TEST(CudaDeviceSplitter, AFailingRemotePieceThrowsAndTheNextRunWorks)
{
  SKIP_WITHOUT_TWO_GPUS();
  CUDA_CHECK(cudaSetDevice(0));
  const size_t count = 1 << 20;
  void *       memory = nullptr;
  CUDA_CHECK(cudaMalloc(&memory, count * sizeof(float)));
  auto * buffer = static_cast<float *>(memory);
  std::vector<float> values(count, 3.0f);
  CUDA_CHECK(cudaMemcpy(buffer, values.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  CudaDeviceSplitter splitter;
  splitter.SetDevices({ 0, 1 });
  const auto square = [](const void * in, void * out, size_t n, cudaStream_t stream) {
    itk::CudaSquareImage<float>(n, static_cast<const float *>(in), static_cast<float *>(out), stream);
  };
  const auto failOnDeviceOne = [&](const void * in, void * out, size_t n, cudaStream_t s) {
    if (CurrentDevice() == 1)
    {
      itkGenericExceptionMacro("kernel failed on device 1");
    }
    square(in, out, n, s);
  };
  const std::string message =
    ExceptionMessage([&] { splitter.Run(buffer, buffer, count, sizeof(float), 0, nullptr, failOnDeviceOne); });
  EXPECT_NE(message.find("kernel failed on device 1"), std::string::npos) << message;
  EXPECT_EQ(CurrentDevice(), 0);
  CUDA_CHECK(cudaMemcpy(buffer, values.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  splitter.Run(buffer, buffer, count, sizeof(float), 0, nullptr, square);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> back(count);
  CUDA_CHECK(cudaMemcpy(back.data(), buffer, count * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT_EQ(back, std::vector<float>(count, 9.0f));
  CUDA_CHECK(cudaFree(buffer));
}
} // namespace
