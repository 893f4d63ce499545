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
#include "itkConstantBoundaryCondition.h"
#include "itkCudaDiscreteGaussianImageFilter.h"
#include "itkCudaMirrorBoundaryCondition.h"
#include "itkCudaNeighborhoodTestUtilities.h"
#include "itkPeriodicBoundaryCondition.h"

#include <cmath>
#include <functional>
#include <string>

// CudaDiscreteGaussianImageFilter against ITK's DiscreteGaussianImageFilter
// on the same pixels: 1-D to 4-D, float and double, isotropic and
// anisotropic variances with and without the image's spacing, a filter
// dimensionality below the image's, the three boundary conditions the
// kernels take, streamed pieces (a padded input region), and ITK's code for
// what the GPU path does not take (another pixel type, a kernel wider than
// 255 taps); on the GPU (skipped without one) and through the CPU parent.
namespace
{
using itk::CudaTest::ExceptionMessage;
using itk::CudaTest::ExpectNearITK;
using itk::CudaTest::ExpectUpdateNearITK;
using itk::CudaTest::MakeSmoothImage;
using itk::CudaTest::ToITKImage;

template <typename TPixel, unsigned int VDimension>
using ITKImage = itk::Image<TPixel, VDimension>;
template <typename TPixel, unsigned int VDimension>
using CudaImage = itk::CudaImage<TPixel, VDimension>;

template <typename TPixel, unsigned int VDimension>
using Configure = std::function<void(itk::DiscreteGaussianImageFilter<ITKImage<TPixel, VDimension>> &,
                                     itk::DiscreteGaussianImageFilter<CudaImage<TPixel, VDimension>> &)>;

/** Both filters on one image, set up by `configure`; `pieces` > 1 streams
 * the CUDA filter's output; `onDevice`: on the GPU path, the output is made
 * there. Returns the CUDA filter for more checks. */
template <typename TPixel, unsigned int VDimension>
typename itk::CudaDiscreteGaussianImageFilter<CudaImage<TPixel, VDimension>>::Pointer
ExpectGaussianLikeITK(bool                              gpu,
                      const itk::Size<VDimension> &     size,
                      const Configure<TPixel, VDimension> & configure,
                      const std::string &               what,
                      unsigned int                      pieces = 1,
                      bool                              onDevice = true)
{
  using CudaImageType = CudaImage<TPixel, VDimension>;
  auto cudaInput = MakeSmoothImage<CudaImageType>(size);
  auto reference = itk::DiscreteGaussianImageFilter<ITKImage<TPixel, VDimension>>::New();
  reference->SetInput(ToITKImage(cudaInput.GetPointer()));
  auto filter = itk::CudaDiscreteGaussianImageFilter<CudaImageType>::New();
  filter->SetGPUEnabled(gpu);
  filter->SetInput(cudaInput);
  configure(*reference, *filter);
  reference->Update();
  // Float: ITK's intermediate images are float too; the sums are in double on both sides.
  const double tolerance = std::is_same<TPixel, float>::value ? 1e-6 : 1e-12;
  ExpectUpdateNearITK(filter.GetPointer(), reference.GetPointer(), tolerance, what, pieces, gpu, onDevice);
  return filter;
}

class CudaDiscreteGaussianTest : public ::testing::TestWithParam<bool>
{};
INSTANTIATE_TEST_SUITE_P(Paths, CudaDiscreteGaussianTest, ::testing::Values(true, false), [](const auto & info) {
  return info.param ? std::string("GPU") : std::string("CPUParent");
});

TEST_P(CudaDiscreteGaussianTest, SmoothsLikeITK)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  const bool gpu = GetParam();
  ExpectGaussianLikeITK<float, 3>(gpu, { { 37, 23, 11 } }, [](auto & ref, auto & cuda) {
    ref.SetVariance(4.0);
    cuda.SetVariance(4.0);
  }, "float 3-D, variance 4 in physical units");
  ExpectGaussianLikeITK<float, 3>(gpu, { { 40, 31, 19 } }, [](auto & ref, auto & cuda) {
    ref.SetUseImageSpacing(false);
    cuda.SetUseImageSpacing(false);
    itk::FixedArray<double, 3> variance;
    variance[0] = 1.0;
    variance[1] = 6.25;
    variance[2] = 0.3;
    ref.SetVariance(variance);
    cuda.SetVariance(variance);
    ref.SetMaximumError(0.001);
    cuda.SetMaximumError(0.001);
  }, "float 3-D, anisotropic variances in pixels, maximum error 0.001");
  ExpectGaussianLikeITK<double, 2>(gpu, { { 64, 9 } }, [](auto & ref, auto & cuda) {
    ref.SetVariance(2.5);
    cuda.SetVariance(2.5);
    ref.SetMaximumKernelWidth(9);
    cuda.SetMaximumKernelWidth(9);
  }, "double 2-D, kernels cut at 9 taps");
  ExpectGaussianLikeITK<float, 4>(gpu, { { 9, 8, 7, 6 } }, [](auto & ref, auto & cuda) {
    ref.SetVariance(1.5);
    cuda.SetVariance(1.5);
    ref.SetFilterDimensionality(3);
    cuda.SetFilterDimensionality(3);
  }, "float 4-D, the first three axes filtered");
  ExpectGaussianLikeITK<float, 1>(gpu, { { 300 } }, [](auto & ref, auto & cuda) {
    ref.SetVariance(9.0);
    cuda.SetVariance(9.0);
  }, "float 1-D");
  ExpectGaussianLikeITK<float, 2>(gpu, { { 5, 4 } }, [](auto & ref, auto & cuda) {
    ref.SetVariance(100.0);
    cuda.SetVariance(100.0);
  }, "float 2-D, a radius larger than the image");
  ExpectGaussianLikeITK<float, 3>(gpu, { { 6, 5, 4 } }, [](auto & ref, auto & cuda) {
    ref.SetFilterDimensionality(0);
    cuda.SetFilterDimensionality(0);
  }, "float 3-D, nothing filtered: a copy");
}

