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
#include "itkCudaElementwiseImageFilter.h"
#include "itkCudaTestKernels.hcu"
#include "itkCudaTestUtilities.h"
#include "itkAddImageFilter.h"
#include "itkStreamingImageFilter.h"

// How work on the images' streams is ordered with a filter's stream
// (CudaStreamOrderingScope, CudaImageToImageFilter::GetCudaStream()), and the
// element-wise base class's streaming path. Each GPU test makes the producer
// of the data busy first (CudaTest::Spin), so that a missing wait gives a
// wrong value every time rather than once in a while.
namespace
{
using itk::CudaTest::ExceptionMessage;
using itk::CudaTest::NonBlockingStream;
using Image2 = itk::CudaImage<float, 2>;
constexpr double busyMilliseconds = 40.0;

Image2::Pointer
MakeImage(float value, itk::SizeValueType edge = 256)
{
  auto image = Image2::New();
  image->SetRegions(Image2::SizeType{ { edge, edge } });
  image->Allocate();
  image->FillBuffer(value);
  return image;
}

size_t
CountNot(const Image2 * image, float value)
{
  size_t       mismatches = 0;
  const float * pixels = image->GetBufferPointer();
  for (size_t i = 0; i < image->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    mismatches += pixels[i] != value;
  }
  return mismatches;
}

/** `image`'s GPU copy becomes `value`, written by a kernel queued on the
 * image's own stream behind a busy kernel. */
void
WriteLateOnItsStream(Image2 * image, float value)
{
  const auto   manager = image->GetCudaDataManager();
  auto *       pixels = static_cast<float *>(manager->GetGPUBufferPointer());
  cudaStream_t stream = manager->GetStream();
  itk::CudaTest::Spin(busyMilliseconds, stream);
  itk::CudaTest::Fill(image->GetBufferedRegion().GetNumberOfPixels(), pixels, value, stream);
}

TEST(CudaStreamOrderingScope, NestsAndClosesInOrder)
{
  // No CUDA call is made for scopes that used no stream: runs without a GPU.
  EXPECT_EQ(itk::CudaStreamOrderingScope::GetCurrent(), nullptr);
  {
    itk::CudaStreamOrderingScope outer(nullptr);
    EXPECT_EQ(itk::CudaStreamOrderingScope::GetCurrent(), &outer);
    {
      itk::CudaStreamOrderingScope inner(nullptr);
      EXPECT_EQ(itk::CudaStreamOrderingScope::GetCurrent(), &inner);
      EXPECT_NE(ExceptionMessage([&] { outer.Finish(); }).find("opened after this one is still open"),
                std::string::npos);
      inner.Finish();
      EXPECT_EQ(itk::CudaStreamOrderingScope::GetCurrent(), &outer);
      inner.Finish(); // closed already: nothing to do
    }
    EXPECT_EQ(itk::CudaStreamOrderingScope::GetCurrent(), &outer);
    EXPECT_FALSE(outer.HasUsed(cudaStreamLegacy));
  }
  EXPECT_EQ(itk::CudaStreamOrderingScope::GetCurrent(), nullptr);
}

TEST(CudaForEachRegionSlab, OneSlabPerVolumeWithTheOffsetsOfTheBuffers)
{
  using Region4 = itk::ImageRegion<4>;
  const Region4 input({ { 1, 2, 3, 4 } }, { { 5, 6, 7, 3 } });
  const Region4 output({ { 2, 3, 4, 5 } }, { { 2, 3, 2, 2 } });
  std::vector<size_t> inputOffsets;
  std::vector<size_t> outputOffsets;
  itk::CudaForEachRegionSlab(input, output, [&](size_t in, size_t out, const itk::CudaRegionGeometry & geometry) {
    inputOffsets.push_back(in);
    outputOffsets.push_back(out);
    EXPECT_EQ(geometry.InputSize[0], 5u);
    EXPECT_EQ(geometry.InputSize[1], 6u);
    EXPECT_EQ(geometry.InputSize[2], 7u);
    EXPECT_EQ(geometry.Offset[0], 1u);
    EXPECT_EQ(geometry.Offset[1], 1u);
    EXPECT_EQ(geometry.Offset[2], 1u);
    EXPECT_EQ(geometry.OutputSize[0], 2u);
    EXPECT_EQ(geometry.OutputSize[1], 3u);
    EXPECT_EQ(geometry.OutputSize[2], 2u);
  });
  // Volume t of the output is volume t + 1 of the input (index 5 vs 4).
  EXPECT_EQ(inputOffsets, (std::vector<size_t>{ 1 * 5 * 6 * 7, 2 * 5 * 6 * 7 }));
  EXPECT_EQ(outputOffsets, (std::vector<size_t>{ 0, 2 * 3 * 2 }));

  using Region2 = itk::ImageRegion<2>;
  size_t slabs = 0;
  itk::CudaForEachRegionSlab(Region2({ { 0, 0 } }, { { 8, 4 } }), Region2({ { 2, 1 } }, { { 3, 2 } }),
                             [&](size_t in, size_t out, const itk::CudaRegionGeometry & geometry) {
                               ++slabs;
                               EXPECT_EQ(in, 0u); // the box's corner is in the geometry
                               EXPECT_EQ(out, 0u);
                               EXPECT_EQ(geometry.Offset[0], 2u);
                               EXPECT_EQ(geometry.Offset[1], 1u);
                               EXPECT_EQ(geometry.Offset[2], 0u);
                               EXPECT_EQ(geometry.OutputSize[2], 1u);
                               EXPECT_EQ(geometry.InputSize[2], 1u);
                             });
  EXPECT_EQ(slabs, 1u);
  const std::string message = ExceptionMessage([] {
    itk::CudaForEachRegionSlab(Region2({ { 0, 0 } }, { { 8, 4 } }), Region2({ { 6, 0 } }, { { 3, 2 } }),
                               [](size_t, size_t, const itk::CudaRegionGeometry &) {});
  });
  EXPECT_NE(message.find("inside the input's buffered region"), std::string::npos) << message;
}

TEST(CudaCopyRegionAsync, RefusesABoxOutsideTheInput)
{
  const itk::CudaRegionGeometry geometry{ { 8, 4, 1 }, { 6, 0, 0 }, { 3, 2, 1 } };
  const std::string             message =
    ExceptionMessage([&] { itk::CudaCopyRegionAsync(nullptr, nullptr, geometry, sizeof(float), nullptr); });
  EXPECT_NE(message.find("the box leaves the input"), std::string::npos) << message;
}

TEST(CudaStreamOrderingScope, PointersAreReadyForTheScopesStream)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto source = MakeImage(0.0f);
  auto result = MakeImage(-1.0f);
  WriteLateOnItsStream(source, 7.0f);
  NonBlockingStream stream;
  {
    itk::CudaStreamOrderingScope scope(stream.Get());
    const auto * in = static_cast<const float *>(source->GetCudaDataManager()->GetConstGPUBufferPointer());
    auto *       out = static_cast<float *>(result->GetCudaDataManager()->GetGPUBufferPointerForOverwrite());
    EXPECT_TRUE(scope.HasUsed(source->GetCudaDataManager()->GetStream()) ||
                source->GetCudaDataManager()->GetStream() == stream.Get());
    itk::CudaTest::AddConstant(source->GetBufferedRegion().GetNumberOfPixels(), in, out, 1.0f, stream.Get());
    scope.Finish();
  }
  EXPECT_EQ(CountNot(result, 8.0f), 0u); // downloaded on the result's stream, after the kernel
}

