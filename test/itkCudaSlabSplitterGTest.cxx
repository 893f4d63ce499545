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
#include "itkCudaDiscreteGaussianImageFilter.h"
#include "itkCudaGradientImageFilter.h"
#include "itkCudaGradientMagnitudeImageFilter.h"
#include "itkCudaMeanImageFilter.h"
#include "itkCudaMirrorBoundaryCondition.h"
#include "itkCudaNeighborhoodTestUtilities.h"
#include "itkCudaSlabSplitter.h"
#include "itkConstantBoundaryCondition.h"
#include "itkDefaultConvertPixelTraits.h"
#include "itkImageRegionConstIteratorWithIndex.h"
#include "itkPeriodicBoundaryCondition.h"

#include "gtest/gtest.h"

#include <limits>
#include <sstream>
#include <string>
#include <vector>

// The neighborhood filters' split across devices (CudaSlabSplitter): slabs of
// the last axis, each read with its halo, give the image that one device
// gives, to the bit, for the Gaussian's passes, the mean's one box pass and
// three passes, and the derivative stencils; every boundary condition (the
// periodic one not cut), streamed pieces, slabs thinner than the halo, 2-D
// images. One GPU runs a device's second slab through the same scratch and
// copies as another device's (a device may be named twice); the two-GPU case
// runs where there are two. The partition and the arguments are checked
// without a GPU.
namespace
{
using itk::CudaSlabSplitter;
using itk::CudaTest::ExceptionMessage;
using itk::CudaTest::MakeSmoothImage;
using Slabs = std::vector<CudaSlabSplitter::Slab>;

template <typename TPixel, unsigned int VDimension>
using CudaImage = itk::CudaImage<TPixel, VDimension>;
using Image3 = CudaImage<float, 3>;
using Image2 = CudaImage<float, 2>;

std::string
Describe(const Slabs & slabs)
{
  std::ostringstream text;
  for (const auto & slab : slabs)
  {
    text << " {" << slab.Device << ", " << slab.First << ", " << slab.Count << "}";
  }
  return text.str();
}

/** Every component of `split` equal to `whole`'s, over the same region. */
template <typename TImage>
void
ExpectSameImage(const TImage * split, const TImage * whole, const std::string & what)
{
  ASSERT_EQ(split->GetBufferedRegion(), whole->GetBufferedRegion()) << what;
  const unsigned int components = itk::NumericTraits<typename TImage::PixelType>::GetLength();
  itk::ImageRegionConstIteratorWithIndex<TImage> it(split, split->GetBufferedRegion());
  itk::ImageRegionConstIterator<TImage>          ref(whole, whole->GetBufferedRegion());
  size_t                                         differing = 0;
  std::string                                    first;
  for (; !it.IsAtEnd(); ++it, ++ref)
  {
    const auto value = it.Get();
    const auto expected = ref.Get();
    for (unsigned int i = 0; i < components; ++i)
    {
      const double a = itk::DefaultConvertPixelTraits<typename TImage::PixelType>::GetNthComponent(i, value);
      const double b = itk::DefaultConvertPixelTraits<typename TImage::PixelType>::GetNthComponent(i, expected);
      if (!(a == b || (std::isnan(a) && std::isnan(b))) && differing++ == 0)
      {
        std::ostringstream at;
        at << " first at " << it.GetIndex() << "[" << i << "]: " << a << " against " << b;
        first = at.str();
      }
    }
  }
  EXPECT_EQ(differing, 0u) << what << first;
}

/** The filter set up by `setup` on one image, once whole and once cut into
 * the slabs of `devices` and `weights` (empty: across all devices; its output
 * streamed in `pieces` when more than one): the same pixels. Returns the
 * split filter. */
template <typename TFilter, typename TSetup>
typename TFilter::Pointer
ExpectSlabsGiveTheWholeImage(const typename TFilter::InputImageType::SizeType & size,
                             const std::vector<int> &                           devices,
                             const std::vector<double> &                        weights,
                             TSetup &&                                          setup,
                             const std::string &                                what,
                             unsigned int                                       pieces = 1)
{
  using OutputImageType = typename TFilter::OutputImageType;
  auto input = MakeSmoothImage<typename TFilter::InputImageType>(size);
  auto whole = TFilter::New();
  whole->SetInput(input);
  setup(*whole);
  whole->Update();
  auto split = TFilter::New();
  split->SetInput(input);
  setup(*split);
  if (devices.empty())
  {
    split->SplitAcrossAllDevicesOn();
  }
  else
  {
    split->SetSplitDevices(devices, weights);
  }
  typename OutputImageType::Pointer output = split->GetOutput();
  if (pieces > 1)
  {
    auto streamer = itk::StreamingImageFilter<OutputImageType, OutputImageType>::New();
    streamer->SetInput(split->GetOutput());
    streamer->SetNumberOfStreamDivisions(pieces);
    streamer->Update();
    output = streamer->GetOutput();
  }
  else
  {
    split->Update();
    EXPECT_TRUE(split->GetOutput()->GetCudaDataManager()->IsCPUBufferDirty()) << what << ": made on the device";
  }
  ExpectSameImage(output.GetPointer(), whole->GetOutput(), what);
  return split;
}

template <typename TFilter>
void
Variance(TFilter & filter, double variance)
{
  filter.SetVariance(variance);
}

using Gaussian3 = itk::CudaDiscreteGaussianImageFilter<Image3>;
using Mean3 = itk::CudaMeanImageFilter<Image3>;
using Mean2 = itk::CudaMeanImageFilter<Image2>;
using GradientMagnitude3 = itk::CudaGradientMagnitudeImageFilter<Image3>;
using Gradient3 = itk::CudaGradientImageFilter<Image3, float, float>;

const itk::Size<3> Size3{ { 37, 29, 23 } };
} // namespace

