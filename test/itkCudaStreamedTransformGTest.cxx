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
#include "itkCommand.h"
#include "itkCudaAbsImageFilter.h"
#include "itkCudaAddImageFilter.h"
#include "itkCudaHostMemoryPool.h"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaStreamedTransform.h"
#include "itkCudaTestFunctors.h"
#include "itkCudaTestUtilities.h"
#include "itkUnaryGeneratorImageFilter.h"

#include <cmath>
#include <vector>

// Host-resident inputs streamed through the device in chunks by the
// element-wise filters (CudaElementwiseImageFilter,
// CudaBinaryFunctorImageFilter, CudaStreamedTransform):
// the pixels, the copies counted, the flags, per-chunk progress, abort
// between chunks and an error mid-stream. On the GPU.
namespace
{
using itk::CudaTest::HostPixels;
using ImageType = itk::CudaImage<float, 3>;
constexpr size_t Chunk = size_t{ 1 } << 20; // 1 MiB: many chunks of a small image

/** Pins every new host buffer of CudaHostMemoryPool for the test's scope. */
class AlwaysPinned
{
public:
  AlwaysPinned()
    : m_Previous(itk::CudaHostMemoryPool::GetInstance().GetPinning())
  {
    itk::CudaHostMemoryPool::GetInstance().SetPinning(itk::CudaHostPinning::Always);
  }
  ~AlwaysPinned() { itk::CudaHostMemoryPool::GetInstance().SetPinning(m_Previous); }

private:
  itk::CudaHostPinning m_Previous;
};

/** 64 x 64 x 160 floats (2.5 MiB, the last chunk partial), host-resident. */
ImageType::Pointer
HostImage(std::vector<float> & values)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 64, 64, 160 } });
  image->Allocate();
  values.resize(image->GetBufferedRegion().GetNumberOfPixels());
  for (size_t i = 0; i < values.size(); ++i)
  {
    values[i] = static_cast<float>(static_cast<int>(i % 2001) - 1000) * 0.5f;
  }
  std::copy(values.begin(), values.end(), image->GetBufferPointer());
  return image;
}

std::vector<float>
Squares(const std::vector<float> & values)
{
  std::vector<float> squares(values.size());
  std::transform(values.begin(), values.end(), squares.begin(), [](float v) { return v * v; });
  return squares;
}

struct ProgressLog
{
  std::vector<float> Values;
  float              AbortAt{ 2.0f }; // never
};

void
ObserveProgress(itk::ProcessObject * filter, ProgressLog & log)
{
  auto command = itk::CStyleCommand::New();
  command->SetClientData(&log);
  command->SetCallback([](itk::Object * caller, const itk::EventObject &, void * data) {
    auto & log = *static_cast<ProgressLog *>(data);
    auto * process = static_cast<itk::ProcessObject *>(caller);
    log.Values.push_back(process->GetProgress());
    if (process->GetProgress() >= log.AbortAt)
    {
      process->AbortGenerateDataOn();
    }
  });
  filter->AddObserver(itk::ProgressEvent(), command);
}