TEST(CudaStreamOrderingScope, UploadsInsideAScopeReachItsStream)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto source = MakeImage(2.0f);
  auto result = MakeImage(-1.0f);
  // Keep the source's stream busy so that its upload (queued behind) is late.
  itk::CudaTest::Spin(busyMilliseconds, source->GetCudaDataManager()->GetStream());
  NonBlockingStream stream;
  {
    itk::CudaStreamOrderingScope scope(stream.Get());
    const auto * in = static_cast<const float *>(source->GetCudaDataManager()->GetConstGPUBufferPointer());
    auto *       out = static_cast<float *>(result->GetCudaDataManager()->GetGPUBufferPointerForOverwrite());
    itk::CudaTest::AddConstant(source->GetBufferedRegion().GetNumberOfPixels(), in, out, 1.0f, stream.Get());
    scope.Finish();
  }
  EXPECT_EQ(CountNot(result, 3.0f), 0u);
  EXPECT_EQ(source->GetCudaDataManager()->GetTransferStatistics().HostToDeviceCount, 1u);
}

TEST(CudaStreamOrderingScope, LaterCopiesFollowTheScopesKernels)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto inside = MakeImage(0.0f);
  auto after = MakeImage(0.0f);
  NonBlockingStream stream;
  {
    itk::CudaStreamOrderingScope scope(stream.Get());
    auto * pixels = static_cast<float *>(inside->GetCudaDataManager()->GetGPUBufferPointer());
    auto * later = static_cast<float *>(after->GetCudaDataManager()->GetGPUBufferPointer());
    itk::CudaTest::Spin(busyMilliseconds, stream.Get());
    itk::CudaTest::Fill(inside->GetBufferedRegion().GetNumberOfPixels(), pixels, 3.0f, stream.Get());
    itk::CudaTest::Fill(after->GetBufferedRegion().GetNumberOfPixels(), later, 4.0f, stream.Get());
    // A download inside the scope waits for the scope's kernels.
    EXPECT_EQ(CountNot(inside, 3.0f), 0u);
    itk::CudaTest::Spin(busyMilliseconds, stream.Get());
    itk::CudaTest::Fill(after->GetBufferedRegion().GetNumberOfPixels(), later, 5.0f, stream.Get());
    scope.Finish();
  }
  EXPECT_EQ(CountNot(after, 5.0f), 0u); // Finish() ordered the image's stream after the scope's
}

