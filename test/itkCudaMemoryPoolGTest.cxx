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
#include "itkCudaImage.h"
#include "itkCudaMemoryPool.h"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaTestUtilities.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <set>
#include <vector>

// The stream-ordered memory pools behind device buffers, and the pooled
// streams images share: on the GPU.
namespace
{
using ImageType = itk::CudaImage<float, 3>;

ImageType::Pointer
MakeImage(unsigned int edge, float value)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { edge, edge, edge } });
  image->Allocate();
  image->FillBuffer(value);
  return image;
}

/** Restores the release threshold however the test ends. */
struct ThresholdReset
{
  explicit ThresholdReset(int device)
    : Previous(itk::CudaGetMemoryPoolReleaseThreshold(device))
  {}
  ~ThresholdReset() { itk::CudaSetMemoryPoolReleaseThreshold(Previous); }
  uint64_t Previous;
};

class CudaMemoryPool : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    ITK_CUDA_SKIP_WITHOUT_GPU();
    if (!itk::CudaMemoryPoolIsEnabled())
    {
      GTEST_SKIP() << "the memory pools are off (ITK_CUDA_MEMORY_POOL) or the driver has none";
    }
    m_Device = itk::CudaGetDefaultDevice();
  }
  int m_Device{ 0 };
};

TEST_F(CudaMemoryPool, AnImageBufferComesFromTheDevicesPoolAndGoesBackToIt)
{
  constexpr size_t bytes = size_t{ 64 } * 64 * 64 * sizeof(float);
  const uint64_t   before = itk::CudaGetMemoryPoolStatistics(m_Device).UsedBytes;
  {
    auto image = MakeImage(64, 1.0f);
    image->GetCudaDataManager()->GetConstGPUBufferPointer();
    const auto statistics = itk::CudaGetMemoryPoolStatistics(m_Device);
    EXPECT_GE(statistics.UsedBytes, before + bytes);
    EXPECT_GE(statistics.ReservedBytes, statistics.UsedBytes);
  }
  CUDA_CHECK(cudaDeviceSynchronize()); // the stream-ordered free has run
  EXPECT_EQ(itk::CudaGetMemoryPoolStatistics(m_Device).UsedBytes, before);
}

