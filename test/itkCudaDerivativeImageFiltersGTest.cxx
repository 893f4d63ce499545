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
#include "itkCudaGradientImageFilter.h"
#include "itkCudaGradientMagnitudeImageFilter.h"
#include "itkCudaLaplacianImageFilter.h"
#include "itkCudaNeighborhoodTestUtilities.h"
#include "itkConstantBoundaryCondition.h"
#include "itkCudaMirrorBoundaryCondition.h"
#include "itkPeriodicBoundaryCondition.h"

#include <cmath>
#include <string>

// CudaGradientMagnitudeImageFilter, CudaLaplacianImageFilter and
// CudaGradientImageFilter against ITK's filters on the same pixels, to the
// bit: 1-D to 4-D, float and double in and out, anisotropic spacing with
// UseImageSpacing on and off, a rotated direction (the gradient's
// UseImageDirection), the gradient's boundary conditions, streamed pieces (an
// input padded by ITK), one-pixel axes, ITK's code for what the GPU path does
// not take (integer pixels, a condition set through ITK's class) and an empty
// region; on the GPU (skipped without one) and through the
// CPU parent.
namespace
{
using itk::CudaTest::ExceptionMessage;
using itk::CudaTest::MakeSmoothImage;
using itk::CudaTest::ToITKImage;

template <typename TPixel, unsigned int VDimension>
using ITKImage = itk::Image<TPixel, VDimension>;
template <typename TPixel, unsigned int VDimension>
using CudaImage = itk::CudaImage<TPixel, VDimension>;

/** The components of a pixel, scalar or vector, as doubles. */
template <typename TPixel>
double
Component(const TPixel & pixel, unsigned int i)
{
  if constexpr (std::is_arithmetic<TPixel>::value)
  {
    (void)i;
    return static_cast<double>(pixel);
  }
  else
  {
    return static_cast<double>(pixel[i]);
  }
}

/** Every component of `output` equal to ITK's `reference` (NaN where it is
 * NaN), with the same region and geometry. */
template <typename TOutput, typename TReference>
void
ExpectSameAsITK(const TOutput * output, const TReference * reference, const std::string & what)
{
  ASSERT_EQ(output->GetBufferedRegion(), reference->GetBufferedRegion()) << what;
  EXPECT_EQ(output->GetOrigin(), reference->GetOrigin()) << what;
  EXPECT_EQ(output->GetSpacing(), reference->GetSpacing()) << what;
  EXPECT_EQ(output->GetDirection(), reference->GetDirection()) << what;
  const unsigned int components = itk::NumericTraits<typename TReference::PixelType>::GetLength();
  itk::ImageRegionConstIteratorWithIndex<TOutput> it(output, output->GetBufferedRegion());
  itk::ImageRegionConstIterator<TReference>       ref(reference, reference->GetBufferedRegion());
  size_t                                          differing = 0;
  std::string                                     first;
  for (; !it.IsAtEnd(); ++it, ++ref)
  {
    for (unsigned int i = 0; i < components; ++i)
    {
      const double value = Component(it.Get(), i);
      const double expected = Component(ref.Get(), i);
      if (!(value == expected || (std::isnan(value) && std::isnan(expected))))
      {
        if (differing++ == 0)
        {
          std::ostringstream at;
          at << " first at " << it.GetIndex() << "[" << i << "]: " << value << " against ITK's " << expected;
          first = at.str();
        }
      }
    }
  }
  EXPECT_EQ(differing, 0u) << what << first;
}

/** ExpectUpdateLikeITK() with ExpectSameAsITK() as the comparison. */
template <typename TFilter, typename TReference>
void
ExpectUpdateAsITK(TFilter *           filter,
                  TReference *        reference,
                  const std::string & what,
                  unsigned int        pieces,
                  bool                gpu,
                  bool                onDevice)
{
  itk::CudaTest::ExpectUpdateLikeITK(filter, reference, what, pieces, gpu, onDevice, [&](const auto * output, const auto * expected) {
    ExpectSameAsITK(output, expected, what);
  });
}

/** One case of the two scalar filters: an image of `size`, UseImageSpacing. */
template <typename TInputPixel, typename TOutputPixel, unsigned int VDimension>
void
ExpectScalarFiltersAsITK(bool                          gpu,
                         const itk::Size<VDimension> & size,
                         bool                          useSpacing,
                         const std::string &           what,
                         unsigned int                  pieces = 1,
                         bool                          onDevice = true)
{
  using CudaInputType = CudaImage<TInputPixel, VDimension>;
  using CudaOutputType = CudaImage<TOutputPixel, VDimension>;
  using ITKInputType = ITKImage<TInputPixel, VDimension>;
  using ITKOutputType = ITKImage<TOutputPixel, VDimension>;
  auto cudaInput = MakeSmoothImage<CudaInputType>(size);
  auto itkInput = ToITKImage(cudaInput.GetPointer());
  {
    auto reference = itk::GradientMagnitudeImageFilter<ITKInputType, ITKOutputType>::New();
    reference->SetInput(itkInput);
    reference->SetUseImageSpacing(useSpacing);
    auto filter = itk::CudaGradientMagnitudeImageFilter<CudaInputType, CudaOutputType>::New();
    filter->SetGPUEnabled(gpu);
    filter->SetInput(cudaInput);
    filter->SetUseImageSpacing(useSpacing);
    ExpectUpdateAsITK(filter.GetPointer(), reference.GetPointer(), "GradientMagnitude, " + what, pieces, gpu, onDevice);
  }
  // ITK's Laplacian takes real pixels only.
  if constexpr (std::is_floating_point<TInputPixel>::value)
  {
    auto reference = itk::LaplacianImageFilter<ITKInputType, ITKOutputType>::New();
    reference->SetInput(itkInput);
    reference->SetUseImageSpacing(useSpacing);
    auto filter = itk::CudaLaplacianImageFilter<CudaInputType, CudaOutputType>::New();
    filter->SetGPUEnabled(gpu);
    filter->SetInput(cudaInput);
    filter->SetUseImageSpacing(useSpacing);
    ExpectUpdateAsITK(filter.GetPointer(), reference.GetPointer(), "Laplacian, " + what, pieces, gpu, onDevice);
  }
}

/** One case of the gradient: `configure` applied to both filters. */
template <typename TPixel, typename TValue, unsigned int VDimension, typename TConfigure>
void
ExpectGradientAsITK(bool                          gpu,
                    const itk::Size<VDimension> & size,
                    const std::string &           what,
                    TConfigure &&                 configure,
                    unsigned int                  pieces = 1,
                    bool                          onDevice = true)
{
  using CudaInputType = CudaImage<TPixel, VDimension>;
  using VectorType = itk::CovariantVector<TValue, VDimension>;
  auto cudaInput = MakeSmoothImage<CudaInputType>(size);
  auto reference =
    itk::GradientImageFilter<ITKImage<TPixel, VDimension>, TValue, TValue, ITKImage<VectorType, VDimension>>::New();
  reference->SetInput(ToITKImage(cudaInput.GetPointer()));
  auto filter = itk::CudaGradientImageFilter<CudaInputType, TValue, TValue>::New();
  filter->SetGPUEnabled(gpu);
  filter->SetInput(cudaInput);
  configure(reference.GetPointer(), filter.GetPointer());
  ExpectUpdateAsITK(filter.GetPointer(), reference.GetPointer(), "Gradient, " + what, pieces, gpu, onDevice);
}

/** A rotation of the first two axes (and a flip of the last where there are
 * three or more), as the input's direction. */
template <typename TImage>
void
RotateDirection(TImage * image)
{
  auto         direction = image->GetDirection();
  const double c = std::cos(0.3);
  const double s = std::sin(0.3);
  if (TImage::ImageDimension >= 2)
  {
    direction[0][0] = c;
    direction[0][1] = -s;
    direction[1][0] = s;
    direction[1][1] = c;
  }
  if (TImage::ImageDimension >= 3)
  {
    direction[TImage::ImageDimension - 1][TImage::ImageDimension - 1] = -1.0;
  }
  image->SetDirection(direction);
}

class CudaDerivativeTest : public ::testing::TestWithParam<bool>
{};
INSTANTIATE_TEST_SUITE_P(Paths, CudaDerivativeTest, ::testing::Values(true, false), [](const auto & info) {
  return info.param ? std::string("GPU") : std::string("CPUParent");
});

TEST_P(CudaDerivativeTest, GradientMagnitudeAndLaplacianAreITKs)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const bool gpu = GetParam();
  ExpectScalarFiltersAsITK<float, float, 3>(gpu, { { 37, 23, 11 } }, true, "float 3-D");
  ExpectScalarFiltersAsITK<float, float, 3>(gpu, { { 300, 5, 4 } }, false, "float 3-D, spacing off");
  ExpectScalarFiltersAsITK<double, double, 2>(gpu, { { 64, 9 } }, true, "double 2-D");
  ExpectScalarFiltersAsITK<float, double, 2>(gpu, { { 17, 30 } }, true, "float to double 2-D");
  ExpectScalarFiltersAsITK<double, float, 4>(gpu, { { 9, 8, 7, 6 } }, true, "double to float 4-D");
  ExpectScalarFiltersAsITK<float, float, 1>(gpu, { { 3000 } }, true, "float 1-D");
  ExpectScalarFiltersAsITK<float, float, 3>(gpu, { { 1, 6, 1 } }, true, "float 3-D, axes of one pixel");
}