TEST(CudaSlabSplitter, PartitionFollowsTheWeightsAndTakesADeviceTwice)
{
  const Slabs slabs = CudaSlabSplitter::Partition(23, { 0, 0, 0 }, { 1.0, 2.0, 1.0 });
  ASSERT_EQ(slabs.size(), 3u) << Describe(slabs);
  EXPECT_EQ(slabs[0].First, 0u);
  EXPECT_EQ(slabs[0].Count, 6u); // 23 / 4 = 5.75
  EXPECT_EQ(slabs[1].First, 6u);
  EXPECT_EQ(slabs[1].Count, 11u); // up to 17.25
  EXPECT_EQ(slabs[2].First, 17u);
  EXPECT_EQ(slabs[2].Count, 6u);

  const Slabs zero = CudaSlabSplitter::Partition(6, { 0, 1, 2 }, { 1.0, 0.0, 1.0 });
  ASSERT_EQ(zero.size(), 2u) << Describe(zero);
  EXPECT_EQ(zero[0].Device, 0);
  EXPECT_EQ(zero[0].Count, 3u);
  EXPECT_EQ(zero[1].Device, 2);
  EXPECT_EQ(zero[1].First, 3u);
  EXPECT_EQ(zero[1].Count, 3u);

  // More devices than planes: every plane once, no empty slab.
  const Slabs thin = CudaSlabSplitter::Partition(2, { 0, 1, 2 });
  ASSERT_EQ(thin.size(), 2u) << Describe(thin);
  EXPECT_EQ(thin[0].First + thin[0].Count, thin[1].First);
  EXPECT_EQ(thin[1].First + thin[1].Count, 2u);

  const Slabs home = CudaSlabSplitter::Partition(9, {});
  ASSERT_EQ(home.size(), 1u);
  EXPECT_EQ(home[0].Device, -1);
  EXPECT_EQ(home[0].Count, 9u);
  EXPECT_TRUE(CudaSlabSplitter::Partition(0, { 0, 1 }).empty());
  // A trailing zero weight: the last share still ends at the last plane.
  const Slabs trailing = CudaSlabSplitter::Partition(10, { 0, 1, 2 }, { 1.0, 1.0, 0.0 });
  ASSERT_EQ(trailing.size(), 2u) << Describe(trailing);
  EXPECT_EQ(trailing[1].First + trailing[1].Count, 10u);
}

