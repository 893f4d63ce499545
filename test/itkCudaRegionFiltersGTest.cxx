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
#include "itkCudaConstantPadImageFilter.h"
#include "itkCudaCropImageFilter.h"
#include "itkCudaPasteImageFilter.h"
#include "itkCudaTestUtilities.h"
#include "itkStreamingImageFilter.h"
#include "itkVector.h"
#include "itkZeroFluxNeumannBoundaryCondition.h"

#include <string>
#include <vector>

// CudaCropImageFilter, CudaConstantPadImageFilter and CudaPasteImageFilter
// against ITK's CropImageFilter, ConstantPadImageFilter and PasteImageFilter
// on the same pixels: 2-D to 4-D, pixels of 1 to 12 bytes, regions that do
// not start at 0, streamed pieces, in place, a slice pasted into a volume,
// a constant pasted; on the GPU (skipped without one) and through the CPU
// parent. The pixels, the output's geometry, and on the GPU that the output
// was made on the device alone.
namespace
{
using itk::CudaTest::BufferBytes;
using itk::CudaTest::ExceptionMessage;
using itk::CudaTest::MakePatternImage;
using itk::CudaTest::ToITKImage;

template <typename TPixel, unsigned int VDimension>
using ITKImage = itk::Image<TPixel, VDimension>;
template <typename TPixel, unsigned int VDimension>
using CudaImage = itk::CudaImage<TPixel, VDimension>;

/** `output` of a CUDA filter is `reference`, ITK's: regions, geometry,
 * pixels; on the GPU, made there (its host copy stale, nothing uploaded). */
template <typename TCudaImage, typename TITKImage>
void
ExpectLikeITK(bool gpu, const TCudaImage * output, const TITKImage * reference)
{
  if (gpu)
  {
    const auto manager = output->GetCudaDataManager();
    EXPECT_TRUE(manager->IsCPUBufferDirty()) << "made on the device";
    EXPECT_EQ(manager->GetTransferStatistics().HostToDeviceCount, 0u);
  }
  EXPECT_EQ(output->GetLargestPossibleRegion(), reference->GetLargestPossibleRegion());
  EXPECT_EQ(output->GetBufferedRegion(), reference->GetBufferedRegion());
  EXPECT_EQ(output->GetOrigin(), reference->GetOrigin());
  EXPECT_EQ(output->GetSpacing(), reference->GetSpacing());
  EXPECT_EQ(output->GetDirection(), reference->GetDirection());
  EXPECT_EQ(BufferBytes(output), BufferBytes(reference));
}

template <typename TPixel, unsigned int VDimension>
void
ExpectCropLikeITK(bool                          gpu,
                  const itk::Size<VDimension> & size,
                  const itk::Size<VDimension> & lower,
                  const itk::Size<VDimension> & upper,
                  bool                          inPlace = false)
{
  auto cudaInput = MakePatternImage<CudaImage<TPixel, VDimension>>(size);
  auto reference = itk::CropImageFilter<ITKImage<TPixel, VDimension>, ITKImage<TPixel, VDimension>>::New();
  reference->SetInput(ToITKImage(cudaInput.GetPointer()));
  reference->SetLowerBoundaryCropSize(lower);
  reference->SetUpperBoundaryCropSize(upper);
  reference->Update();
  auto filter = itk::CudaCropImageFilter<CudaImage<TPixel, VDimension>, CudaImage<TPixel, VDimension>>::New();
  filter->SetGPUEnabled(gpu);
  filter->SetInput(cudaInput);
  filter->SetLowerBoundaryCropSize(lower);
  filter->SetUpperBoundaryCropSize(upper);
  filter->SetInPlace(inPlace);
  filter->Update();
  ExpectLikeITK(gpu && !inPlace, filter->GetOutput(), reference->GetOutput());
  if (gpu && !inPlace)
  {
    EXPECT_EQ(cudaInput->GetCudaDataManager()->GetTransferStatistics().HostToDeviceCount, 1u) << "one upload";
  }
}

template <typename TPixel, unsigned int VDimension>
void
ExpectPadLikeITK(bool                          gpu,
                 const itk::Size<VDimension> & size,
                 const itk::Size<VDimension> & lower,
                 const itk::Size<VDimension> & upper,
                 const TPixel &                constant,
                 unsigned int                  streamDivisions = 1)
{
  auto cudaInput = MakePatternImage<CudaImage<TPixel, VDimension>>(size);
  auto reference = itk::ConstantPadImageFilter<ITKImage<TPixel, VDimension>, ITKImage<TPixel, VDimension>>::New();
  reference->SetInput(ToITKImage(cudaInput.GetPointer()));
  reference->SetPadLowerBound(lower);
  reference->SetPadUpperBound(upper);
  reference->SetConstant(constant);
  reference->Update();
  auto filter = itk::CudaConstantPadImageFilter<CudaImage<TPixel, VDimension>>::New();
  filter->SetGPUEnabled(gpu);
  filter->SetInput(cudaInput);
  filter->SetPadLowerBound(lower);
  filter->SetPadUpperBound(upper);
  filter->SetConstant(constant);
  if (streamDivisions == 1)
  {
    filter->Update();
    ExpectLikeITK(gpu, filter->GetOutput(), reference->GetOutput());
    return;
  }
  auto streamer = itk::StreamingImageFilter<CudaImage<TPixel, VDimension>, CudaImage<TPixel, VDimension>>::New();
  streamer->SetInput(filter->GetOutput());
  streamer->SetNumberOfStreamDivisions(streamDivisions);
  streamer->Update();
  EXPECT_LT(filter->GetOutput()->GetBufferedRegion().GetNumberOfPixels(),
            reference->GetOutput()->GetBufferedRegion().GetNumberOfPixels())
    << "the last piece alone";
  ExpectLikeITK(false, streamer->GetOutput(), reference->GetOutput());
}

class CudaRegionFiltersTest : public ::testing::TestWithParam<bool>
{};
INSTANTIATE_TEST_SUITE_P(Paths, CudaRegionFiltersTest, ::testing::Values(true, false), [](const auto & info) {
  return info.param ? std::string("GPU") : std::string("CPUParent");
});

TEST_P(CudaRegionFiltersTest, CropLikeITK)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  ExpectCropLikeITK<float, 3>(GetParam(), { { 37, 23, 11 } }, { { 2, 0, 3 } }, { { 5, 4, 1 } });
  ExpectCropLikeITK<unsigned char, 2>(GetParam(), { { 19, 7 } }, { { 0, 3 } }, { { 18, 0 } });
  ExpectCropLikeITK<itk::Vector<float, 3>, 4>(GetParam(), { { 9, 8, 7, 6 } }, { { 1, 2, 0, 2 } }, { { 3, 0, 1, 1 } });
  ExpectCropLikeITK<double, 3>(GetParam(), { { 7, 6, 5 } }, { { 0, 0, 0 } }, { { 0, 0, 0 } }, true);
  // Rows and offsets at 16-byte multiples: the kernels move 16-byte words
  // (4 floats, 16 bytes, 2 doubles, 4 of the 12-byte vectors in 3 words).
  ExpectCropLikeITK<float, 3>(GetParam(), { { 40, 6, 5 } }, { { 4, 1, 0 } }, { { 8, 2, 1 } });
  ExpectCropLikeITK<unsigned char, 2>(GetParam(), { { 64, 5 } }, { { 16, 1 } }, { { 16, 1 } });
  ExpectCropLikeITK<double, 3>(GetParam(), { { 10, 4, 3 } }, { { 2, 1, 1 } }, { { 4, 0, 0 } });
  ExpectCropLikeITK<itk::Vector<float, 3>, 3>(GetParam(), { { 12, 3, 2 } }, { { 4, 1, 0 } }, { { 4, 0, 1 } });
}

