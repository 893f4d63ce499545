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
#include "itkShiftScaleImageFilter.h"
#include "itkStreamingImageFilter.h"

// A CUDA filter inside an ITK streaming pipeline (requested regions smaller
// than the largest region): the same pixels as without streaming, and only
// each piece's bytes cross the bus per piece.
namespace
{
using ImageType = itk::CudaImage<float, 3>;
constexpr unsigned int pieces = 4;

ImageType::Pointer
MakeVolume()
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 64, 48, 40 } });
  image->Allocate();
  for (size_t i = 0; i < image->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    image->GetBufferPointer()[i] = static_cast<float>(i % 101) / 8.0f - 6.0f;
  }
  return image;
}

template <typename TFilter>
ImageType::Pointer
Stream(TFilter * last)
{
  auto streamer = itk::StreamingImageFilter<ImageType, ImageType>::New();
  streamer->SetInput(last->GetOutput());
  streamer->SetNumberOfStreamDivisions(pieces);
  streamer->Update();
  ImageType::Pointer result = streamer->GetOutput();
  result->DisconnectPipeline();
  return result;
}

void
ExpectSquares(const ImageType * input, const ImageType * output, float shift)
{
  ASSERT_EQ(output->GetBufferedRegion(), input->GetBufferedRegion());
  size_t mismatches = 0;
  for (size_t i = 0; i < input->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    const float v = input->GetBufferPointer()[i] + shift;
    mismatches += output->GetBufferPointer()[i] != v * v;
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(CudaStreaming, PiecesOfAFullyBufferedInput)
{
  auto input = MakeVolume();
  auto square = itk::CudaSquareImageFilter<ImageType>::New();
  square->SetInput(input);
  auto result = Stream(square.GetPointer());
  ExpectSquares(input, result, 0.0f);
  if (itk::IsCudaAvailable())
  {
    const uint64_t bytes = input->GetBufferedRegion().GetNumberOfPixels() * sizeof(float);
    const auto     in = input->GetCudaDataManager()->GetTransferStatistics();
    EXPECT_EQ(in.HostToDeviceCount, 1u); // uploaded once, reused by every piece
    EXPECT_EQ(in.HostToDeviceBytes, bytes);
    const auto out = square->GetOutput()->GetCudaDataManager()->GetTransferStatistics();
    EXPECT_EQ(out.HostToDeviceCount, 0u);
    EXPECT_EQ(out.DeviceToHostCount, pieces); // each piece comes down once
    EXPECT_EQ(out.DeviceToHostBytes, bytes);
  }
}

TEST(CudaStreaming, PiecesProducedUpstreamOnTheCPU)
{
  auto input = MakeVolume();
  auto shift = itk::ShiftScaleImageFilter<ImageType, ImageType>::New();
  shift->SetInput(input);
  shift->SetShift(0.5);
  auto square = itk::CudaSquareImageFilter<ImageType>::New(); // in place on each piece
  square->SetInput(shift->GetOutput());
  // Each piece is a new buffer (and data manager state): look at every piece.
  std::vector<itk::CudaTransferStatistics> perPiece;
  std::vector<size_t>                      pieceBytes;
  auto record = [&] {
    perPiece.push_back(square->GetOutput()->GetCudaDataManager()->GetTransferStatistics());
    pieceBytes.push_back(square->GetOutput()->GetBufferedRegion().GetNumberOfPixels() * sizeof(float));
  };
  square->AddObserver(itk::StartEvent(), [&](const itk::EventObject &) {
    if (square->GetOutput()->GetBufferedRegion().GetNumberOfPixels() > 0)
    {
      record(); // the previous piece, after the streamer copied it
    }
  });
  auto result = Stream(square.GetPointer());
  record(); // the last piece
  ExpectSquares(input, result, 0.5f);
  if (itk::IsCudaAvailable())
  {
    ASSERT_EQ(perPiece.size(), pieces);
    uint64_t total = 0;
    for (size_t p = 0; p < perPiece.size(); ++p)
    {
      // This piece's bytes, once up and once down: nothing else moved.
      EXPECT_EQ(perPiece[p].HostToDeviceCount, 1u) << "piece " << p;
      EXPECT_EQ(perPiece[p].HostToDeviceBytes, pieceBytes[p]) << "piece " << p;
      EXPECT_EQ(perPiece[p].DeviceToHostCount, 1u) << "piece " << p;
      EXPECT_EQ(perPiece[p].DeviceToHostBytes, pieceBytes[p]) << "piece " << p;
      EXPECT_LT(pieceBytes[p], input->GetBufferedRegion().GetNumberOfPixels() * sizeof(float));
      total += pieceBytes[p];
    }
    EXPECT_EQ(total, input->GetBufferedRegion().GetNumberOfPixels() * sizeof(float));
  }
}

// Four dimensions: the region kernel works on 3-D slabs, the fourth walked on the host.
TEST(CudaStreaming, PiecesOfAFullyBufferedFourDimensionalInput)
{
  using Image4 = itk::CudaImage<float, 4>;
  auto input = Image4::New();
  input->SetRegions(Image4::SizeType{ { 17, 13, 11, 9 } });
  input->Allocate();
  const size_t count = input->GetBufferedRegion().GetNumberOfPixels();
  for (size_t i = 0; i < count; ++i)
  {
    input->GetBufferPointer()[i] = static_cast<float>(i % 97) / 4.0f - 12.0f;
  }
  auto square = itk::CudaSquareImageFilter<Image4>::New();
  square->SetInput(input);
  auto streamer = itk::StreamingImageFilter<Image4, Image4>::New();
  streamer->SetInput(square->GetOutput());
  streamer->SetNumberOfStreamDivisions(3);
  streamer->Update();
  const Image4 * result = streamer->GetOutput();
  ASSERT_EQ(result->GetBufferedRegion(), input->GetBufferedRegion());
  size_t mismatches = 0;
  for (size_t i = 0; i < count; ++i)
  {
    const float v = input->GetBufferPointer()[i];
    mismatches += result->GetBufferPointer()[i] != v * v;
  }
  EXPECT_EQ(mismatches, 0u);
  if (itk::IsCudaAvailable())
  {
    EXPECT_EQ(input->GetCudaDataManager()->GetTransferStatistics().HostToDeviceCount, 1u); // uploaded once
    EXPECT_EQ(square->GetOutput()->GetCudaDataManager()->GetTransferStatistics().DeviceToHostCount, 3u);
  }
}
} // namespace
