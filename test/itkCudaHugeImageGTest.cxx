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
#include "itkCudaGradientMagnitudeImageFilter.h"
#include "itkCudaMeanImageFilter.h"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaTestUtilities.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

// More than 2^32 voxels: offsets and counts are 64-bit from the host through
// the kernels. The square needs ~5 GB of GPU and ~10 GB of host memory, the
// neighborhood filters ~70 GB of GPU and ~18 GB of host memory; each is
// skipped (visibly) where the device has less free, and without a GPU. Left
// out of the compute-sanitizer runs (scripts/gpu-suite.sh), where
// instrumenting 4.3e9 voxels would take hours.
namespace
{
TEST(CudaHugeImage, MoreThanTwoToThe32VoxelsThroughUploadSquareAndDownload)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  size_t freeBytes = 0;
  size_t totalBytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
  using ImageType = itk::CudaImage<unsigned char, 3>;
  const ImageType::SizeType size = { { 2048, 2048, 1100 } };
  const uint64_t            voxels = uint64_t{ 2048 } * 2048 * 1100;
  ASSERT_GT(voxels, uint64_t{ 1 } << 32);
  if (freeBytes < voxels + (size_t{ 1 } << 30))
  {
    GTEST_SKIP() << "needs " << voxels << " bytes of free device memory, " << freeBytes << " free";
  }
  auto image = ImageType::New();
  image->SetRegions(size);
  image->Allocate();
  // i mod 13: every value squares without overflow, and a wrong offset shows.
  unsigned char * pixels = image->GetBufferPointer();
  unsigned char   value = 0;
  for (uint64_t i = 0; i < voxels; ++i)
  {
    pixels[i] = value;
    value = value == 12 ? 0 : value + 1;
  }

  auto square = itk::CudaSquareImageFilter<ImageType>::New(); // in place: one buffer each side
  square->SetInput(image);
  square->Update();
  const ImageType *     output = square->GetOutput();
  const unsigned char * result = output->GetBufferPointer(); // one download
  uint64_t              mismatches = 0;
  uint64_t              firstMismatch = 0;
  value = 0;
  for (uint64_t i = 0; i < voxels; ++i)
  {
    if (result[i] != value * value && mismatches++ == 0)
    {
      firstMismatch = i;
    }
    value = value == 12 ? 0 : value + 1;
  }
  EXPECT_EQ(mismatches, 0u) << "first wrong voxel at linear index " << firstMismatch;
  const auto stats = output->GetCudaDataManager()->GetTransferStatistics();
  EXPECT_EQ(stats.HostToDeviceCount, 1u);
  EXPECT_EQ(stats.DeviceToHostCount, 1u);
  EXPECT_EQ(stats.HostToDeviceBytes, voxels);
  // The last voxel, addressed through ITK's 64-bit index arithmetic too.
  const ImageType::IndexType last = { { 2047, 2047, 1099 } };
  const unsigned char        lastValue = static_cast<unsigned char>((voxels - 1) % 13);
  EXPECT_EQ(output->GetPixel(last), lastValue * lastValue);
}

// A float image of 2048 x 2048 x 1025 voxels (2^32 + 2^22): its last plane
// lies past 2^32. The mean (three separable passes, a strided one along z)
// and the gradient magnitude (one stencil pass) read and write there through
// 64-bit offsets; lines of the last planes, read straight from the device,
// are compared with the same sums in double on the host.
using HugeFloatImage = itk::CudaImage<float, 3>;
constexpr long HugeSide = 2048;
constexpr long HugePlanes = 1025;

float
HugePattern(long x, long y, long z)
{
  return static_cast<float>((x + 3 * y + 5 * z) % 17);
}

/** Line y of plane z of the filter's output, straight from the device. */
std::vector<float>
DeviceLine(const HugeFloatImage * output, long y, long z)
{
  std::vector<float> line(HugeSide);
  const auto *       device = static_cast<const float *>(output->GetCudaDataManager()->GetConstGPUBufferPointer());
  const size_t       offset = (static_cast<size_t>(z) * HugeSide + static_cast<size_t>(y)) * HugeSide;
  CUDA_CHECK(cudaMemcpy(line.data(), device + offset, HugeSide * sizeof(float), cudaMemcpyDeviceToHost));
  return line;
}