TEST_P(CudaRegionFiltersTest, CropMoreThanTheImageIsRefusedAsITKRefusesIt)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  auto filter = itk::CudaCropImageFilter<CudaImage<float, 2>, CudaImage<float, 2>>::New();
  filter->SetGPUEnabled(GetParam());
  filter->SetInput(MakePatternImage<CudaImage<float, 2>>({ { 8, 8 } }));
  filter->SetLowerBoundaryCropSize({ { 5, 0 } });
  filter->SetUpperBoundaryCropSize({ { 4, 0 } });
  EXPECT_FALSE(ExceptionMessage([&] { filter->Update(); }).empty());
}

TEST_P(CudaRegionFiltersTest, ConstantPadLikeITK)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  ExpectPadLikeITK<float, 3>(GetParam(), { { 37, 23, 11 } }, { { 2, 0, 1 } }, { { 3, 4, 0 } }, 7.5f);
  ExpectPadLikeITK<short, 2>(GetParam(), { { 19, 7 } }, { { 0, 5 } }, { { 1, 0 } }, short{ 0 });
  ExpectPadLikeITK<unsigned char, 3>(
    GetParam(), { { 5, 6, 7 } }, { { 1, 1, 1 } }, { { 2, 2, 2 } }, static_cast<unsigned char>(9));
  // Along the fourth dimension: slabs of the constant alone.
  ExpectPadLikeITK<double, 4>(GetParam(), { { 6, 5, 4, 3 } }, { { 1, 0, 2, 2 } }, { { 0, 3, 1, 1 } }, -1.25);
  ExpectPadLikeITK<itk::Vector<float, 3>, 3>(
    GetParam(), { { 9, 8, 7 } }, { { 2, 1, 0 } }, { { 0, 1, 3 } }, itk::Vector<float, 3>(2.5f));
  ExpectPadLikeITK<float, 3>(GetParam(), { { 7, 6, 5 } }, { { 0, 0, 0 } }, { { 0, 0, 0 } }, 1.0f); // nothing padded
  // 16-byte words, the constant repeated in them (see CropLikeITK).
  ExpectPadLikeITK<float, 3>(GetParam(), { { 40, 6, 5 } }, { { 4, 1, 0 } }, { { 8, 2, 1 } }, 7.5f);
  ExpectPadLikeITK<unsigned char, 2>(
    GetParam(), { { 32, 5 } }, { { 16, 2 } }, { { 0, 1 } }, static_cast<unsigned char>(200));
  ExpectPadLikeITK<double, 4>(GetParam(), { { 6, 3, 2, 2 } }, { { 2, 0, 1, 1 } }, { { 4, 1, 0, 1 } }, -1.25);
  ExpectPadLikeITK<itk::Vector<float, 3>, 3>(
    GetParam(), { { 8, 3, 2 } }, { { 4, 1, 0 } }, { { 4, 0, 1 } }, itk::Vector<float, 3>(-2.5f));
}

