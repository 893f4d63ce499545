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
#include "itkCudaBoxFilter.hcu"
#include "itkCudaTestUtilities.h"

#include "gtest/gtest.h"

#include <cmath>
#include <memory>
#include <random>
#include <sstream>
#include <vector>

// CudaBoxFilterAsync, the one-pass box that CudaMeanImageFilter and
// CudaBoxMeanImageFilter run on 3-D images, against sums of the same box on
// the host: every boundary condition, an output region inside a larger input
// buffer (a streamed piece), radii larger than the image (conditions applied
// more than once), sizes that leave partial tiles and several runs of planes
// along z, float and double; and what it does not take.
namespace
{
using itk::CudaBoundary;
using itk::CudaBoxGeometry;

/** Position i of an axis of `length` as the condition reads it; -1: none. */
long long
HostPosition(long long i, long long length, CudaBoundary boundary)
{
  if (i >= 0 && i < length)
  {
    return i;
  }
  switch (boundary)
  {
    case CudaBoundary::ZeroFluxNeumann:
      return i < 0 ? 0 : length - 1;
    case CudaBoundary::Periodic:
      return ((i % length) + length) % length;
    case CudaBoundary::Mirror:
      return itk::CudaMirrorPosition(i, length);
    default:
      return -1;
  }
}

/** The box filter of CudaBoxFilterAsync's documentation, summed on the host. */
template <typename TPixel>
std::vector<double>
BoxOnHost(const std::vector<TPixel> & in,
          const CudaBoxGeometry &     g,
          double                      scale,
          CudaBoundary                boundary,
          double                      constant)
{
  std::vector<double> out;
  const auto          size = [&g](unsigned int d) { return static_cast<long long>(g.InputSize[d]); };
  for (size_t z = 0; z < g.OutputSize[2]; ++z)
  {
    for (size_t y = 0; y < g.OutputSize[1]; ++y)
    {
      for (size_t x = 0; x < g.OutputSize[0]; ++x)
      {
        const long long center[3] = { static_cast<long long>(x + g.Offset[0]),
                                      static_cast<long long>(y + g.Offset[1]),
                                      static_cast<long long>(z + g.Offset[2]) };
        const long long r[3] = { g.Radius[0], g.Radius[1], g.Radius[2] };
        double          sum = 0.0;
        double          inside = 0.0;
        for (long long dz = -r[2]; dz <= r[2]; ++dz)
        {
          for (long long dy = -r[1]; dy <= r[1]; ++dy)
          {
            for (long long dx = -r[0]; dx <= r[0]; ++dx)
            {
              const long long px = HostPosition(center[0] + dx, size(0), boundary);
              const long long py = HostPosition(center[1] + dy, size(1), boundary);
              const long long pz = HostPosition(center[2] + dz, size(2), boundary);
              if (px < 0 || py < 0 || pz < 0)
              {
                sum += boundary == CudaBoundary::Constant ? constant : 0.0;
                continue;
              }
              sum += static_cast<double>(in[static_cast<size_t>((pz * size(1) + py) * size(0) + px)]);
              inside += 1.0;
            }
          }
        }
        out.push_back(boundary == CudaBoundary::Crop ? sum / inside : sum * scale);
      }
    }
  }
  return out;
}

/** Device memory freed on scope exit. */
template <typename TPixel>
std::unique_ptr<TPixel, cudaError_t (*)(void *)>
DeviceCopy(const std::vector<TPixel> & values, size_t count)
{
  TPixel * memory = nullptr;
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&memory), count * sizeof(TPixel)));
  std::unique_ptr<TPixel, cudaError_t (*)(void *)> owned(memory, cudaFree);
  if (!values.empty())
  {
    CUDA_CHECK(cudaMemcpy(memory, values.data(), values.size() * sizeof(TPixel), cudaMemcpyHostToDevice));
  }
  return owned;
}

const char *
Name(CudaBoundary boundary)
{
  switch (boundary)
  {
    case CudaBoundary::ZeroFluxNeumann:
      return "ZeroFluxNeumann";
    case CudaBoundary::Constant:
      return "Constant";
    case CudaBoundary::Periodic:
      return "Periodic";
    case CudaBoundary::Crop:
      return "Crop";
    default:
      return "Mirror";
  }
}