TEST_F(CudaMemoryPool, AFilterChainRunAgainReusesItsMemory)
{
  auto input = MakeImage(128, 0.5f);
  std::vector<itk::CudaSquareImageFilter<ImageType>::Pointer> chain;
  for (int k = 0; k < 4; ++k)
  {
    auto filter = itk::CudaSquareImageFilter<ImageType>::New();
    filter->InPlaceOff();
    filter->SetInput(k == 0 ? input.GetPointer() : chain.back()->GetOutput());
    chain.push_back(filter);
  }
  chain.back()->Update();
  CUDA_CHECK(cudaDeviceSynchronize());
  const uint64_t reserved = itk::CudaGetMemoryPoolStatistics(m_Device).ReservedBytes;
  for (int run = 0; run < 3; ++run)
  {
    chain.front()->Modified(); // every output is released and allocated again
    chain.back()->Update();
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(itk::CudaGetMemoryPoolStatistics(m_Device).ReservedBytes, reserved)
    << "the pool grew: freed outputs were not reused";
  const ImageType::IndexType index = { { 3, 4, 5 } };
  EXPECT_EQ(chain.back()->GetOutput()->GetPixel(index), std::ldexp(1.0f, -16)); // ((0.5^2)^2)^2)^2
}

TEST_F(CudaMemoryPool, TrimmingGivesUnusedMemoryBack)
{
  const ThresholdReset reset(m_Device);
  itk::CudaSetMemoryPoolReleaseThreshold(uint64_t{ 1 } << 40); // keep everything
  EXPECT_EQ(itk::CudaGetMemoryPoolReleaseThreshold(m_Device), uint64_t{ 1 } << 40);
  {
    auto image = MakeImage(256, 2.0f); // 64 MiB
    image->GetCudaDataManager()->GetConstGPUBufferPointer();
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto kept = itk::CudaGetMemoryPoolStatistics(m_Device);
  EXPECT_GE(kept.ReservedBytes - kept.UsedBytes, uint64_t{ 64 } << 20) << "the freed buffer was not kept";
  itk::CudaTrimMemoryPools();
  const auto trimmed = itk::CudaGetMemoryPoolStatistics(m_Device);
  EXPECT_LT(trimmed.ReservedBytes - trimmed.UsedBytes, uint64_t{ 64 } << 20);
}

TEST_F(CudaMemoryPool, AllocationWithoutAStreamTrimsThePoolWhenTheDeviceIsFull)
{
  const ThresholdReset reset(m_Device);
  itk::CudaSetMemoryPoolReleaseThreshold(uint64_t{ 1 } << 40);
  constexpr size_t bytes = size_t{ 1 } << 30;
  {
    auto image = MakeImage(512, 1.0f); // 512 MiB, twice: kept by the pool afterwards
    auto other = MakeImage(512, 1.0f);
    image->GetCudaDataManager()->GetConstGPUBufferPointer();
    other->GetCudaDataManager()->GetConstGPUBufferPointer();
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  // All the device's free memory but 256 MiB taken: 1 GiB fits only in what the pool keeps.
  size_t freeBytes = 0;
  size_t totalBytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
  void * hog = nullptr;
  CUDA_CHECK(cudaMalloc(&hog, freeBytes - (size_t{ 256 } << 20)));
  auto buffer = itk::GPUMemPointer::New(); // cudaMalloc: not from the pool
  EXPECT_NO_THROW(buffer->Allocate(bytes, m_Device));
  EXPECT_EQ(buffer->GetBufferSize(), bytes);
  buffer->Free();
  cudaFree(hog);
}

TEST(CudaMemoryPoolEnvironment, ReleaseThresholdFollowsTheProcessSetting)
{
  // Needs no device: a threshold set by the environment is returned as set.
  const char * expected = std::getenv("CUDACOMMON_EXPECT_POOL_RELEASE_THRESHOLD");
  if (expected == nullptr)
  {
    GTEST_SKIP() << "run by CTest with ITK_CUDA_POOL_RELEASE_THRESHOLD set";
  }
  EXPECT_EQ(itk::CudaGetMemoryPoolReleaseThreshold(0), std::stoull(expected));
}

TEST(CudaPooledStreamsEnvironment, BlockingFollowsTheProcessSetting)
{
  // Needs no device; where there is one, its pooled streams are checked too.
  const char * expected = std::getenv("CUDACOMMON_EXPECT_BLOCKING_STREAMS");
  if (expected == nullptr)
  {
    if (std::getenv("ITK_CUDA_BLOCKING_STREAMS") != nullptr)
    {
      GTEST_SKIP() << "ITK_CUDA_BLOCKING_STREAMS is set: CTest runs this with the value to expect";
    }
    EXPECT_FALSE(itk::CudaPooledStreamsAreBlocking()) << "non-blocking by default";
    return;
  }
  const bool blocking = std::string(expected) == "1";
  EXPECT_EQ(itk::CudaPooledStreamsAreBlocking(), blocking);
  if (itk::IsCudaAvailable())
  {
    auto image = MakeImage(4, 1.0f);
    image->GetCudaDataManager()->GetConstGPUBufferPointer();
    unsigned int flags = 0;
    ASSERT_EQ(cudaStreamGetFlags(image->GetCudaDataManager()->GetStream(), &flags), cudaSuccess);
    EXPECT_EQ((flags & cudaStreamNonBlocking) == 0, blocking);
  }
}

TEST(CudaPooledStreams, ImagesShareAFewStreamsThatOutliveThem)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const bool             blocking = itk::CudaPooledStreamsAreBlocking();
  std::set<cudaStream_t> streams;
  for (int i = 0; i < 32; ++i)
  {
    auto image = MakeImage(4, 1.0f);
    image->GetCudaDataManager()->GetConstGPUBufferPointer();
    const cudaStream_t stream = image->GetCudaDataManager()->GetStream();
    ASSERT_NE(stream, nullptr);
    ASSERT_NE(stream, cudaStreamLegacy);
    streams.insert(stream);
  }
  EXPECT_LE(streams.size(), 8u) << "each image made its own stream";
  EXPECT_GE(streams.size(), 2u) << "all images on one stream";
  for (const cudaStream_t stream : streams)
  {
    // Still valid after their images are gone; not ordered with the legacy
    // default stream by CUDA unless the process asked for blocking streams.
    unsigned int flags = 0;
    ASSERT_EQ(cudaStreamGetFlags(stream, &flags), cudaSuccess);
    EXPECT_EQ((flags & cudaStreamNonBlocking) == 0, blocking);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  }
}
} // namespace