TEST(CudaStreamedTransform, SquaresAPinnedImageInPlaceChunkByChunk)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const AlwaysPinned pinned;
  std::vector<float> values;
  auto               input = HostImage(values);
  ASSERT_TRUE(itk::CudaIsPinnedHostMemory(input->GetBufferPointer()));
  auto square = itk::CudaSquareImageFilter<ImageType>::New(); // in place
  square->SetTransferChunkBytes(Chunk);
  square->SetTransferStreams(2);
  square->SetInput(input);
  ProgressLog log;
  ObserveProgress(square, log);
  input = nullptr;
  square->Update();
  const auto manager = square->GetOutput()->GetCudaDataManager();
  EXPECT_FALSE(manager->IsCPUBufferDirty()) << "the host copy is current";
  EXPECT_FALSE(manager->IsGPUBufferDirty()) << "and so is the device copy";
  const auto statistics = manager->GetTransferStatistics();
  EXPECT_EQ(statistics.HostToDeviceCount, 1u);
  EXPECT_EQ(statistics.DeviceToHostCount, 1u);
  EXPECT_EQ(statistics.HostToDeviceBytes, values.size() * sizeof(float));
  EXPECT_EQ(HostPixels(square->GetOutput()), Squares(values));
  EXPECT_EQ(itk::CudaTest::DeviceCopy(square->GetOutput()), Squares(values));
  // 0, a fraction per chunk after the first two, 1.
  ASSERT_GE(log.Values.size(), 3u);
  EXPECT_EQ(log.Values.front(), 0.0f);
  EXPECT_EQ(log.Values.back(), 1.0f);
  EXPECT_TRUE(std::is_sorted(log.Values.begin(), log.Values.end()));
  EXPECT_GT(log.Values[1], 0.0f);
  EXPECT_LT(log.Values[1], 1.0f);
}

TEST(CudaStreamedTransform, ComputesIntoAPinnedOutputOfItsOwn)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const AlwaysPinned pinned;
  std::vector<float> values;
  auto               input = HostImage(values);
  for (auto & v : values)
  {
    v = -v;
  }
  std::copy(values.begin(), values.end(), input->GetBufferPointer());
  auto abs = itk::CudaAbsImageFilter<ImageType>::New(); // not in place
  abs->SetTransferChunkBytes(Chunk);
  abs->SetInput(input);
  abs->Update(); // streamed or not: the output may have no host buffer yet
  std::vector<float> expected(values.size());
  std::transform(values.begin(), values.end(), expected.begin(), [](float v) { return std::fabs(v); });
  EXPECT_EQ(HostPixels(abs->GetOutput()), expected);
  // Again, the input changed on the host behind the flags and announced by
  // Modified() alone (as ITK code that kept a pointer does): streamed.
  input->GetCudaDataManager()->GetConstGPUBufferPointer(); // both copies current
  for (auto & v : values)
  {
    v *= 2.0f;
  }
  float * host = static_cast<float *>(const_cast<void *>(input->GetCudaDataManager()->GetConstCPUBufferPointer()));
  std::copy(values.begin(), values.end(), host);
  input->Modified();
  abs->GetOutput()->GetCudaDataManager()->ResetTransferStatistics();
  abs->Update();
  const auto statistics = abs->GetOutput()->GetCudaDataManager()->GetTransferStatistics();
  EXPECT_EQ(statistics.HostToDeviceCount, 1u);
  EXPECT_EQ(statistics.DeviceToHostCount, 1u);
  EXPECT_FALSE(abs->GetOutput()->GetCudaDataManager()->IsCPUBufferDirty());
  std::transform(values.begin(), values.end(), expected.begin(), [](float v) { return std::fabs(v); });
  EXPECT_EQ(HostPixels(abs->GetOutput()), expected);
  EXPECT_EQ(HostPixels(input.GetPointer()), values) << "the input is untouched";
}

/** Update `filter`, in place on `image`, with an observer that aborts at 30 %
 * of the chunks: the update throws, the host copy is current and the device
 * copy stale, and chunk by chunk each pixel holds its value `before` or its
 * result `after`, some of them the result. */
void
ExpectAbortedMidStream(itk::ProcessObject *       filter,
                       const ImageType *          image,
                       const std::vector<float> & before,
                       const std::vector<float> & after)
{
  ProgressLog log;
  log.AbortAt = 0.3f;
  ObserveProgress(filter, log);
  EXPECT_THROW(filter->Update(), itk::ProcessAborted);
  const auto manager = image->GetCudaDataManager();
  EXPECT_FALSE(manager->IsCPUBufferDirty());
  EXPECT_TRUE(manager->IsGPUBufferDirty());
  const std::vector<float> now = HostPixels(image);
  size_t                   done = 0;
  for (size_t i = 0; i < before.size(); ++i)
  {
    ASSERT_TRUE(now[i] == before[i] || now[i] == after[i]) << i;
    done += now[i] != before[i];
  }
  EXPECT_GT(done, 0u);
  EXPECT_LT(log.Values.back(), 1.0f);
}