TEST_P(CudaDiscreteGaussianTest, TakesITKsConstantBoundaryConditions)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  itk::ConstantBoundaryCondition<ITKImage<float, 3>>  refConstant;
  itk::ConstantBoundaryCondition<CudaImage<float, 3>> constant;
  itk::ConstantBoundaryCondition<ITKImage<float, 3>>  realConstant; // ITK's intermediate images are itk::Images
  itk::ConstantBoundaryCondition<ITKImage<float, 3>>  refRealConstant;
  refConstant.SetConstant(3.5f);
  constant.SetConstant(3.5f);
  refRealConstant.SetConstant(-1.0f);
  realConstant.SetConstant(-1.0f);
  ExpectGaussianLikeITK<float, 3>(GetParam(), { { 21, 17, 13 } }, [&](auto & ref, auto & cuda) {
    ref.SetVariance(3.0);
    cuda.SetVariance(3.0);
    ref.SetInputBoundaryCondition(&refConstant);
    cuda.SetInputBoundaryCondition(&constant);
    ref.SetRealBoundaryCondition(&refRealConstant);
    cuda.SetRealBoundaryCondition(&realConstant);
  }, "constant boundaries (3.5 for the input, -1 for the intermediate images)");
}

/** On the GPU only: through the CPU parent the filter is ITK's own code, and
 * ITK 5.2's PeriodicBoundaryCondition, used by NeighborhoodOperatorImageFilter
 * through OverrideBoundaryCondition(), casts that filter's iterator to
 * another iterator type (UndefinedBehaviorSanitizer's vptr check stops
 * scripts/sanitize.sh there); the GPU variant computes ITK's reference too
 * and runs only where there is a GPU, which the sanitizer build has not. */
TEST_P(CudaDiscreteGaussianTest, TakesITKsPeriodicBoundaryCondition)
{
  if (!GetParam())
  {
    GTEST_SKIP() << "the CPU path is ITK's code, whose periodic condition UBSan reports (see above)";
  }
  ITK_CUDA_SKIP_WITHOUT_GPU();
  itk::PeriodicBoundaryCondition<ITKImage<float, 3>>  refPeriodic;
  itk::PeriodicBoundaryCondition<CudaImage<float, 3>> periodic;
  itk::PeriodicBoundaryCondition<ITKImage<float, 3>>  realPeriodic;
  itk::PeriodicBoundaryCondition<ITKImage<float, 3>>  refRealPeriodic;
  ExpectGaussianLikeITK<float, 3>(GetParam(), { { 21, 17, 13 } }, [&](auto & ref, auto & cuda) {
    ref.SetVariance(3.0);
    cuda.SetVariance(3.0);
    ref.SetInputBoundaryCondition(&refPeriodic);
    cuda.SetInputBoundaryCondition(&periodic);
    ref.SetRealBoundaryCondition(&refRealPeriodic);
    cuda.SetRealBoundaryCondition(&realPeriodic);
  }, "periodic boundaries");
}

/** CudaCommon's mirror condition, which ITK's CPU filter takes as it takes
 * its own: the GPU path against ITK's code with the same condition, on an
 * image longer than the kernel's reach and on one shorter (mirrored again and
 * again). */