// Code that ignores streams (ITKCudaCommon 2.x filters, RTK) launches on the
// legacy default stream with the raw pointers: the images' streams are
// non-blocking, so the data managers order the two.
TEST(CudaLegacyStreamBridge, KernelsThereSeeTheWorkOfTheImagesStream)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto source = MakeImage(0.0f);
  auto result = MakeImage(-1.0f);
  auto * out = static_cast<float *>(result->GetCudaDataManager()->GetGPUBufferPointerForOverwrite());
  WriteLateOnItsStream(source, 7.0f);
  const auto * in = static_cast<const float *>(source->GetCudaDataManager()->GetConstGPUBufferPointer());
  itk::CudaTest::AddConstant(source->GetBufferedRegion().GetNumberOfPixels(), in, out, 1.0f, cudaStreamLegacy);
  // The result's download waits for the legacy stream, which waited for the fill.
  EXPECT_EQ(CountNot(result, 8.0f), 0u);
}

TEST(CudaLegacyStreamBridge, TheImagesStreamWaitsForKernelsThere)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto   image = MakeImage(0.0f);
  auto * pixels = static_cast<float *>(image->GetCudaDataManager()->GetGPUBufferPointer());
  itk::CudaTest::Spin(busyMilliseconds, cudaStreamLegacy);
  itk::CudaTest::Fill(image->GetBufferedRegion().GetNumberOfPixels(), pixels, 5.0f, cudaStreamLegacy);
  EXPECT_EQ(CountNot(image, 5.0f), 0u); // downloaded on the image's stream
}

TEST(CudaLegacyStreamBridge, ABufferIsFreedAfterKernelsThere)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto         result = MakeImage(-1.0f);
  auto *       out = static_cast<float *>(result->GetCudaDataManager()->GetGPUBufferPointerForOverwrite());
  const size_t count = result->GetBufferedRegion().GetNumberOfPixels();
  for (int round = 0; round < 2; ++round) // the second round frees while the first's buffers are pooled
  {
    auto         source = MakeImage(1.0f);
    const auto * in = static_cast<const float *>(source->GetCudaDataManager()->GetConstGPUBufferPointer());
    itk::CudaTest::Spin(busyMilliseconds, cudaStreamLegacy);
    itk::CudaTest::AddConstant(count, in, out, 1.0f, cudaStreamLegacy);
    source = nullptr; // freed while the kernel waits behind the busy one
    // Likely given the freed memory by the pool; filled on its own stream.
    auto reuse = MakeImage(9.0f);
    reuse->GetCudaDataManager()->GetConstGPUBufferPointer();
    EXPECT_EQ(CountNot(result, 2.0f), 0u) << "round " << round;
    out = static_cast<float *>(result->GetCudaDataManager()->GetGPUBufferPointerForOverwrite());
  }
}

TEST(CudaLegacyStreamBridge, AViewWrittenThere)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto image = MakeImage(0.0f);
  {
    const itk::CudaGPUBufferExport view = image->GetCudaDataManager()->ExportGPUBuffer();
    ASSERT_EQ(cudaStreamSynchronize(view.Stream), cudaSuccess); // what a consumer does first
    itk::CudaTest::Spin(busyMilliseconds, cudaStreamLegacy);
    itk::CudaTest::Fill(image->GetBufferedRegion().GetNumberOfPixels(), static_cast<float *>(view.Pointer), 9.0f,
                        cudaStreamLegacy);
  }
  EXPECT_EQ(CountNot(image, 9.0f), 0u);
}

TEST(CudaLegacyStreamBridge, AnExternalBufferWrittenThere)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto         image = MakeImage(0.0f);
  const size_t count = image->GetBufferedRegion().GetNumberOfPixels();
  void *       external = nullptr;
  ASSERT_EQ(cudaMalloc(&external, count * sizeof(float)), cudaSuccess);
  itk::CudaTest::Spin(busyMilliseconds, cudaStreamLegacy);
  itk::CudaTest::Fill(count, static_cast<float *>(external), 4.0f, cudaStreamLegacy);
  image->GetCudaDataManager()->SetGPUBufferPointer(external);
  image->GetCudaDataManager()->SetCPUDirtyFlag(true);
  image->GetCudaDataManager()->SetGPUDirtyFlag(false);
  EXPECT_EQ(CountNot(image, 4.0f), 0u);
  image = nullptr; // borrowed: the image never frees it
  EXPECT_EQ(cudaFree(external), cudaSuccess);
}