TEST(CudaStreamedTransform, AnAbortBetweenChunksLeavesTheHostCopyCurrent)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const AlwaysPinned pinned;
  std::vector<float> values;
  auto               input = HostImage(values);
  auto               abs = itk::CudaAbsImageFilter<ImageType>::New();
  abs->InPlaceOn();
  abs->SetTransferChunkBytes(Chunk / 4);
  abs->SetTransferStreams(2);
  abs->SetInput(input);
  std::vector<float> expected(values.size());
  std::transform(values.begin(), values.end(), expected.begin(), [](float v) { return std::fabs(v); });
  ExpectAbortedMidStream(abs, input, values, expected);
}

/** Host pixels and device pixels of `image`, each equal to `expected`. */
template <typename TImage>
void
ExpectBothCopies(const TImage * image, const std::vector<typename TImage::PixelType> & expected)
{
  const auto manager = image->GetCudaDataManager();
  EXPECT_FALSE(manager->IsCPUBufferDirty()) << "the host copy is current";
  EXPECT_FALSE(manager->IsGPUBufferDirty()) << "and so is the device copy";
  const auto * host = image->GetBufferPointer();
  EXPECT_EQ((std::vector<typename TImage::PixelType>(host, host + expected.size())), expected);
  EXPECT_EQ(itk::CudaTest::DeviceCopy(image), expected);
}

/** short in, float out: a filter whose output pixels are wider. */
using ShortImageType = itk::CudaImage<short, 3>;
class CudaWidenImageFilter
  : public itk::CudaUnaryFunctorImageFilter<ShortImageType,
                                            ImageType,
                                            itk::CudaTest::WidenAndScale,
                                            itk::UnaryGeneratorImageFilter<ShortImageType, ImageType>>
{
public:
  using Self = CudaWidenImageFilter;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);

protected:
  CudaWidenImageFilter()
  {
    const itk::CudaTest::WidenAndScale functor{ 0.5f };
    this->SetCudaFunctor(functor);
    this->SetFunctor(functor);
  }
};

TEST(CudaStreamedTransform, StreamsIntoWiderOutputPixels)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const AlwaysPinned pinned;
  auto               input = ShortImageType::New();
  input->SetRegions(ShortImageType::SizeType{ { 64, 64, 160 } });
  input->Allocate();
  const size_t       count = input->GetBufferedRegion().GetNumberOfPixels();
  std::vector<float> expected(count);
  const auto         fill = [&](int offset) {
    for (size_t i = 0; i < count; ++i)
    {
      const auto value = static_cast<short>(static_cast<int>(i % 60001) - 30000 + offset);
      input->GetBufferPointer()[i] = value;
      expected[i] = static_cast<float>(value) * 0.5f;
    }
    input->Modified();
  };
  fill(0);
  auto widen = CudaWidenImageFilter::New();
  widen->SetTransferChunkBytes(Chunk); // 1 MiB of floats: 3 chunks
  widen->SetTransferStreams(2);       // progress from the third
  widen->SetInput(input);
  widen->Update(); // whole copies: the output has no host buffer yet
  EXPECT_EQ(HostPixels(widen->GetOutput()), expected);
  fill(7);
  widen->GetOutput()->GetCudaDataManager()->ResetTransferStatistics();
  ProgressLog log;
  ObserveProgress(widen, log);
  widen->Update();
  const auto statistics = widen->GetOutput()->GetCudaDataManager()->GetTransferStatistics();
  EXPECT_EQ(statistics.HostToDeviceBytes, count * sizeof(short)) << "streamed: counted on the output";
  EXPECT_EQ(statistics.DeviceToHostBytes, count * sizeof(float));
  ExpectBothCopies(widen->GetOutput(), expected);
  EXPECT_GT(log.Values.size(), 2u) << "progress per chunk";
  EXPECT_TRUE(input->GetCudaDataManager()->IsGPUBufferDirty()) << "the input's device copy is left as it was";
}