TEST(CudaSlabSplitter, RejectsBadDevicesAndWeights)
{
  CudaSlabSplitter splitter;
  EXPECT_NE(ExceptionMessage([&] { splitter.SetDevices({ 0, -1 }); }).find("negative index -1"), std::string::npos);
  EXPECT_NE(ExceptionMessage([&] { splitter.SetDevices({ 0, 1 }, { 1.0 }); }).find("one weight per device (2), got 1"),
            std::string::npos);
  EXPECT_NE(ExceptionMessage([&] { splitter.SetDevices({ 0, 1 }, { 1.0, -2.0 }); }).find("got -2"), std::string::npos);
  EXPECT_NE(ExceptionMessage([&] {
              splitter.SetDevices({ 0, 1 }, { 1.0, std::numeric_limits<double>::quiet_NaN() });
            }).find("finite weights"),
            std::string::npos);
  EXPECT_NE(ExceptionMessage([&] { splitter.SetDevices({ 0, 1 }, { 0.0, 0.0 }); }).find("at least one weight > 0"),
            std::string::npos);
  EXPECT_TRUE(splitter.GetDevices().empty()) << "a rejected choice leaves the last one";
  EXPECT_FALSE(splitter.IsSplitting());
  splitter.SetDevices({ 1, 1 }, { 1.0, 3.0 });
  EXPECT_EQ(splitter.GetDevices(), (std::vector<int>{ 1, 1 }));
  EXPECT_TRUE(splitter.IsSplitting());
}

TEST(CudaSlabSplitter, FiltersTakeTheSplitAndReportIt)
{
  auto filter = Gaussian3::New();
  EXPECT_TRUE(filter->GetSplitDevices().empty());
  const auto before = filter->GetMTime();
  filter->SetSplitDevices({ 0, 0 }, { 2.0, 1.0 });
  EXPECT_GT(filter->GetMTime(), before);
  EXPECT_EQ(filter->GetSplitDevices(), (std::vector<int>{ 0, 0 }));
  EXPECT_EQ(filter->GetSplitWeights(), (std::vector<double>{ 2.0, 1.0 }));
  const auto set = filter->GetMTime();
  filter->SetSplitDevices({ 0, 0 }, { 2.0, 1.0 });
  EXPECT_EQ(filter->GetMTime(), set) << "the same choice again does not modify the filter";
  EXPECT_NE(ExceptionMessage([&] { filter->SetSplitDevices({ -3 }); }).find("negative index -3"), std::string::npos);
  filter->SplitAcrossAllDevicesOn();
  EXPECT_TRUE(filter->GetSplitAcrossAllDevices());
  EXPECT_TRUE(filter->GetSplitDevices().empty());
  std::ostringstream printed;
  filter->Print(printed);
  EXPECT_NE(printed.str().find("CudaSlabSplitter: all devices"), std::string::npos) << printed.str();

  auto stencil = Gradient3::New();
  stencil->SetSplitDevices({ 0, 0, 0 });
  EXPECT_EQ(stencil->GetSplitDevices().size(), 3u);
  stencil->SplitAcrossAllDevicesOn();
  stencil->SplitAcrossAllDevicesOff();
  EXPECT_FALSE(stencil->GetSplitAcrossAllDevices());
  EXPECT_TRUE(stencil->GetSplitDevices().empty());
}

TEST(CudaSlabSplitter, TheCPUParentIgnoresTheSplit)
{
  // GPUEnabled off (and any machine without a GPU): ITK's code, whatever the
  // split; nothing is cut.
  auto input = MakeSmoothImage<Image3>(Size3);
  auto filter = Gaussian3::New();
  filter->SetGPUEnabled(false);
  filter->SetInput(input);
  filter->SetVariance(3.0);
  filter->SetSplitDevices({ 0, 0, 0 });
  filter->Update();
  auto reference = itk::DiscreteGaussianImageFilter<itk::Image<float, 3>>::New();
  reference->SetInput(itk::CudaTest::ToITKImage(input.GetPointer()));
  reference->SetVariance(3.0);
  reference->Update();
  itk::CudaTest::ExpectNearITK(filter->GetOutput(), reference->GetOutput(), 0.0, "the CPU parent with a split set");
  EXPECT_TRUE(filter->GetSlabSplitter().GetLastSlabs().empty());
}