TEST_P(CudaDiscreteGaussianTest, TakesCudaCommonsMirrorBoundaryCondition)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  itk::CudaMirrorBoundaryCondition<ITKImage<float, 3>>  refMirror;
  itk::CudaMirrorBoundaryCondition<CudaImage<float, 3>> mirror;
  itk::CudaMirrorBoundaryCondition<ITKImage<float, 3>>  realMirror;
  itk::CudaMirrorBoundaryCondition<ITKImage<float, 3>>  refRealMirror;
  const auto            withMirror = [&](double variance) {
    return [&, variance](auto & ref, auto & cuda) {
      ref.SetVariance(variance);
      cuda.SetVariance(variance);
      ref.SetInputBoundaryCondition(&refMirror);
      cuda.SetInputBoundaryCondition(&mirror);
      ref.SetRealBoundaryCondition(&refRealMirror);
      cuda.SetRealBoundaryCondition(&realMirror);
    };
  };
  ExpectGaussianLikeITK<float, 3>(GetParam(), { { 21, 17, 13 } }, withMirror(3.0), "mirror boundaries");
  ExpectGaussianLikeITK<float, 3>(GetParam(), { { 5, 2, 1 } }, withMirror(9.0), "mirror, axes shorter than the radius");
  ExpectGaussianLikeITK<float, 3>(GetParam(), { { 33, 29, 24 } }, withMirror(2.0), "mirror, five pieces", 5);
}

TEST_P(CudaDiscreteGaussianTest, StreamedPiecesAreTheWholeImage)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  ExpectGaussianLikeITK<float, 3>(GetParam(), { { 33, 29, 24 } }, [](auto & ref, auto & cuda) {
    ref.SetVariance(2.0);
    cuda.SetVariance(2.0);
  }, "five pieces, each from a padded input region", 5);
}

TEST_P(CudaDiscreteGaussianTest, RunsITKsCodeWhereTheGPUPathDoesNotApply)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  // A kernel of more than 255 taps.
  auto wide = ExpectGaussianLikeITK<float, 2>(GetParam(), { { 400, 3 } }, [](auto & ref, auto & cuda) {
    ref.SetUseImageSpacing(false);
    cuda.SetUseImageSpacing(false);
    ref.SetVariance(300.0);
    cuda.SetVariance(300.0);
    ref.SetMaximumError(1e-5);
    cuda.SetMaximumError(1e-5);
    ref.SetMaximumKernelWidth(2000);
    cuda.SetMaximumKernelWidth(2000);
  }, "a kernel wider than 255 taps", 1, false);
  EXPECT_GT(wide->GetPasses().front().Weights.size(), itk::CudaMaximumConvolutionTaps);
  EXPECT_FALSE(wide->GetOutput()->GetCudaDataManager()->IsCPUBufferDirty()) << "made on the host";
  // Another pixel type: ITK's code, ITK's result to the bit.
  using ShortImage = CudaImage<short, 2>;
  auto input = MakeSmoothImage<ShortImage>({ { 30, 20 } });
  auto reference = itk::DiscreteGaussianImageFilter<ITKImage<short, 2>>::New();
  reference->SetInput(ToITKImage(input.GetPointer()));
  reference->SetVariance(2.0);
  reference->Update();
  auto filter = itk::CudaDiscreteGaussianImageFilter<ShortImage>::New();
  filter->SetGPUEnabled(GetParam());
  filter->SetInput(input);
  filter->SetVariance(2.0);
  filter->Update();
  ExpectNearITK(filter->GetOutput(), reference->GetOutput(), 0.0, "short");
}

TEST_P(CudaDiscreteGaussianTest, BadInputFailsAsITKFails)
{
  ITK_CUDA_SKIP_WITHOUT_GPU_IF(GetParam());
  // A zero and a negative variance, and one whose kernel ITK's GaussianOperator
  // computes as NaN (its Bessel terms overflow): whatever ITK's kernel gives, the same.
  for (const double variance : { 0.0, -1.0, 900.0 })
  {
    ExpectGaussianLikeITK<float, 2>(GetParam(), { { 12, 7 } }, [variance](auto & ref, auto & cuda) {
      ref.SetVariance(variance);
      cuda.SetVariance(variance);
    }, "variance " + std::to_string(variance));
  }
  // An empty output region: what ITK's filter does with it, on an itk::Image.
  const auto emptyUpdate = [](auto filter, auto image) {
    filter->SetInput(image);
    filter->SetVariance(1.0);
    filter->UpdateOutputInformation();
    filter->GetOutput()->SetRequestedRegion(itk::ImageRegion<2>({ { 0, 0 } }, { { 0, 0 } }));
    return ExceptionMessage([&] { filter->GetOutput()->Update(); });
  };
  auto empty = itk::CudaDiscreteGaussianImageFilter<CudaImage<float, 2>>::New();
  empty->SetGPUEnabled(GetParam());
  auto emptyInput = MakeSmoothImage<CudaImage<float, 2>>({ { 8, 8 } });
  EXPECT_EQ(emptyUpdate(empty, emptyInput).empty(),
            emptyUpdate(itk::DiscreteGaussianImageFilter<ITKImage<float, 2>>::New(), ToITKImage(emptyInput.GetPointer()))
              .empty());
}
} // namespace