TEST(CudaStreamedTransform, AddsHostImagesChunkByChunk)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const AlwaysPinned pinned;
  std::vector<float> first;
  std::vector<float> second;
  auto               input1 = HostImage(first);
  auto               input2 = HostImage(second);
  for (size_t i = 0; i < second.size(); ++i)
  {
    second[i] = static_cast<float>(i % 977) * 0.25f;
  }
  std::copy(second.begin(), second.end(), input2->GetBufferPointer());
  const auto sum = [](const std::vector<float> & a, const std::vector<float> & b) {
    std::vector<float> result(a.size());
    std::transform(a.begin(), a.end(), b.begin(), result.begin(), std::plus<float>());
    return result;
  };
  auto add = itk::CudaAddImageFilter<ImageType>::New();
  add->SetTransferChunkBytes(Chunk);
  add->SetInput1(input1);
  add->SetInput2(input2);
  add->Update(); // whole copies: the output has no host buffer yet
  EXPECT_EQ(HostPixels(add->GetOutput()), sum(first, second));

  // Both inputs written on the host again: streamed.
  for (auto * image : { input1.GetPointer(), input2.GetPointer() })
  {
    image->GetBufferPointer()[5] = 1000.0f;
    image->Modified();
  }
  first[5] = second[5] = 1000.0f;
  const auto manager = add->GetOutput()->GetCudaDataManager();
  manager->ResetTransferStatistics();
  add->Update();
  auto statistics = manager->GetTransferStatistics();
  EXPECT_EQ(statistics.HostToDeviceCount, 2u) << "one upload per input, counted on the output";
  EXPECT_EQ(statistics.DeviceToHostCount, 1u);
  ExpectBothCopies(add->GetOutput(), sum(first, second));
  EXPECT_TRUE(input1->GetCudaDataManager()->IsGPUBufferDirty()) << "the inputs' device copies are left as they were";

  // An image and a constant.
  add->SetConstant2(-2.5f);
  manager->ResetTransferStatistics();
  add->Update();
  statistics = manager->GetTransferStatistics();
  EXPECT_EQ(statistics.HostToDeviceCount, 1u);
  ExpectBothCopies(add->GetOutput(), sum(first, std::vector<float>(first.size(), -2.5f)));

  // In place on the first input's pinned buffer, from the first update.
  auto inPlace = itk::CudaAddImageFilter<ImageType>::New();
  inPlace->InPlaceOn();
  inPlace->SetTransferChunkBytes(Chunk);
  inPlace->SetTransferStreams(2);
  inPlace->SetInput1(input1);
  inPlace->SetInput2(input2);
  const float * buffer = input1->GetBufferPointer();
  input1 = nullptr;
  ProgressLog log;
  ObserveProgress(inPlace, log);
  inPlace->Update();
  // (GetBufferPointer() of the non-const output would mark its device copy stale.)
  EXPECT_EQ(inPlace->GetOutput()->GetCudaDataManager()->PeekCPUBuffer(), buffer) << "the first input's buffer";
  ExpectBothCopies(inPlace->GetOutput(), sum(first, second));
  EXPECT_GT(log.Values.size(), 2u) << "progress per chunk";
  EXPECT_EQ(HostPixels(input2.GetPointer()), second) << "the second input is untouched";
}

