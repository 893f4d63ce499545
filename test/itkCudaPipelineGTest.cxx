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
#include "itkCudaHostMemoryPool.h"
#include "itkCudaImageFromImageFilter.h"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaTestUtilities.h"
#include "itkMeanImageFilter.h"
#include "itkSquareImageFilter.h"

// CUDA filters and ITK CPU filters mixed in one pipeline must give the pixels
// of the all-CPU pipeline, whatever copy (host or device) each stage reads.
namespace
{
using CudaImageType = itk::CudaImage<float, 3>;
using ImageType = itk::Image<float, 3>;
using itk::CudaTest::TransfersAre;

template <typename TImage>
typename TImage::Pointer
MakeVolume()
{
  auto image = TImage::New();
  image->SetRegions(typename TImage::SizeType{ { 23, 19, 17 } });
  image->Allocate();
  for (size_t i = 0; i < image->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    image->GetBufferPointer()[i] = static_cast<float>((i * 7919) % 31) / 8.0f - 1.5f;
  }
  return image;
}

// square -> +1 (CPU, in place) -> mean 3x3x3 (CPU, neighborhood) -> square
template <typename TImage, typename TSquare>
typename TImage::Pointer
RunPipeline(TImage * input)
{
  auto square1 = TSquare::New();
  square1->SetInput(input);
  auto add = itk::AddImageFilter<TImage, TImage, TImage>::New();
  add->SetInput1(square1->GetOutput());
  add->SetConstant2(1.0f);
  add->InPlaceOn();
  auto mean = itk::MeanImageFilter<TImage, TImage>::New();
  mean->SetInput(add->GetOutput());
  mean->SetRadius(1);
  auto square2 = TSquare::New();
  square2->SetInput(mean->GetOutput());
  square2->Update();
  typename TImage::Pointer result = square2->GetOutput();
  result->DisconnectPipeline();
  return result;
}

TEST(CudaPipeline, MixedCudaAndCPUFiltersMatchTheCPUPipeline)
{
  auto cpuInput = MakeVolume<ImageType>();
  auto expected = RunPipeline<ImageType, itk::SquareImageFilter<ImageType, ImageType>>(cpuInput);

  auto cudaInput = MakeVolume<CudaImageType>();
  auto result = RunPipeline<CudaImageType, itk::CudaSquareImageFilter<CudaImageType>>(cudaInput);

  const size_t n = expected->GetBufferedRegion().GetNumberOfPixels();
  ASSERT_EQ(result->GetBufferedRegion().GetNumberOfPixels(), n);
  size_t mismatches = 0;
  for (size_t i = 0; i < n; ++i)
  {
    const float e = expected->GetBufferPointer()[i];
    const float r = result->GetBufferPointer()[i];
    if (std::abs(r - e) > 1e-6f * std::max(1.0f, std::abs(e)) && ++mismatches <= 5)
    {
      ADD_FAILURE() << "voxel " << i << ": " << r << " != " << e;
    }
  }
  EXPECT_EQ(mismatches, 0u);
  if (itk::IsCudaAvailable())
  {
    // The last CUDA filter wrote on the device; reading the result downloaded it once.
    EXPECT_TRUE(TransfersAre(result->GetCudaDataManager(), 1, 1));
  }
}

TEST(CudaPipeline, PlainImageThroughCudaImageFromImageFilter)
{
  auto input = MakeVolume<ImageType>();
  auto toCuda = itk::CudaImageFromImageFilter<ImageType>::New();
  toCuda->SetInput(input);
  auto square = itk::CudaSquareImageFilter<CudaImageType>::New();
  square->SetInput(toCuda->GetOutput());
  square->InPlaceOff();
  auto add = itk::AddImageFilter<CudaImageType, CudaImageType, CudaImageType>::New();
  add->SetInput1(square->GetOutput());
  add->SetConstant2(0.5f);
  add->Update();
  for (size_t i = 0; i < input->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    const float v = input->GetBufferPointer()[i];
    ASSERT_EQ(add->GetOutput()->GetBufferPointer()[i], v * v + 0.5f) << i;
  }
}

TEST(CudaPipeline, CPUFilterInPlaceOnADeviceResultIsSeenByTheNextCudaFilter)
{
  // The hazard: a CPU filter writes, in place, an image whose device copy is
  // current. The next CUDA filter must not use that stale device copy.
  auto input = MakeVolume<CudaImageType>();
  auto square1 = itk::CudaSquareImageFilter<CudaImageType>::New();
  square1->SetInput(input);
  square1->InPlaceOff();
  square1->Update();
  CudaImageType::Pointer squared = square1->GetOutput();
  squared->GetCudaDataManager()->UpdateCPUBuffer(); // both copies current now

  auto add = itk::AddImageFilter<CudaImageType, CudaImageType, CudaImageType>::New();
  add->SetInput1(squared);
  add->SetConstant2(2.0f);
  add->InPlaceOn();
  auto square2 = itk::CudaSquareImageFilter<CudaImageType>::New();
  square2->SetInput(add->GetOutput());
  square2->Update();
  for (size_t i = 0; i < input->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    const float v = input->GetBufferPointer()[i];
    const float e = (v * v + 2.0f) * (v * v + 2.0f);
    ASSERT_EQ(square2->GetOutput()->GetBufferPointer()[i], e) << i;
  }
}
// Re-running a pipeline must not accumulate device memory: every output's old
// buffer is freed (views hold none here), and nothing is left at the end.
TEST(CudaPipeline, RerunningAChainKeepsItsDeviceAllocationsBounded)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  std::shared_ptr<itk::CudaTest::CountingMemoryResource> counting;
  const itk::CudaMemoryBackendOverride use(itk::CudaTest::MakeCountingRuntimeBackend(&counting));
  {
    auto input = MakeVolume<CudaImageType>();
    using SquareType = itk::CudaSquareImageFilter<CudaImageType>;
    std::vector<SquareType::Pointer> chain;
    for (int i = 0; i < 3; ++i)
    {
      chain.push_back(SquareType::New());
      chain.back()->InPlaceOff();
      chain.back()->SetInput(i == 0 ? input.GetPointer() : chain[i - 1]->GetOutput());
    }
    std::vector<size_t> live;
    for (int run = 0; run < 4; ++run)
    {
      chain.front()->Modified();
      chain.back()->Update();
      live.push_back(counting->GetNumberOfLiveAllocations());
    }
    EXPECT_LE(live.front(), 4u) << "the input and three outputs";
    EXPECT_EQ(live.back(), live.front());
    float expected = input->GetBufferPointer()[5];
    for (size_t i = 0; i < chain.size(); ++i)
    {
      expected *= expected;
    }
    EXPECT_EQ(chain.back()->GetOutput()->GetPixel(input->ComputeIndex(5)), expected);
  }
  EXPECT_EQ(counting->GetNumberOfLiveAllocations(), 0u);
}
// Intermediates computed on the GPU and never read on the host cost no host
// memory: only the output the host reads gets a host buffer.
TEST(CudaPipeline, GPUOnlyIntermediatesHaveNoHostBuffer)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto input = CudaImageType::New();
  input->SetRegions(CudaImageType::SizeType{ { 64, 48, 40 } }); // above the pinned threshold
  input->Allocate();
  for (size_t i = 0; i < input->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    input->GetBufferPointer()[i] = static_cast<float>(i % 7) / 4.0f;
  }
  using SquareType = itk::CudaSquareImageFilter<CudaImageType>;
  std::vector<SquareType::Pointer> chain;
  for (int i = 0; i < 3; ++i)
  {
    chain.push_back(SquareType::New());
    chain.back()->InPlaceOff();
    chain.back()->SetInput(i == 0 ? input.GetPointer() : chain[i - 1]->GetOutput());
  }
  const auto hostBytesInUse = [] {
    const auto statistics = itk::CudaHostMemoryPool::GetInstance().GetStatistics();
    return statistics.PinnedBytesInUse + statistics.PageableBytesInUse;
  };
  const size_t hostBefore = hostBytesInUse();
  chain.back()->Update();
  for (const auto & filter : chain)
  {
    EXPECT_EQ(static_cast<ImageType *>(filter->GetOutput())->GetPixelContainer()->Size(), 0u);
  }
  EXPECT_EQ(hostBytesInUse(), hostBefore); // no host buffer, pinned or not
  const CudaImageType * result = chain.back()->GetOutput();
  for (size_t i = 0; i < input->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    float expected = input->GetBufferPointer()[i];
    expected = expected * expected;
    expected = expected * expected;
    expected = expected * expected;
    ASSERT_EQ(result->GetBufferPointer()[i], expected) << i;
  }
  EXPECT_EQ(static_cast<const ImageType *>(result)->GetPixelContainer()->Size(),
            input->GetBufferedRegion().GetNumberOfPixels());
}
} // namespace