/** out = in + 1 on the GPU through the element-wise base class, without a
 * region kernel of its own (the base class's scratch copy is used), and with
 * nothing but the launch: the base class orders the streams. */
template <typename TImage>
class AddOneFilter
  : public itk::CudaElementwiseImageFilter<TImage, TImage, itk::AddImageFilter<TImage, TImage, TImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(AddOneFilter);
  using Self = AddOneFilter;
  using Superclass = itk::CudaElementwiseImageFilter<TImage, TImage, itk::AddImageFilter<TImage, TImage, TImage>>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);

  cudaStream_t StreamSeen{ nullptr };
  cudaStream_t OutputStreamSeen{ nullptr };

protected:
  AddOneFilter() { this->SetConstant2(1.0f); } // for the CPU parent
  ~AddOneFilter() override = default;

  void
  GPUComputeElements(const float * in, float * out, size_t count, cudaStream_t stream) override
  {
    StreamSeen = this->GetCudaStream();
    OutputStreamSeen = this->GetOutput()->GetCudaDataManager()->GetStream();
    EXPECT_EQ(stream, StreamSeen);
    itk::CudaTest::AddConstant(count, in, out, 1.0f, stream);
  }
};

TEST(CudaElementwiseImageFilter, KernelsOnTheFiltersStreamNeedNoEvents)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto input = MakeImage(0.0f);
  WriteLateOnItsStream(input, 6.0f);
  auto filter = AddOneFilter<Image2>::New();
  filter->InPlaceOff();
  filter->SetInput(input);
  filter->Update();
  EXPECT_NE(filter->StreamSeen, nullptr);
  EXPECT_EQ(filter->StreamSeen, filter->OutputStreamSeen);
  EXPECT_EQ(CountNot(filter->GetOutput(), 7.0f), 0u);
  EXPECT_EQ(CountNot(input, 6.0f), 0u); // out of place: the input keeps its values
}

TEST(CudaElementwiseImageFilter, InPlaceAfterAKernelOfTheInputsStream)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto input = MakeImage(0.0f);
  WriteLateOnItsStream(input, 1.5f);
  auto filter = AddOneFilter<Image2>::New();
  filter->InPlaceOn();
  filter->SetInput(input);
  filter->Update();
  EXPECT_EQ(CountNot(filter->GetOutput(), 2.5f), 0u);
}

template <unsigned int VDimension>
void
ExpectStreamedPiecesAddOne(const typename itk::CudaImage<float, VDimension>::SizeType & size)
{
  using ImageType = itk::CudaImage<float, VDimension>;
  auto input = ImageType::New();
  input->SetRegions(size);
  input->Allocate();
  const size_t count = input->GetBufferedRegion().GetNumberOfPixels();
  for (size_t i = 0; i < count; ++i)
  {
    input->GetBufferPointer()[i] = static_cast<float>(i % 97);
  }
  auto filter = AddOneFilter<ImageType>::New();
  filter->InPlaceOff();
  filter->SetInput(input);
  auto streamer = itk::StreamingImageFilter<ImageType, ImageType>::New();
  streamer->SetInput(filter->GetOutput());
  streamer->SetNumberOfStreamDivisions(3);
  streamer->Update();
  const ImageType * output = streamer->GetOutput();
  ASSERT_EQ(output->GetBufferedRegion(), input->GetBufferedRegion());
  size_t mismatches = 0;
  for (size_t i = 0; i < count; ++i)
  {
    mismatches += output->GetBufferPointer()[i] != static_cast<float>(i % 97) + 1.0f;
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(input->GetCudaDataManager()->GetTransferStatistics().HostToDeviceCount, 1u);
}

TEST(CudaElementwiseImageFilter, StreamedPiecesThroughTheScratchCopy)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  ExpectStreamedPiecesAddOne<2>({ { 37, 29 } });
  ExpectStreamedPiecesAddOne<3>({ { 19, 13, 11 } });
  ExpectStreamedPiecesAddOne<4>({ { 9, 7, 5, 6 } }); // several volumes per piece
}

TEST(CudaElementwiseImageFilter, CPUParentWithoutGPU)
{
  auto input = MakeImage(2.0f, 16);
  auto filter = AddOneFilter<Image2>::New();
  filter->GPUEnabledOff();
  filter->SetInput(input);
  filter->Update();
  EXPECT_EQ(CountNot(filter->GetOutput(), 3.0f), 0u);
  EXPECT_EQ(filter->StreamSeen, nullptr);
}
} // namespace