TEST(CudaStreamedTransform, AnAbortOfABinaryFilterLeavesTheHostCopyCurrent)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const AlwaysPinned pinned;
  std::vector<float> first;
  std::vector<float> second;
  auto               input1 = HostImage(first);
  auto               input2 = HostImage(second);
  auto               add = itk::CudaAddImageFilter<ImageType>::New();
  add->InPlaceOn();
  add->SetTransferChunkBytes(Chunk / 4);
  add->SetTransferStreams(2);
  add->SetInput1(input1);
  add->SetInput2(input2);
  std::vector<float> sum(first.size());
  std::transform(first.begin(), first.end(), second.begin(), sum.begin(), std::plus<float>());
  ExpectAbortedMidStream(add, input1, first, sum);
}

/** Fails its third chunk, as a kernel launch failure would. */
class FailingSquareImageFilter : public itk::CudaSquareImageFilter<ImageType>
{
public:
  using Self = FailingSquareImageFilter;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  int Calls{ 0 };

protected:
  void
  GPUComputeElements(const float * in, float * out, size_t count, cudaStream_t stream) override
  {
    if (++Calls == 3)
    {
      itk::CudaCheckError(cudaErrorLaunchFailure, __FILE__, __LINE__, "FailingSquareImageFilter");
    }
    itk::CudaSquareImageFilter<ImageType>::GPUComputeElements(in, out, count, stream);
  }
};

TEST(CudaStreamedTransform, AnErrorMidStreamThrowsAndLeavesAUsableImage)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const AlwaysPinned pinned;
  std::vector<float> values;
  auto               input = HostImage(values);
  auto               failing = FailingSquareImageFilter::New();
  failing->InPlaceOff();
  failing->SetTransferChunkBytes(Chunk / 4);
  failing->SetInput(input);
  // A first update that does not fail (streamed or not).
  failing->Calls = 10;
  failing->Update();
  EXPECT_EQ(HostPixels(failing->GetOutput()), Squares(values));
  input->Modified();
  failing->Calls = 0;
  const std::string message = itk::CudaTest::ExceptionMessage([&] { failing->Update(); });
  EXPECT_NE(message.find("cudaErrorLaunchFailure"), std::string::npos) << message;
  EXPECT_GE(failing->Calls, 3);
  const auto manager = failing->GetOutput()->GetCudaDataManager();
  EXPECT_FALSE(manager->IsCPUBufferDirty());
  EXPECT_TRUE(manager->IsGPUBufferDirty());
  EXPECT_EQ(HostPixels(input.GetPointer()), values) << "the input is untouched";
  // The next update runs in full.
  failing->Calls = 10;
  failing->Modified();
  failing->Update();
  EXPECT_EQ(HostPixels(failing->GetOutput()), Squares(values));
}

TEST(CudaStreamedTransform, PageableInputsGoUpWhole)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  std::vector<float> values;
  auto               input = HostImage(values);
  // Foreign pageable memory (the pool's cache may hand out a pinned block).
  std::vector<float> foreign(values);
  input->GetPixelContainer()->SetImportPointer(foreign.data(), foreign.size(), false);
  ASSERT_FALSE(itk::CudaIsPinnedHostMemory(input->GetBufferPointer()));
  auto square = itk::CudaSquareImageFilter<ImageType>::New();
  square->SetTransferChunkBytes(Chunk);
  square->SetInput(input);
  ProgressLog log;
  ObserveProgress(square, log);
  square->Update();
  EXPECT_EQ(log.Values, (std::vector<float>{ 0.0f, 1.0f })) << "no chunks";
  EXPECT_EQ(HostPixels(square->GetOutput()), Squares(values));
}

TEST(CudaStreamedTransform, RefusesPartialPixels)
{
  const std::string message = itk::CudaTest::ExceptionMessage([] {
    char buffer[16] = {};
    itk::CudaStreamedTransform(buffer, buffer, buffer, 10, 4, nullptr, [](void *, size_t, cudaStream_t) {},
                               [](double) { return true; });
  });
  EXPECT_NE(message.find("expected buffers of whole pixels"), std::string::npos) << message;
}
} // namespace
