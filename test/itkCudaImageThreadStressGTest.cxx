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
#include "itkCudaTestUtilities.h"

#include <algorithm>
#include <atomic>
#include <random>
#include <shared_mutex>
#include <thread>

// The documented rules for threads: any number of threads may read a
// CudaImage at once (const CPU access, read-only GPU access), also while the
// image synchronises its copies; writes are exclusive (here: a writer holds
// the lock alone). Every read must then see the value written last, whichever
// copy it reads. Run under ThreadSanitizer and compute-sanitizer racecheck.
namespace
{
using ImageType = itk::CudaImage<float, 2>;

class CudaImageThreadStressTest : public itk::CudaTest::BackendTest
{};

TEST_P(CudaImageThreadStressTest, MixedReadersAndWritersSeeTheLastWrite)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 64, 32 } });
  image->Allocate();
  image->FillBuffer(0.0f);
  const size_t pixels = image->GetBufferedRegion().GetNumberOfPixels();

  std::shared_mutex  lock;
  std::atomic<int>   generation{ 0 };
  std::atomic<int>   failures{ 0 };
  std::atomic<int>   gpuReads{ 0 };
  std::atomic<int>   cpuReads{ 0 };
  constexpr int      threads = 16;
  constexpr int      operations = 400;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
  {
    workers.emplace_back([&, t] {
      std::mt19937 random(1000 + t);
      for (int op = 0; op < operations; ++op)
      {
        const int kind = random() % 10;
        if (kind == 0) // write on the CPU
        {
          std::unique_lock<std::shared_mutex> exclusive(lock);
          const int g = ++generation;
          image->FillBuffer(static_cast<float>(g));
        }
        else if (kind == 1) // write on the GPU, as a kernel would
        {
          std::unique_lock<std::shared_mutex> exclusive(lock);
          const int                           g = ++generation;
          std::vector<float>                  values(pixels, static_cast<float>(g));
          void *                              device = image->GetCudaDataManager()->GetGPUBufferPointer();
          itk::CudaTest::CopyToDevice(device, values.data(), pixels * sizeof(float));
        }
        else if (kind < 6) // const CPU read
        {
          std::shared_lock<std::shared_mutex> shared(lock);
          const ImageType *                   reader = image;
          const ImageType::IndexType          index = { { static_cast<long>(random() % 64), static_cast<long>(random() % 32) } };
          if (reader->GetPixel(index) != static_cast<float>(generation.load()))
          {
            ++failures;
          }
          ++cpuReads;
        }
        else // read-only GPU read
        {
          std::shared_lock<std::shared_mutex> shared(lock);
          const auto * device =
            static_cast<const float *>(image->GetCudaDataManager()->GetConstGPUBufferPointer());
          float value = -1.0f;
          itk::CudaTest::CopyToHost(&value, device + random() % pixels, sizeof(float));
          if (value != static_cast<float>(generation.load()))
          {
            ++failures;
          }
          ++gpuReads;
        }
      }
    });
  }
  for (auto & worker : workers)
  {
    worker.join();
  }
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(cpuReads.load(), 1000);
  EXPECT_GT(gpuReads.load(), 1000);
  // Transfers happened only when a stale copy was read.
  const auto stats = image->GetCudaDataManager()->GetTransferStatistics();
  EXPECT_LE(stats.HostToDeviceCount + stats.DeviceToHostCount, static_cast<uint64_t>(2 * generation.load() + 2));
}

ITK_CUDA_INSTANTIATE_BACKEND_TESTS(CudaImageThreadStressTest);
} // namespace

namespace
{
// Streams: each buffer has its own, grafts share it, and an upload queued
// from pinned memory never lets a later host write leak into the device copy
// out of order.
TEST(CudaImageStreams, OwnStreamSharedByGraftsAndOrderedWithHostWrites)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  using Image3 = itk::CudaImage<float, 3>;
  auto image = Image3::New();
  image->SetRegions(Image3::SizeType{ { 512, 512, 128 } }); // 128 MiB: pinned host buffer
  image->Allocate();
  image->FillBuffer(1.0f);
  auto other = Image3::New();
  other->SetRegions(Image3::SizeType{ { 8, 8, 8 } });
  other->Allocate();
  cudaStream_t stream = image->GetCudaDataManager()->GetStream();
  EXPECT_NE(stream, nullptr);
  EXPECT_NE(stream, other->GetCudaDataManager()->GetStream());
  auto graft = Image3::New();
  graft->Graft(image);
  EXPECT_EQ(graft->GetCudaDataManager()->GetStream(), stream);

  for (int round = 2; round < 6; ++round)
  {
    image->GetCudaDataManager()->GetConstGPUBufferPointer(); // upload queued, host goes on
    image->FillBuffer(static_cast<float>(round));           // waits for it, then writes
    const auto *       device = static_cast<const float *>(image->GetCudaDataManager()->GetConstGPUBufferPointer());
    std::vector<float> back(512 * 512 * 128);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaMemcpy(back.data(), device, back.size() * sizeof(float), cudaMemcpyDeviceToHost));
    EXPECT_EQ(std::count(back.begin(), back.end(), static_cast<float>(round)), static_cast<long>(back.size()));
  }
}
} // namespace