TEST_P(CudaDerivativeTest, StreamedPiecesAreTheWholeImage)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  ExpectScalarFiltersAsITK<float, float, 3>(GetParam(), { { 33, 29, 24 } }, true, "five pieces", 5);
  ExpectGradientAsITK<float, float, 3>(GetParam(), { { 33, 29, 24 } }, "five pieces", [](auto, auto) {}, 5);
}

TEST_P(CudaDerivativeTest, GradientIsITKs)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const bool gpu = GetParam();
  const auto none = [](auto, auto) {};
  ExpectGradientAsITK<float, float, 3>(gpu, { { 37, 23, 11 } }, "float 3-D", none);
  ExpectGradientAsITK<double, double, 2>(gpu, { { 64, 9 } }, "double 2-D", none);
  ExpectGradientAsITK<float, double, 4>(gpu, { { 9, 8, 7, 6 } }, "float to double 4-D", none);
  ExpectGradientAsITK<double, float, 1>(gpu, { { 500 } }, "double to float 1-D", none);
  ExpectGradientAsITK<float, float, 3>(gpu, { { 20, 13, 7 } }, "spacing and direction off", [](auto ref, auto cuda) {
    ref->SetUseImageSpacing(false);
    cuda->SetUseImageSpacing(false);
    ref->SetUseImageDirection(false);
    cuda->SetUseImageDirection(false);
  });
  // A rotated direction: both filters read it from their (shared) input.
  using CudaInputType = CudaImage<float, 3>;
  auto rotated = MakeSmoothImage<CudaInputType>({ { 21, 14, 9 } });
  RotateDirection(rotated.GetPointer());
  auto reference = itk::GradientImageFilter<ITKImage<float, 3>>::New();
  reference->SetInput(ToITKImage(rotated.GetPointer()));
  auto filter = itk::CudaGradientImageFilter<CudaInputType>::New();
  filter->SetGPUEnabled(gpu);
  filter->SetInput(rotated);
  ExpectUpdateAsITK(filter.GetPointer(), reference.GetPointer(), "Gradient, a rotated direction", 1, gpu, true);
  const auto vector = filter->GetOutput()->GetPixel({ { 5, 5, 5 } });
  EXPECT_NE(vector[0], 0.0f) << "the direction's rotation mixes the first two derivatives";
}