/** The kernel's output against the host's sums for every boundary condition. */
template <typename TPixel>
void
ExpectBoxLikeHost(const CudaBoxGeometry & g, const std::string & what)
{
  ASSERT_TRUE(itk::CudaBoxFilterTakes(g)) << what;
  const size_t inputCount = g.InputSize[0] * g.InputSize[1] * g.InputSize[2];
  const size_t outputCount = g.OutputSize[0] * g.OutputSize[1] * g.OutputSize[2];
  std::vector<TPixel>                    input(inputCount);
  std::mt19937                           random(7);
  std::uniform_real_distribution<double> values(-1.0, 1.0);
  for (TPixel & value : input)
  {
    value = static_cast<TPixel>(values(random));
  }
  const double scale = 1.0 / ((2.0 * g.Radius[0] + 1) * (2.0 * g.Radius[1] + 1) * (2.0 * g.Radius[2] + 1));
  const double constant = 0.75;
  const double tolerance = std::is_same<TPixel, float>::value ? 1e-6 : 1e-13;
  auto         in = DeviceCopy(input, inputCount);
  auto         out = DeviceCopy(std::vector<TPixel>{}, outputCount);
  for (CudaBoundary boundary : { CudaBoundary::ZeroFluxNeumann,
                                 CudaBoundary::Constant,
                                 CudaBoundary::Periodic,
                                 CudaBoundary::Crop,
                                 CudaBoundary::Mirror })
  {
    CUDA_CHECK(cudaMemset(out.get(), 0xff, outputCount * sizeof(TPixel))); // NaN: a pixel left unwritten fails
    itk::CudaBoxFilterAsync(out.get(), in.get(), g, scale, boundary, constant, nullptr);
    std::vector<TPixel> result(outputCount);
    CUDA_CHECK(cudaMemcpy(result.data(), out.get(), outputCount * sizeof(TPixel), cudaMemcpyDeviceToHost));
    const std::vector<double> expected = BoxOnHost(input, g, scale, boundary, constant);
    size_t                    wrong = 0;
    std::ostringstream        first;
    for (size_t i = 0; i < outputCount; ++i)
    {
      if (!(std::abs(static_cast<double>(result[i]) - expected[i]) <= tolerance))
      {
        if (wrong++ == 0)
        {
          first << "pixel " << i << ": " << result[i] << " against " << expected[i];
        }
      }
    }
    EXPECT_EQ(wrong, 0u) << what << ", " << Name(boundary) << ": " << first.str();
  }
}

TEST(CudaBoxFilter, SumsTheBoxLikeTheHostForEveryBoundaryCondition)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  // One radius of 1 to 3 along every axis runs the unrolled kernels, any
  // other the loops over the radii: both on each kind of case.
  // The whole buffer, partial tiles along x and y.
  ExpectBoxLikeHost<float>({ { 37, 21, 13 }, { 37, 21, 13 }, { 0, 0, 0 }, { 2, 2, 2 } }, "37 x 21 x 13, radius 2");
  // A piece of a larger buffer (the input padded around it, as ITK streams).
  ExpectBoxLikeHost<float>({ { 45, 30, 20 }, { 33, 17, 9 }, { 5, 6, 4 }, { 2, 3, 1 } }, "a piece, radii 2, 3, 1");
  ExpectBoxLikeHost<float>({ { 45, 30, 20 }, { 33, 17, 9 }, { 5, 6, 4 }, { 3, 3, 3 } }, "a piece, radius 3");
  // Radii larger than the image: the conditions apply more than once.
  ExpectBoxLikeHost<double>({ { 5, 4, 3 }, { 5, 4, 3 }, { 0, 0, 0 }, { 7, 6, 2 } }, "5 x 4 x 3, radii 7, 6, 2");
  ExpectBoxLikeHost<double>({ { 5, 4, 3 }, { 5, 4, 3 }, { 0, 0, 0 }, { 3, 3, 3 } }, "5 x 4 x 3, radius 3");
  ExpectBoxLikeHost<float>({ { 70, 40, 300 }, { 70, 40, 300 }, { 0, 0, 0 }, { 1, 1, 1 } }, "70 x 40 x 300, radius 1");
  // A radius of 0 on two axes, several runs of planes along z.
  ExpectBoxLikeHost<float>(
    { { 70, 40, 300 }, { 70, 40, 300 }, { 0, 0, 0 }, { 0, 1, 0 } }, "70 x 40 x 300, radii 0, 1, 0");
  ExpectBoxLikeHost<double>(
    { { 66, 18, 150 }, { 66, 18, 150 }, { 0, 0, 0 }, { 1, 1, 3 } }, "double 66 x 18 x 150, radii 1, 1, 3");
  // Runs whose plane counts are not multiples of the ring's length (the
  // unrolled kernels step through their ring of registers 2 r + 1 planes at
  // a time), and a last run shorter than the others.
  ExpectBoxLikeHost<float>({ { 50, 20, 97 }, { 50, 20, 97 }, { 0, 0, 0 }, { 2, 2, 2 } }, "50 x 20 x 97, radius 2");
  ExpectBoxLikeHost<double>(
    { { 40, 33, 131 }, { 40, 33, 131 }, { 0, 0, 0 }, { 3, 3, 3 } }, "double 40 x 33 x 131, radius 3");
}

TEST(CudaBoxFilter, RefusesABoxItsTilesDoNotHold)
{
  ITK_CUDA_SKIP_WITHOUT_GPU();
  const CudaBoxGeometry g{ { 64, 64, 64 }, { 64, 64, 64 }, { 0, 0, 0 }, { 40, 40, 40 } };
  EXPECT_FALSE(itk::CudaBoxFilterTakes(g));
  auto        in = DeviceCopy(std::vector<float>{}, 64 * 64 * 64);
  auto        out = DeviceCopy(std::vector<float>{}, 64 * 64 * 64);
  std::string message;
  try
  {
    itk::CudaBoxFilterAsync(out.get(), in.get(), g, 1.0, CudaBoundary::ZeroFluxNeumann, 0.0, nullptr);
  }
  catch (const itk::ExceptionObject & error)
  {
    message = error.GetDescription();
  }
  EXPECT_NE(message.find("CudaBoxFilterTakes"), std::string::npos) << message;
  EXPECT_NE(message.find("cudaErrorInvalidValue"), std::string::npos) << message;
}
} // namespace
