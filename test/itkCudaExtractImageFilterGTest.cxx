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
#include "itkCudaExtractImageFilter.h"
#include "itkCudaTestUtilities.h"
#include "itkExtractImageFilter.h"
#include "itkStreamingImageFilter.h"
#include "itkVector.h"

#include <cstring>
#include <string>
#include <vector>

// CudaExtractImageFilter against ITK's ExtractImageFilter: regions of the
// image's dimension and of one fewer (each axis collapsed), 4-D series to
// volumes, vector pixels, streamed pieces, in place; on the GPU (skipped
// without one) and through the CPU parent. The pixels, the output's geometry
// and the copies between host and device.
namespace
{
using itk::CudaTest::ExceptionMessage;

using itk::CudaTest::BufferBytes;
using itk::CudaTest::MakePatternImage;

/** The CUDA filter of `TIn` to `TOut` CudaImages and ITK's of itk::Images
 * extract `region` of the same pixels: same pixels, same geometry. */
template <typename TPixel, unsigned int VIn, unsigned int VOut>
void
ExpectExtractLikeITK(bool gpu, const itk::ImageRegion<VIn> & region, const itk::Size<VIn> & size, bool inPlace = false)
{
  using CudaIn = itk::CudaImage<TPixel, VIn>;
  using CudaOut = itk::CudaImage<TPixel, VOut>;
  auto cudaInput = MakePatternImage<CudaIn>(size);
  auto input = itk::CudaTest::ToITKImage(cudaInput.GetPointer());
  auto reference = itk::ExtractImageFilter<itk::Image<TPixel, VIn>, itk::Image<TPixel, VOut>>::New();
  reference->SetInput(input);
  reference->SetExtractionRegion(region);
  reference->SetDirectionCollapseToSubmatrix();
  reference->Update();

  auto filter = itk::CudaExtractImageFilter<CudaIn, CudaOut>::New();
  filter->SetGPUEnabled(gpu);
  filter->SetInput(cudaInput);
  filter->SetExtractionRegion(region);
  filter->SetDirectionCollapseToSubmatrix();
  filter->SetInPlace(inPlace);
  filter->Update();
  CudaOut * output = filter->GetOutput();
  EXPECT_EQ(output->GetLargestPossibleRegion(), reference->GetOutput()->GetLargestPossibleRegion());
  EXPECT_EQ(output->GetBufferedRegion(), reference->GetOutput()->GetBufferedRegion());
  EXPECT_EQ(output->GetOrigin(), reference->GetOutput()->GetOrigin());
  EXPECT_EQ(output->GetSpacing(), reference->GetOutput()->GetSpacing());
  EXPECT_EQ(output->GetDirection(), reference->GetOutput()->GetDirection());
  if (gpu && !inPlace)
  {
    const auto manager = output->GetCudaDataManager();
    EXPECT_TRUE(manager->IsCPUBufferDirty()) << "copied on the device";
    EXPECT_EQ(manager->GetTransferStatistics().HostToDeviceCount, 0u);
    EXPECT_EQ(cudaInput->GetCudaDataManager()->GetTransferStatistics().HostToDeviceCount, 1u) << "one upload";
  }
  EXPECT_EQ(BufferBytes(static_cast<const CudaOut *>(output)), BufferBytes(reference->GetOutput()));
}

class CudaExtractImageFilterTest : public ::testing::TestWithParam<bool>
{};
INSTANTIATE_TEST_SUITE_P(Paths, CudaExtractImageFilterTest, ::testing::Values(true, false), [](const auto & info) {
  return info.param ? std::string("GPU") : std::string("CPUParent");
});

TEST_P(CudaExtractImageFilterTest, ARegionOfTheImagesDimension)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const itk::Size<3> size{ { 37, 23, 11 } };
  ExpectExtractLikeITK<float, 3, 3>(GetParam(), itk::ImageRegion<3>({ { -1, 0, 2 } }, { { 20, 13, 5 } }), size);
  ExpectExtractLikeITK<double, 2, 2>(GetParam(), itk::ImageRegion<2>({ { 0, -2 } }, { { 1, 7 } }), { { 9, 8 } });
  // Vector pixels (12 bytes), and 4-D.
  ExpectExtractLikeITK<itk::Vector<float, 3>, 3, 3>(
    GetParam(), itk::ImageRegion<3>({ { -3, -1, 0 } }, { { 37, 4, 3 } }), size);
  ExpectExtractLikeITK<short, 4, 4>(
    GetParam(), itk::ImageRegion<4>({ { -2, -1, 0, 1 } }, { { 5, 6, 3, 2 } }), { { 9, 8, 7, 6 } });
}