TEST_P(CudaRegionFiltersTest, ConstantPadInStreamedPieces)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  // Pieces along the last axis: some all padding, some all input, some both.
  ExpectPadLikeITK<float, 3>(GetParam(), { { 21, 13, 6 } }, { { 3, 2, 4 } }, { { 1, 0, 3 } }, 3.0f, 5);
}

TEST_P(CudaRegionFiltersTest, ConstantPadWithAnotherBoundaryConditionRunsITKsCode)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  using CudaImageType = CudaImage<float, 3>;
  using ITKImageType = ITKImage<float, 3>;
  auto cudaInput = MakePatternImage<CudaImageType>({ { 9, 8, 7 } });
  itk::ZeroFluxNeumannBoundaryCondition<ITKImageType, ITKImageType>   referenceCondition;
  itk::ZeroFluxNeumannBoundaryCondition<CudaImageType, CudaImageType> condition;
  auto reference = itk::ConstantPadImageFilter<ITKImageType, ITKImageType>::New();
  reference->SetInput(ToITKImage(cudaInput.GetPointer()));
  reference->SetPadBound({ { 2, 1, 3 } });
  reference->SetBoundaryCondition(&referenceCondition);
  reference->Update();
  auto filter = itk::CudaConstantPadImageFilter<CudaImageType>::New();
  filter->SetGPUEnabled(GetParam());
  filter->SetInput(cudaInput);
  filter->SetPadBound({ { 2, 1, 3 } });
  filter->SetBoundaryCondition(&condition);
  filter->Update();
  ExpectLikeITK(false, filter->GetOutput(), reference->GetOutput());
}