TEST(CudaSlabSplitter, GaussianSlabsAreTheWholeImage)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto filter = ExpectSlabsGiveTheWholeImage<Gaussian3>(
    Size3, { 0, 0, 0 }, { 1.0, 2.0, 1.0 }, [](auto & f) { Variance(f, 3.0); }, "Gaussian, three slabs");
  const Slabs & slabs = filter->GetSlabSplitter().GetLastSlabs();
  ASSERT_EQ(slabs.size(), 3u) << Describe(slabs);
  EXPECT_EQ(slabs[1].First, 6u);
  EXPECT_EQ(slabs[2].First, 17u);
  // Slabs of 2 and 3 planes, thinner than the kernel's reach (radius 8 at this variance).
  filter = ExpectSlabsGiveTheWholeImage<Gaussian3>(Size3, std::vector<int>(9, 0), {}, [](auto & f) { Variance(f, 9.0); },
                                                    "Gaussian, nine thin slabs");
  EXPECT_EQ(filter->GetSlabSplitter().GetLastSlabs().size(), 9u);
  ExpectSlabsGiveTheWholeImage<Gaussian3>(
    Size3, { 0, 0 }, {}, [](auto & f) { Variance(f, 2.0); }, "Gaussian, two slabs of five streamed pieces", 5);
}

TEST(CudaSlabSplitter, GaussianSlabsTakeEveryBoundaryCondition)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  itk::ConstantBoundaryCondition<Image3>              constant;
  itk::ConstantBoundaryCondition<itk::Image<float, 3>> realConstant;
  constant.SetConstant(3.5f);
  realConstant.SetConstant(-1.0f);
  ExpectSlabsGiveTheWholeImage<Gaussian3>(Size3, { 0, 0, 0 }, {}, [&](auto & f) {
    Variance(f, 3.0);
    f.SetInputBoundaryCondition(&constant);
    f.SetRealBoundaryCondition(&realConstant);
  }, "Gaussian, constant conditions");
  itk::CudaMirrorBoundaryCondition<Image3>               mirror;
  itk::CudaMirrorBoundaryCondition<itk::Image<float, 3>> realMirror;
  ExpectSlabsGiveTheWholeImage<Gaussian3>(Size3, { 0, 0, 0 }, {}, [&](auto & f) {
    Variance(f, 3.0);
    f.SetInputBoundaryCondition(&mirror);
    f.SetRealBoundaryCondition(&realMirror);
  }, "Gaussian, mirror conditions");
  // Periodic along the last axis reads the other end of the image: not cut.
  itk::PeriodicBoundaryCondition<Image3>               periodic;
  itk::PeriodicBoundaryCondition<itk::Image<float, 3>> realPeriodic;
  auto filter = ExpectSlabsGiveTheWholeImage<Gaussian3>(Size3, { 0, 0, 0 }, {}, [&](auto & f) {
    Variance(f, 3.0);
    f.SetInputBoundaryCondition(&periodic);
    f.SetRealBoundaryCondition(&realPeriodic);
  }, "Gaussian, periodic conditions");
  EXPECT_EQ(filter->GetSlabSplitter().GetLastSlabs().size(), 1u);
}

