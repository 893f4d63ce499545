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
#include "itkCudaBoxMeanImageFilter.h"
#include "itkCudaMeanImageFilter.h"
#include "itkCudaNeighborhoodTestUtilities.h"

#include <string>

// CudaMeanImageFilter and CudaBoxMeanImageFilter against ITK's MeanImageFilter
// and BoxMeanImageFilter on the same pixels: 1-D to 4-D, float and double,
// isotropic and anisotropic radii (zero on an axis), radii larger than the
// image (the nearest-pixel extension and the cropped box at the edges),
// streamed pieces (a padded input region), and ITK's code for what the GPU
// path does not take (integer pixels, a radius over 127); on the GPU (skipped
// without one) and through the CPU parent.
namespace
{
using itk::CudaTest::ExceptionMessage;
using itk::CudaTest::ExpectUpdateNearITK;
using itk::CudaTest::MakeSmoothImage;
using itk::CudaTest::ToITKImage;

template <typename TPixel, unsigned int VDimension>
using ITKImage = itk::Image<TPixel, VDimension>;
template <typename TPixel, unsigned int VDimension>
using CudaImage = itk::CudaImage<TPixel, VDimension>;

/** ITK's filter (TITKFilter) and its CUDA counterpart (TCudaFilter) of one
 * radius on one image; `pieces` > 1 streams the CUDA filter's output;
 * `onDevice`: the output is expected to be made on the GPU. Returns the CUDA
 * filter for more checks. */
template <template <typename, typename> class TITKFilter,
          template <typename, typename> class TCudaFilter,
          typename TPixel,
          unsigned int VDimension>
typename TCudaFilter<CudaImage<TPixel, VDimension>, CudaImage<TPixel, VDimension>>::Pointer
ExpectMeanLikeITK(bool                          gpu,
                  const itk::Size<VDimension> & size,
                  const itk::Size<VDimension> & radius,
                  const std::string &           what,
                  unsigned int                  pieces = 1,
                  bool                          onDevice = true)
{
  using CudaImageType = CudaImage<TPixel, VDimension>;
  auto cudaInput = MakeSmoothImage<CudaImageType>(size);
  auto reference = TITKFilter<ITKImage<TPixel, VDimension>, ITKImage<TPixel, VDimension>>::New();
  reference->SetInput(ToITKImage(cudaInput.GetPointer()));
  reference->SetRadius(radius);
  reference->Update();
  auto filter = TCudaFilter<CudaImageType, CudaImageType>::New();
  filter->SetGPUEnabled(gpu);
  filter->SetInput(cudaInput);
  filter->SetRadius(radius);
  // Float: one pass per axis, each rounded to float, against ITK's one sum in
  // double (a few units in the last place); double: the same in double. Integer
  // pixels run ITK's code: to the bit.
  const double tolerance =
    std::is_same<TPixel, float>::value ? 1e-6 : (std::is_same<TPixel, double>::value ? 1e-12 : 0.0);
  ExpectUpdateNearITK(filter.GetPointer(), reference.GetPointer(), tolerance, what, pieces, gpu, onDevice);
  return filter;
}

/** The same case through MeanImageFilter and BoxMeanImageFilter. */
template <typename TPixel, unsigned int VDimension>
void
ExpectBothMeansLikeITK(bool                          gpu,
                       const itk::Size<VDimension> & size,
                       const itk::Size<VDimension> & radius,
                       const std::string &           what,
                       unsigned int                  pieces = 1)
{
  ExpectMeanLikeITK<itk::MeanImageFilter, itk::CudaMeanImageFilter, TPixel>(gpu, size, radius, "Mean, " + what, pieces);
  ExpectMeanLikeITK<itk::BoxMeanImageFilter, itk::CudaBoxMeanImageFilter, TPixel>(
    gpu, size, radius, "BoxMean, " + what, pieces);
}

class CudaMeanTest : public ::testing::TestWithParam<bool>
{};
INSTANTIATE_TEST_SUITE_P(Paths, CudaMeanTest, ::testing::Values(true, false), [](const auto & info) {
  return info.param ? std::string("GPU") : std::string("CPUParent");
});

TEST_P(CudaMeanTest, AveragesLikeITK)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const bool gpu = GetParam();
  ExpectBothMeansLikeITK<float, 3>(gpu, { { 37, 23, 11 } }, { { 2, 2, 2 } }, "float 3-D, radius 2");
  ExpectBothMeansLikeITK<float, 3>(gpu, { { 40, 31, 19 } }, { { 1, 3, 0 } }, "float 3-D, radii 1, 3, 0");
  ExpectBothMeansLikeITK<double, 3>(gpu, { { 19, 17, 15 } }, { { 1, 1, 1 } }, "double 3-D, radius 1");
  ExpectBothMeansLikeITK<double, 2>(gpu, { { 64, 9 } }, { { 4, 1 } }, "double 2-D, radii 4, 1");
  ExpectBothMeansLikeITK<float, 4>(gpu, { { 9, 8, 7, 6 } }, { { 1, 1, 1, 1 } }, "float 4-D, radius 1");
  ExpectBothMeansLikeITK<float, 1>(gpu, { { 3000 } }, { { 5 } }, "float 1-D, radius 5");
  ExpectBothMeansLikeITK<double, 3>(gpu, { { 5, 4, 3 } }, { { 7, 6, 2 } }, "double 3-D, radii larger than the image");
  ExpectBothMeansLikeITK<float, 2>(gpu, { { 700, 3 } }, { { 3, 0 } }, "float 2-D, rows of 700, radii 3, 0");
  ExpectBothMeansLikeITK<float, 2>(gpu, { { 20, 3 } }, { { 0, 0 } }, "float 2-D, radius 0: a copy");
}