/** PasteImageFilter of `TSource` into `TDest`, ITK's and CUDA's, set up by
 * `configure` (which takes either filter). */
template <typename TDestPixel, unsigned int VDimension, unsigned int VSourceDimension, typename TConfigure>
void
ExpectPasteLikeITK(bool                                gpu,
                   const itk::Size<VDimension> &       destinationSize,
                   const itk::Size<VSourceDimension> * sourceSize,
                   TConfigure &&                       configure,
                   bool                                inPlace = false)
{
  using CudaDest = CudaImage<TDestPixel, VDimension>;
  using CudaSource = CudaImage<TDestPixel, VSourceDimension>;
  auto cudaDestination = MakePatternImage<CudaDest>(destinationSize);
  auto reference =
    itk::PasteImageFilter<ITKImage<TDestPixel, VDimension>, ITKImage<TDestPixel, VSourceDimension>>::New();
  auto filter = itk::CudaPasteImageFilter<CudaDest, CudaSource, CudaDest>::New();
  reference->SetDestinationImage(ToITKImage(cudaDestination.GetPointer()));
  filter->SetDestinationImage(cudaDestination);
  typename CudaSource::Pointer cudaSource;
  if (sourceSize != nullptr)
  {
    cudaSource = MakePatternImage<CudaSource>(*sourceSize, 1);
    reference->SetSourceImage(ToITKImage(cudaSource.GetPointer()));
    filter->SetSourceImage(cudaSource);
  }
  configure(*reference);
  configure(*filter);
  reference->SetInPlace(inPlace);
  filter->SetInPlace(inPlace);
  filter->SetGPUEnabled(gpu);
  reference->Update();
  filter->Update();
  ExpectLikeITK(gpu && !inPlace, filter->GetOutput(), reference->GetOutput());
  if (gpu && cudaSource)
  {
    EXPECT_EQ(cudaSource->GetCudaDataManager()->GetTransferStatistics().HostToDeviceCount, 1u) << "one upload";
  }
}

TEST_P(CudaRegionFiltersTest, PasteLikeITK)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const itk::Size<3> source{ { 12, 9, 8 } };
  // Inside the destination; then over its edge (ITK pastes the part inside).
  for (const itk::Index<3> & at : { itk::Index<3>{ { 1, 0, 2 } }, itk::Index<3>{ { 10, -4, -1 } } })
  {
    ExpectPasteLikeITK<float, 3, 3>(GetParam(), { { 23, 17, 9 } }, &source, [&](auto & paste) {
      paste.SetSourceRegion(itk::ImageRegion<3>({ { -2, 0, 0 } }, { { 10, 7, 5 } }));
      paste.SetDestinationIndex(at);
    });
  }
  const itk::Size<4> source4{ { 5, 4, 3, 3 } };
  ExpectPasteLikeITK<short, 4, 4>(GetParam(), { { 9, 8, 7, 6 } }, &source4, [&](auto & paste) {
    paste.SetSourceRegion(itk::ImageRegion<4>({ { -3, -1, 0, 0 } }, { { 5, 3, 2, 2 } }));
    paste.SetDestinationIndex({ { 0, 1, 2, 2 } });
  });
  const itk::Size<2> source2{ { 6, 5 } };
  ExpectPasteLikeITK<itk::Vector<float, 3>, 2, 2>(GetParam(), { { 11, 9 } }, &source2, [&](auto & paste) {
    paste.SetSourceRegion(itk::ImageRegion<2>({ { -3, -2 } }, { { 6, 5 } }));
    paste.SetDestinationIndex({ { 2, 0 } });
  });  // 16-byte words: rows, the source region and the destination index at 16-byte multiples.
  // (MakePatternImage's regions start at x = -3.)
  const itk::Size<3> aligned{ { 16, 5, 4 } };
  ExpectPasteLikeITK<float, 3, 3>(GetParam(), { { 24, 7, 5 } }, &aligned, [&](auto & paste) {
    paste.SetSourceRegion(itk::ImageRegion<3>({ { 1, -1, 0 } }, { { 8, 4, 3 } }));
    paste.SetDestinationIndex({ { 1, 0, 1 } });
  });
  const itk::Size<2> alignedVectors{ { 8, 5 } };
  ExpectPasteLikeITK<itk::Vector<float, 3>, 2, 2>(GetParam(), { { 12, 6 } }, &alignedVectors, [&](auto & paste) {
    paste.SetSourceRegion(itk::ImageRegion<2>({ { -3, -2 } }, { { 4, 3 } }));
    paste.SetDestinationIndex({ { 1, -1 } });
  });
}