TEST(CudaSlabSplitter, MeanSlabsAreTheWholeImage)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const auto radius = [](unsigned int r) { return [r](auto & f) { f.SetRadius(r); }; };
  auto box = ExpectSlabsGiveTheWholeImage<Mean3>(Size3, { 0, 0, 0 }, { 1.0, 1.0, 2.0 }, radius(2),
                                                 "mean radius 2 (one box pass), three slabs");
  EXPECT_EQ(box->GetSlabSplitter().GetLastSlabs().size(), 3u);
  ExpectSlabsGiveTheWholeImage<Mean3>(Size3, std::vector<int>(11, 0), {}, radius(3), "one box pass, eleven thin slabs");
  ExpectSlabsGiveTheWholeImage<Mean3>(Size3, { 0, 0 }, {}, radius(5), "mean radius 5 (three passes), two slabs");
  ExpectSlabsGiveTheWholeImage<Mean3>(Size3, { 0, 0, 0 }, {}, radius(2), "one box pass, three slabs of 4 pieces", 4);
  ExpectSlabsGiveTheWholeImage<Mean2>(itk::Size<2>{ { 45, 31 } }, { 0, 0, 0 }, {}, radius(3),
                                      "2-D mean (rows are the planes)");
}

TEST(CudaSlabSplitter, StencilSlabsAreTheWholeImage)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const auto nothing = [](auto &) {};
  auto magnitude =
    ExpectSlabsGiveTheWholeImage<GradientMagnitude3>(Size3, { 0, 0, 0, 0 }, {}, nothing, "gradient magnitude");
  EXPECT_EQ(magnitude->GetSlabSplitter().GetLastSlabs().size(), 4u);
  ExpectSlabsGiveTheWholeImage<Gradient3>(Size3, std::vector<int>(23, 0), {}, nothing,
                                          "gradient (vectors), one plane a slab");
  ExpectSlabsGiveTheWholeImage<Gradient3>(Size3, { 0, 0 }, {}, nothing, "gradient, two slabs of 3 pieces", 3);
  auto periodic = ExpectSlabsGiveTheWholeImage<Gradient3>(Size3, { 0, 0 }, {}, [](auto & f) {
    f.OverrideBoundaryCondition(new itk::PeriodicBoundaryCondition<Image3>);
  }, "gradient, periodic condition");
  EXPECT_EQ(periodic->GetSlabSplitter().GetLastSlabs().size(), 1u);
}

TEST(CudaSlabSplitter, AnInvalidDeviceFailsAndTheFilterRunsAgain)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  auto input = MakeSmoothImage<Image3>(Size3);
  auto filter = GradientMagnitude3::New();
  filter->SetInput(input);
  filter->SetSplitDevices({ 0, 4096 });
  EXPECT_NE(ExceptionMessage([&] { filter->Update(); }).find("invalid CUDA device 4096"), std::string::npos);
  filter->SetSplitDevices({});
  filter->Update();
  auto whole = GradientMagnitude3::New();
  whole->SetInput(input);
  whole->Update();
  ExpectSameImage(filter->GetOutput(), whole->GetOutput(), "after the failed split");
}

TEST(CudaSlabSplitter, SlabsOnTwoDevicesAreTheWholeImage)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  int devices = 0;
  ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
  if (devices < 2)
  {
    GTEST_SKIP() << "needs two CUDA devices, found " << devices;
  }
  auto gaussian = ExpectSlabsGiveTheWholeImage<Gaussian3>(
    Size3, { 0, 1 }, { 1.0, 2.0 }, [](auto & f) { Variance(f, 3.0); }, "Gaussian on devices 0 and 1");
  const Slabs & slabs = gaussian->GetSlabSplitter().GetLastSlabs();
  ASSERT_EQ(slabs.size(), 2u) << Describe(slabs);
  EXPECT_EQ(slabs[1].Device, 1);
  ExpectSlabsGiveTheWholeImage<Mean3>(Size3, { 1, 0 }, {}, [](auto & f) { f.SetRadius(2); }, "box mean, device 1 first");
  ExpectSlabsGiveTheWholeImage<Gradient3>(Size3, { 0, 1, 0, 1 }, {}, [](auto &) {}, "gradient, four slabs on two devices");
  auto all = ExpectSlabsGiveTheWholeImage<GradientMagnitude3>(Size3, {}, {}, [](auto &) {},
                                                              "gradient magnitude across all devices");
  EXPECT_EQ(all->GetSlabSplitter().GetLastSlabs().size(), static_cast<size_t>(std::min(devices, 23)));
}