TEST_P(CudaExtractImageFilterTest, ASliceOfAVolumeAlongEachAxis)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const itk::Size<3> size{ { 37, 23, 11 } };
  ExpectExtractLikeITK<float, 3, 2>(GetParam(), itk::ImageRegion<3>({ { -3, -2, 4 } }, { { 37, 23, 0 } }), size);
  ExpectExtractLikeITK<float, 3, 2>(GetParam(), itk::ImageRegion<3>({ { 2, 5, -1 } }, { { 30, 0, 9 } }), size);
  ExpectExtractLikeITK<float, 3, 2>(GetParam(), itk::ImageRegion<3>({ { 0, -2, -1 } }, { { 0, 23, 11 } }), size);
}

TEST_P(CudaExtractImageFilterTest, AVolumeOfASeries)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  ExpectExtractLikeITK<float, 4, 3>(
    GetParam(), itk::ImageRegion<4>({ { -3, -2, -1, 2 } }, { { 17, 9, 6, 0 } }), { { 17, 9, 6, 5 } });
  ExpectExtractLikeITK<double, 4, 3>(
    GetParam(), itk::ImageRegion<4>({ { -2, -2, 0, 0 } }, { { 10, 9, 0, 4 } }), { { 17, 9, 6, 5 } });
}

TEST_P(CudaExtractImageFilterTest, InPlaceTheOutputIsTheInput)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const itk::Size<3> size{ { 7, 6, 5 } };
  ExpectExtractLikeITK<float, 3, 3>(GetParam(), itk::ImageRegion<3>({ { -3, -2, -1 } }, size), size, true);
}

TEST_P(CudaExtractImageFilterTest, StreamedPieces)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  using CudaIn = itk::CudaImage<float, 3>;
  using CudaOut = itk::CudaImage<float, 2>;
  auto input = MakePatternImage<CudaIn>({ { 41, 29, 7 } });
  auto extract = itk::CudaExtractImageFilter<CudaIn, CudaOut>::New();
  extract->SetGPUEnabled(GetParam());
  extract->SetInput(input);
  extract->SetExtractionRegion(itk::ImageRegion<3>({ { -1, -2, 3 } }, { { 39, 29, 0 } }));
  extract->SetDirectionCollapseToSubmatrix();
  auto streamer = itk::StreamingImageFilter<CudaOut, CudaOut>::New();
  streamer->SetInput(extract->GetOutput());
  streamer->SetNumberOfStreamDivisions(4);
  streamer->Update();
  EXPECT_LT(extract->GetOutput()->GetBufferedRegion().GetNumberOfPixels(), 39u * 29u) << "the last piece alone";
  const CudaOut * output = streamer->GetOutput();
  const float *   got = output->GetBufferPointer();
  for (itk::IndexValueType y = 0; y < 29; ++y)
  {
    for (itk::IndexValueType x = 0; x < 39; ++x)
    {
      const float expected = input->GetPixel({ { x - 1, y - 2, 3 } });
      ASSERT_EQ(std::memcmp(&got[y * 39 + x], &expected, sizeof(float)), 0) << x << ", " << y;
    }
  }
}

TEST_P(CudaExtractImageFilterTest, ARegionOutsideTheInputIsRefusedAsITKRefusesIt)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  using CudaImageType = itk::CudaImage<float, 3>;
  auto extract = itk::CudaExtractImageFilter<CudaImageType, CudaImageType>::New();
  extract->SetGPUEnabled(GetParam());
  extract->SetInput(MakePatternImage<CudaImageType>({ { 8, 8, 8 } }));
  extract->SetExtractionRegion(itk::ImageRegion<3>({ { 0, 0, 0 } }, { { 8, 8, 8 } })); // the input starts at -3
  const std::string message = ExceptionMessage([&] { extract->Update(); });
  EXPECT_FALSE(message.empty());
}

} // namespace