TEST_P(CudaRegionFiltersTest, PasteASliceIntoAVolume)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const itk::Size<2> slice{ { 15, 8 } };
  ExpectPasteLikeITK<float, 3, 2>(GetParam(), { { 17, 9, 8 } }, &slice, [&](auto & paste) {
    paste.SetSourceRegion(itk::ImageRegion<2>({ { -2, -2 } }, { { 13, 6 } }));
    paste.SetDestinationIndex({ { 0, 4, 1 } });
    itk::FixedArray<bool, 3> skip;
    skip[0] = false;
    skip[1] = true; // the slice's second axis is the volume's third
    skip[2] = false;
    paste.SetDestinationSkipAxes(skip);
  });
}

TEST_P(CudaRegionFiltersTest, PasteAConstant)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  ExpectPasteLikeITK<double, 3, 3>(GetParam(), { { 13, 11, 9 } }, nullptr, [&](auto & paste) {
    paste.SetConstant(-4.5);
    paste.SetSourceRegion(itk::ImageRegion<3>({ { 0, 0, 0 } }, { { 6, 20, 3 } })); // its size alone counts
    paste.SetDestinationIndex({ { 2, -1, 4 } });
  });
}

TEST_P(CudaRegionFiltersTest, PasteInPlaceKeepsTheRestOfTheDestination)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const itk::Size<3> source{ { 4, 5, 6 } };
  ExpectPasteLikeITK<float, 3, 3>(
    GetParam(),
    { { 10, 9, 8 } },
    &source,
    [&](auto & paste) {
      paste.SetSourceRegion(itk::ImageRegion<3>({ { -3, -2, -1 } }, source));
      paste.SetDestinationIndex({ { 0, 0, 0 } });
    },
    true);
}

TEST_P(CudaRegionFiltersTest, PasteInStreamedPieces)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  using CudaImageType = CudaImage<float, 3>;
  auto destination = MakePatternImage<CudaImageType>({ { 21, 13, 10 } });
  auto source = MakePatternImage<CudaImageType>({ { 8, 8, 8 } }, 2);
  const itk::ImageRegion<3> sourceRegion({ { -2, -1, 0 } }, { { 7, 6, 5 } });
  const itk::Index<3>       at{ { 4, 3, 2 } };
  auto reference = itk::PasteImageFilter<ITKImage<float, 3>>::New();
  reference->SetDestinationImage(ToITKImage(destination.GetPointer()));
  reference->SetSourceImage(ToITKImage(source.GetPointer()));
  reference->SetSourceRegion(sourceRegion);
  reference->SetDestinationIndex(at);
  reference->Update();
  auto filter = itk::CudaPasteImageFilter<CudaImageType>::New();
  filter->SetGPUEnabled(GetParam());
  filter->SetDestinationImage(destination);
  filter->SetSourceImage(source);
  filter->SetSourceRegion(sourceRegion);
  filter->SetDestinationIndex(at);
  auto streamer = itk::StreamingImageFilter<CudaImageType, CudaImageType>::New();
  streamer->SetInput(filter->GetOutput());
  streamer->SetNumberOfStreamDivisions(5);
  streamer->Update();
  EXPECT_LT(filter->GetOutput()->GetBufferedRegion().GetNumberOfPixels(), 21u * 13u * 10u) << "the last piece alone";
  ExpectLikeITK(false, streamer->GetOutput(), reference->GetOutput());
}