/** A constant and a periodic condition, each a new object that the filter
 * owns (ITK's OverrideBoundaryCondition()). */
template <typename TFilter>
void
OverrideWithConstant(TFilter * filter)
{
  auto * condition = new itk::ConstantBoundaryCondition<typename TFilter::InputImageType>();
  condition->SetConstant(2.5f);
  filter->OverrideBoundaryCondition(condition);
}
template <typename TFilter>
void
OverrideWithPeriodic(TFilter * filter)
{
  filter->OverrideBoundaryCondition(new itk::PeriodicBoundaryCondition<typename TFilter::InputImageType>());
}

TEST_P(CudaDerivativeTest, GradientTakesITKsConstantBoundaryCondition)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  ExpectGradientAsITK<float, float, 3>(GetParam(), { { 19, 12, 6 } }, "constant 2.5", [&](auto ref, auto cuda) {
    OverrideWithConstant(ref);
    OverrideWithConstant(cuda);
  });
}

/** CudaCommon's mirror condition: ITK's GradientImageFilter takes it (its
 * CPU code reads through the iterator's image), the GPU path mirrors in the
 * kernel; an axis of one pixel and one of two among them. */
TEST_P(CudaDerivativeTest, GradientTakesCudaCommonsMirrorBoundaryCondition)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const auto withMirror = [](auto ref, auto cuda) {
    ref->OverrideBoundaryCondition(
      new itk::CudaMirrorBoundaryCondition<typename std::remove_pointer<decltype(ref)>::type::InputImageType>());
    cuda->OverrideBoundaryCondition(
      new itk::CudaMirrorBoundaryCondition<typename std::remove_pointer<decltype(cuda)>::type::InputImageType>());
  };
  ExpectGradientAsITK<float, float, 3>(GetParam(), { { 19, 12, 6 } }, "mirror", withMirror);
  ExpectGradientAsITK<double, double, 3>(GetParam(), { { 7, 2, 1 } }, "mirror, axes of 2 and 1 pixels", withMirror);
  ExpectGradientAsITK<float, float, 2>(GetParam(), { { 40, 33 } }, "mirror, three pieces", withMirror, 3);
}

