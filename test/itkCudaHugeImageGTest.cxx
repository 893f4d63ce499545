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

#include <cstdint>

// More than 2^32 voxels: offsets and counts are 64-bit from the host through
// the kernels. Needs ~5 GB of GPU and ~10 GB of host memory; skipped without a
// GPU, and left out of the compute-sanitizer runs (scripts/gpu-suite.sh),
// where instrumenting 4.6e9 voxels would take hours.
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
} // namespace