TEST_P(CudaRegionFiltersTest, PasteOfARegionOutsideTheSourceIsRefusedAsITKRefusesIt)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  using CudaImageType = CudaImage<float, 3>;
  auto filter = itk::CudaPasteImageFilter<CudaImageType>::New();
  filter->SetGPUEnabled(GetParam());
  filter->SetDestinationImage(MakePatternImage<CudaImageType>({ { 8, 8, 8 } }));
  filter->SetSourceImage(MakePatternImage<CudaImageType>({ { 4, 4, 4 } }));
  filter->SetSourceRegion(itk::ImageRegion<3>({ { 0, 0, 0 } }, { { 4, 4, 4 } })); // the source starts at -3
  EXPECT_FALSE(ExceptionMessage([&] { filter->Update(); }).empty());
}
/** Device memory for a test, freed on every path. */
struct DeviceBytes
{
  explicit DeviceBytes(size_t bytes) { itk::CudaCheckError(cudaMalloc(&Pointer, bytes), __FILE__, __LINE__, "test"); }
  ~DeviceBytes() { cudaFree(Pointer); }
  DeviceBytes(const DeviceBytes &) = delete;
  DeviceBytes &
  operator=(const DeviceBytes &) = delete;
  void * Pointer = nullptr;
};

/** CudaComposeImageBoxAsync on buffers 0, 4, 8 and 12 bytes past a 16-byte
 * boundary (16-byte words, then 4-byte ones), every combination of sources:
 * each output pixel is the inner buffer's or the constant inside the box, the
 * outer buffer's or the constant around it, against the same composition on
 * the host; an empty box writes the outer source alone. Rows of 24 pixels
 * (shorter than a warp's work item: the box walked as one run of words) and of
 * 1100 (work items along each row). */