TEST_P(CudaMeanTest, StreamedPiecesAreTheWholeImage)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  ExpectBothMeansLikeITK<float, 3>(GetParam(), { { 33, 29, 24 } }, { { 2, 1, 3 } }, "five pieces", 5);
  // One radius on every axis: one box pass a piece (CudaBoxFilterAsync).
  ExpectBothMeansLikeITK<float, 3>(GetParam(), { { 33, 29, 24 } }, { { 2, 2, 2 } }, "five pieces, radius 2", 5);
}

TEST_P(CudaMeanTest, RunsITKsCodeWhereTheGPUPathDoesNotApply)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const bool gpu = GetParam();
  ExpectMeanLikeITK<itk::MeanImageFilter, itk::CudaMeanImageFilter, float, 2>(
    gpu, { { 400, 3 } }, { { 128, 1 } }, "Mean, a radius over 127", 1, false);
  ExpectMeanLikeITK<itk::BoxMeanImageFilter, itk::CudaBoxMeanImageFilter, float, 2>(
    gpu, { { 400, 3 } }, { { 128, 1 } }, "BoxMean, a radius over 127", 1, false);
  ExpectMeanLikeITK<itk::MeanImageFilter, itk::CudaMeanImageFilter, short, 2>(
    gpu, { { 30, 20 } }, { { 2, 1 } }, "Mean, short pixels", 1, false);
  ExpectMeanLikeITK<itk::BoxMeanImageFilter, itk::CudaBoxMeanImageFilter, unsigned char, 3>(
    gpu, { { 12, 10, 8 } }, { { 1, 2, 1 } }, "BoxMean, unsigned char pixels", 1, false);
}

TEST_P(CudaMeanTest, AnEmptyRegionFailsAsITKFails)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const auto emptyUpdate = [](auto filter, auto image) {
    filter->SetInput(image);
    filter->SetRadius(1);
    filter->UpdateOutputInformation();
    filter->GetOutput()->SetRequestedRegion(itk::ImageRegion<2>({ { 0, 0 } }, { { 0, 0 } }));
    return ExceptionMessage([&] { filter->GetOutput()->Update(); });
  };
  auto input = MakeSmoothImage<CudaImage<float, 2>>({ { 8, 8 } });
  auto mean = itk::CudaMeanImageFilter<CudaImage<float, 2>>::New();
  mean->SetGPUEnabled(GetParam());
  EXPECT_EQ(emptyUpdate(mean, input).empty(),
            emptyUpdate(itk::MeanImageFilter<ITKImage<float, 2>, ITKImage<float, 2>>::New(),
                        ToITKImage(input.GetPointer()))
              .empty());
  auto box = itk::CudaBoxMeanImageFilter<CudaImage<float, 2>>::New();
  box->SetGPUEnabled(GetParam());
  EXPECT_EQ(emptyUpdate(box, input).empty(),
            emptyUpdate(itk::BoxMeanImageFilter<ITKImage<float, 2>, ITKImage<float, 2>>::New(),
                        ToITKImage(input.GetPointer()))
              .empty());
}
} // namespace