/** On the GPU only: ITK 5.2's PeriodicBoundaryCondition, given to ITK's
 * GradientImageFilter, casts the filter's iterator to another iterator type
 * (UndefinedBehaviorSanitizer's vptr check stops scripts/sanitize.sh there,
 * as for the Gaussian's periodic test); the GPU variant computes ITK's
 * reference too and runs only where there is a GPU, which the sanitizer
 * build has not. */
TEST_P(CudaDerivativeTest, GradientTakesITKsPeriodicBoundaryCondition)
{
  if (!GetParam())
  {
    GTEST_SKIP() << "the CPU path is ITK's code, whose periodic condition UBSan reports (see above)";
  }
  ITK_CUDA_SKIP_WITHOUT_GPU();
  ExpectGradientAsITK<float, float, 3>(true, { { 19, 12, 6 } }, "periodic", [&](auto ref, auto cuda) {
    OverrideWithPeriodic(ref);
    OverrideWithPeriodic(cuda);
  });
  ExpectGradientAsITK<float, float, 3>(true, { { 19, 12, 6 } }, "constant, then periodic", [&](auto ref, auto cuda) {
    OverrideWithPeriodic(ref);
    OverrideWithConstant(cuda);
    OverrideWithPeriodic(cuda);
  });
  // Set through ITK's class (not virtual): seen, and ITK's code runs.
  ExpectGradientAsITK<float, float, 3>(
    true,
    { { 19, 12, 6 } },
    "periodic, set through GradientImageFilter",
    [&](auto ref, auto cuda) {
      OverrideWithPeriodic(ref);
      typename std::remove_pointer<decltype(cuda)>::type::CPUSuperclass * base = cuda;
      OverrideWithPeriodic(base);
    },
    1,
    false);
}

TEST_P(CudaDerivativeTest, RunsITKsCodeForIntegerPixels)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  ExpectScalarFiltersAsITK<short, float, 2>(GetParam(), { { 30, 20 } }, true, "short pixels", 1, false);
  ExpectGradientAsITK<unsigned char, float, 3>(GetParam(), { { 12, 10, 8 } }, "unsigned char pixels", [](auto, auto) {
  }, 1, false);
}

TEST_P(CudaDerivativeTest, AnEmptyRegionFailsAsITKFails)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const bool gpu = GetParam();
  // (A spacing of zero, which ITK's filters reject, cannot be set: ImageBase refuses it.)
  // An empty requested region: what ITK's filter does.
  const auto emptyUpdate = [](auto filter, auto image) {
    filter->SetInput(image);
    filter->UpdateOutputInformation();
    filter->GetOutput()->SetRequestedRegion(itk::ImageRegion<2>({ { 0, 0 } }, { { 0, 0 } }));
    return ExceptionMessage([&] { filter->GetOutput()->Update(); });
  };
  auto input = MakeSmoothImage<CudaImage<float, 2>>({ { 8, 8 } });
  auto cudaMagnitude = itk::CudaGradientMagnitudeImageFilter<CudaImage<float, 2>>::New();
  cudaMagnitude->SetGPUEnabled(gpu);
  EXPECT_EQ(emptyUpdate(cudaMagnitude, input).empty(),
            emptyUpdate(itk::GradientMagnitudeImageFilter<ITKImage<float, 2>, ITKImage<float, 2>>::New(),
                        ToITKImage(input.GetPointer()))
              .empty());
  auto cudaLaplacian = itk::CudaLaplacianImageFilter<CudaImage<float, 2>>::New();
  cudaLaplacian->SetGPUEnabled(gpu);
  EXPECT_EQ(emptyUpdate(cudaLaplacian, input).empty(),
            emptyUpdate(itk::LaplacianImageFilter<ITKImage<float, 2>, ITKImage<float, 2>>::New(),
                        ToITKImage(input.GetPointer()))
              .empty());
}
} // namespace