TEST(CudaHugeImage, NeighborhoodFiltersPastTwoToThe32Voxels)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const uint64_t voxels = uint64_t{ HugeSide } * HugeSide * HugePlanes;
  ASSERT_GT(voxels, uint64_t{ 1 } << 32);
  const size_t bytes = voxels * sizeof(float);
  size_t       freeBytes = 0;
  size_t       totalBytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
  // The mean's input, output and two ping-pong buffers.
  if (freeBytes < 4 * bytes + (size_t{ 1 } << 30))
  {
    GTEST_SKIP() << "needs " << 4 * bytes << " bytes of free device memory, " << freeBytes << " free";
  }
  auto image = HugeFloatImage::New();
  image->SetRegions(HugeFloatImage::SizeType{ { HugeSide, HugeSide, HugePlanes } });
  image->Allocate();
  float * pixels = image->GetBufferPointer();
  for (long z = 0; z < HugePlanes; ++z)
  {
    for (long y = 0; y < HugeSide; ++y)
    {
      float * line = pixels + (static_cast<size_t>(z) * HugeSide + static_cast<size_t>(y)) * HugeSide;
      for (long x = 0; x < HugeSide; ++x)
      {
        line[x] = HugePattern(x, y, z);
      }
    }
  }
  const auto clamp = [](long i, long size) { return std::min(std::max(i, 0L), size - 1); };
  const auto at = [&](long x, long y, long z) {
    return static_cast<double>(HugePattern(clamp(x, HugeSide), clamp(y, HugeSide), clamp(z, HugePlanes)));
  };
  // Each filter's output on lines of the last planes, against `expected`
  // (the sums in double at x, y, z).
  const auto expectLines = [](const HugeFloatImage * output, const auto & expected, const char * what) {
    EXPECT_TRUE(output->GetCudaDataManager()->IsCPUBufferDirty()) << what << ": made on the GPU";
    const long lines[][2] = { { 0, HugePlanes - 1 }, { 1000, HugePlanes - 1 }, { HugeSide - 1, HugePlanes - 1 },
                              { HugeSide - 1, HugePlanes - 2 } };
    for (const auto & line : lines)
    {
      const std::vector<float> result = DeviceLine(output, line[0], line[1]);
      double                   worst = 0.0;
      for (long x = 0; x < HugeSide; ++x)
      {
        worst = std::max(worst, std::abs(expected(x, line[0], line[1]) - static_cast<double>(result[x])));
      }
      EXPECT_LE(worst, 1e-5) << what << "'s line y = " << line[0] << ", z = " << line[1];
    }
  };

  {
    auto mean = itk::CudaMeanImageFilter<HugeFloatImage>::New();
    mean->SetInput(image);
    mean->SetRadius(1);
    mean->Update();
    expectLines(mean->GetOutput(), [&](long x, long y, long z) {
      double sum = 0.0;
      for (long k = -1; k <= 1; ++k)
      {
        for (long j = -1; j <= 1; ++j)
        {
          for (long i = -1; i <= 1; ++i)
          {
            sum += at(x + i, y + j, z + k);
          }
        }
      }
      return sum / 27.0;
    }, "the mean");
  }
  {
    auto magnitude = itk::CudaGradientMagnitudeImageFilter<HugeFloatImage>::New();
    magnitude->SetInput(image);
    magnitude->Update();
    expectLines(magnitude->GetOutput(), [&](long x, long y, long z) {
      const double dx = 0.5 * (at(x + 1, y, z) - at(x - 1, y, z));
      const double dy = 0.5 * (at(x, y + 1, z) - at(x, y - 1, z));
      const double dz = 0.5 * (at(x, y, z + 1) - at(x, y, z - 1));
      return std::sqrt(dx * dx + dy * dy + dz * dz);
    }, "the gradient magnitude");
  }
}
} // namespace