TEST(CudaComposeImageBoxAsync, WritesEachPixelOnceFromItsSourceAtAnyAlignment)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  using Region = itk::ImageRegion<3>;
  for (const itk::SizeValueType width : { 24, 1100 })
  {
    const Region        outBuffer({ { -2, 0, 1 } }, { { width, 5, 4 } });
    const Region        innerBuffer({ { 0, 0, 0 } }, { { width - 8, 5, 3 } });
    const itk::Index<3> innerStart{ { 4, 1, 0 } };
    const Region        outerBuffer({ { -2, -1, 0 } }, { { width + 4, 7, 6 } });
    const float         constant = -7.25f;
    const auto          at = [](const Region & buffer, const itk::Index<3> & index) {
      return (static_cast<size_t>(index[2] - buffer.GetIndex(2)) * buffer.GetSize(1) +
              static_cast<size_t>(index[1] - buffer.GetIndex(1))) *
               buffer.GetSize(0) +
             static_cast<size_t>(index[0] - buffer.GetIndex(0));
    };
    std::vector<float> inner(innerBuffer.GetNumberOfPixels());
    std::vector<float> outer(outerBuffer.GetNumberOfPixels());
    for (size_t i = 0; i < inner.size(); ++i)
    {
      inner[i] = 1000.0f + static_cast<float>(i);
    }
    for (size_t i = 0; i < outer.size(); ++i)
    {
      outer[i] = -1000.0f - static_cast<float>(i);
    }
    const size_t slack = 16;
    DeviceBytes  outMemory(outBuffer.GetNumberOfPixels() * sizeof(float) + slack);
    DeviceBytes  innerMemory(inner.size() * sizeof(float) + slack);
    DeviceBytes  outerMemory(outer.size() * sizeof(float) + slack);
    for (const Region & box :
         { Region({ { 2, 1, 2 } }, { { width - 16, 3, 2 } }), Region({ { 2, 1, 2 } }, { { 0, 3, 2 } }) })
    {
      for (size_t shift = 0; shift < slack; shift += sizeof(float))
      {
        auto * const out = static_cast<char *>(outMemory.Pointer) + shift;
        auto * const innerDevice = static_cast<char *>(innerMemory.Pointer) + shift;
        auto * const outerDevice = static_cast<char *>(outerMemory.Pointer) + shift;
        ASSERT_EQ(cudaMemcpy(innerDevice, inner.data(), inner.size() * sizeof(float), cudaMemcpyHostToDevice),
                  cudaSuccess);
        ASSERT_EQ(cudaMemcpy(outerDevice, outer.data(), outer.size() * sizeof(float), cudaMemcpyHostToDevice),
                  cudaSuccess);
        for (const bool innerFromBuffer : { true, false })
        {
          for (const bool outerFromBuffer : { true, false })
          {
            ASSERT_EQ(cudaMemset(out, 0, outBuffer.GetNumberOfPixels() * sizeof(float)), cudaSuccess);
            itk::CudaComposeImageBoxAsync(out,
                                          outBuffer,
                                          box,
                                          innerFromBuffer ? innerDevice : nullptr,
                                          innerBuffer,
                                          innerStart,
                                          outerFromBuffer ? outerDevice : nullptr,
                                          outerBuffer,
                                          &constant,
                                          sizeof(float),
                                          nullptr);
            std::vector<float> result(outBuffer.GetNumberOfPixels());
            ASSERT_EQ(cudaMemcpy(result.data(), out, result.size() * sizeof(float), cudaMemcpyDeviceToHost),
                      cudaSuccess);
            size_t wrong = 0;
            for (itk::IndexValueType z = 0; z < 4; ++z)
            {
              for (itk::IndexValueType y = 0; y < 5; ++y)
              {
                for (itk::IndexValueType x = 0; x < static_cast<itk::IndexValueType>(width); ++x)
                {
                  const itk::Index<3> index{ { x - 2, y, z + 1 } };
                  float               expected = constant;
                  if (box.IsInside(index))
                  {
                    expected =
                      innerFromBuffer ? inner[at(innerBuffer, innerStart + (index - box.GetIndex()))] : constant;
                  }
                  else if (outerFromBuffer)
                  {
                    expected = outer[at(outerBuffer, index)];
                  }
                  wrong += result[at(outBuffer, index)] != expected;
                }
              }
            }
            EXPECT_EQ(wrong, 0u) << "rows of " << width << ", box " << box.GetSize() << ", " << shift
                                 << " bytes past 16, inner "
                                 << (innerFromBuffer ? "buffer" : "constant") << ", outer "
                                 << (outerFromBuffer ? "buffer" : "constant");
          }
        }
      }
    }
    // A box outside the output, or an output outside the outer buffer: refused.
    const auto past = static_cast<itk::IndexValueType>(width) - 4;
    const Region outside({ { past, 0, 1 } }, { { 8, 1, 1 } });
    EXPECT_FALSE(ExceptionMessage([&] {
                   itk::CudaComposeImageBoxAsync(outMemory.Pointer, outBuffer, outside, innerMemory.Pointer,
                                                 innerBuffer, innerStart, nullptr, outerBuffer, &constant,
                                                 sizeof(float), nullptr);
                 }).empty());
    EXPECT_FALSE(ExceptionMessage([&] {
                   itk::CudaComposeImageBoxAsync(outMemory.Pointer, outBuffer, Region(), nullptr, innerBuffer,
                                                 innerStart, outerMemory.Pointer,
                                                 Region({ { 0, 0, 0 } }, { { 4, 4, 4 } }), &constant, sizeof(float),
                                                 nullptr);
                 }).empty());
  }
}
} // namespace
