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
#include "itkConstNeighborhoodIterator.h"
#include "itkCudaMirrorBoundaryCondition.h"
#include "itkGradientImageFilter.h"
#include "itkImage.h"
#include "itkImageRegionConstIteratorWithIndex.h"
#include "itkImageRegionIteratorWithIndex.h"
#include "itkNeighborhoodIterator.h"

#include "gtest/gtest.h"

// CudaMirrorBoundaryCondition on the host (no GPU needed): the mirrored
// positions, the pixels read through ITK's neighborhood iterators (with ITK's
// default condition overridden, and as the iterator's own type) and through a
// plain neighborhood of pixel pointers, and ITK's GradientImageFilter with it
// against central differences of mirrored pixels. The GPU kernels' mirror is
// compared with ITK's filters taking this class in the Gaussian and derivative
// tests.
namespace
{
using Image2 = itk::Image<float, 2>;
using Mirror2 = itk::CudaMirrorBoundaryCondition<Image2>;

/** A 2-D image whose pixel (x, y) is 10 * y + x, its region starting at
 * `start`. */
Image2::Pointer
MakeImage(const Image2::SizeType & size, const Image2::IndexType & start = { { 0, 0 } })
{
  auto image = Image2::New();
  image->SetRegions(Image2::RegionType(start, size));
  image->Allocate();
  for (itk::ImageRegionIteratorWithIndex<Image2> it(image, image->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    it.Set(static_cast<float>(10 * (it.GetIndex()[1] - start[1]) + (it.GetIndex()[0] - start[0])));
  }
  return image;
}

TEST(CudaMirrorBoundaryCondition, MirrorsAboutTheEndPixels)
{
  // d c b | a b c d | c b a, and on, with a period of 2 (n - 1).
  const long expected4[] = { 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0, 1, 2 }; // positions -4 .. 8
  for (long i = -4; i <= 8; ++i)
  {
    EXPECT_EQ(Mirror2::Mirror(i, 4), expected4[i + 4]) << "position " << i << " of 4";
  }
  for (long i = -3; i <= 3; ++i)
  {
    EXPECT_EQ(Mirror2::Mirror(i, 1), 0) << "an axis of one pixel";
    EXPECT_EQ(Mirror2::Mirror(i, 2), i % 2 == 0 ? 0 : 1) << "position " << i << " of 2";
  }
  const Image2::RegionType region({ { -2, 5 } }, { { 3, 4 } });
  const Image2::IndexType  mirrored = Mirror2::MirroredIndex({ { -4, 9 } }, region);
  EXPECT_EQ(mirrored[0], 0) << "x = -4 lies two before the region's -2: mirrored to 0";
  EXPECT_EQ(mirrored[1], 7) << "y = 9 lies one past the region's last, 8: mirrored to 7";
}

TEST(CudaMirrorBoundaryCondition, GetPixelReadsTheMirroredPixel)
{
  const auto image = MakeImage({ { 4, 3 } }, { { 1, -1 } });
  Mirror2    mirror;
  EXPECT_STREQ(mirror.GetNameOfClass(), "CudaMirrorBoundaryCondition");
  EXPECT_EQ(mirror.GetPixel({ { 0, -1 } }, image), 1.0f);   // x one before: x + 1
  EXPECT_EQ(mirror.GetPixel({ { 5, 1 } }, image), 22.0f);   // x one past 4: x = 3 (2 from the start), y 2
  EXPECT_EQ(mirror.GetPixel({ { 2, -3 } }, image), 21.0f);  // y two before: y = 1 (2 from the start)
  EXPECT_EQ(mirror.GetPixel({ { 2, 0 } }, image), 11.0f);   // inside: the pixel
}

/** Every pixel of every neighborhood of radius `radius` read through
 * `TIterator` with the mirror condition equals GetPixel()'s. */
template <typename TIterator>
void
ExpectIteratorReadsMirroredPixels(const Image2::SizeType & size, unsigned int radius)
{
  const auto image = MakeImage(size);
  Mirror2    mirror;
  TIterator  it(Image2::SizeType{ { radius, radius } }, image, image->GetBufferedRegion());
  it.OverrideBoundaryCondition(&mirror);
  size_t checked = 0;
  for (it.GoToBegin(); !it.IsAtEnd(); ++it)
  {
    for (unsigned int n = 0; n < it.Size(); ++n)
    {
      const Image2::IndexType index = it.GetIndex(n);
      ASSERT_EQ(it.GetPixel(n), mirror.GetPixel(index, image)) << "neighbour " << index << " of " << it.GetIndex();
      ++checked;
    }
  }
  EXPECT_EQ(checked, size[0] * size[1] * (2 * radius + 1) * (2 * radius + 1));
}

TEST(CudaMirrorBoundaryCondition, ITKsIteratorsReadTheMirroredPixels)
{
  // ITK's default iterator with the condition overridden: an image wider
  // than the radius, and one narrower (mirrored again and again).
  ExpectIteratorReadsMirroredPixels<itk::ConstNeighborhoodIterator<Image2>>({ { 9, 7 } }, 2);
  ExpectIteratorReadsMirroredPixels<itk::ConstNeighborhoodIterator<Image2>>({ { 2, 3 } }, 4);
  ExpectIteratorReadsMirroredPixels<itk::NeighborhoodIterator<Image2>>({ { 1, 5 } }, 3);
  // The condition as the iterator's own type.
  ExpectIteratorReadsMirroredPixels<itk::ConstNeighborhoodIterator<Image2, Mirror2>>({ { 3, 6 } }, 4);
}

TEST(CudaMirrorBoundaryCondition, APlainNeighborhoodReadsItsMirroredPointer)
{
  // Not an iterator: the pixel as far inside the nearest pixel as the one
  // asked for lies outside.
  float                         line[5] = { 0.0f, 1.0f, 2.0f, 3.0f, 4.0f };
  itk::Neighborhood<float *, 1> neighborhood;
  neighborhood.SetRadius(itk::Size<1>{ { 2 } });
  for (unsigned int i = 0; i < neighborhood.Size(); ++i)
  {
    neighborhood[i] = line + i; // positions -2 .. 2 of a line whose pixels -2 and -1 lie outside
  }
  itk::CudaMirrorBoundaryCondition<itk::Image<float, 1>> mirror;
  // Position 0 (pixel -2) is 2 before the nearest inside (position 2): reads position 4.
  EXPECT_EQ(mirror(itk::Offset<1>{ { 0 } }, itk::Offset<1>{ { 2 } }, &neighborhood), 4.0f);
  EXPECT_EQ(mirror(itk::Offset<1>{ { 1 } }, itk::Offset<1>{ { 1 } }, &neighborhood), 3.0f);
  const itk::Image<float, 1>::NeighborhoodAccessorFunctorType accessor;
  EXPECT_EQ(mirror(itk::Offset<1>{ { 1 } }, itk::Offset<1>{ { 1 } }, &neighborhood, accessor), 3.0f);
}

TEST(CudaMirrorBoundaryCondition, ITKsGradientFilterTakesIt)
{
  const auto image = MakeImage({ { 6, 1 } });
  auto       gradient = itk::GradientImageFilter<Image2, float, float>::New();
  gradient->SetInput(image);
  gradient->OverrideBoundaryCondition(new Mirror2()); // the filter owns it
  gradient->Update();
  const Mirror2 mirror;
  for (itk::ImageRegionConstIteratorWithIndex<Image2> it(image, image->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    const Image2::IndexType i = it.GetIndex();
    const float             dx = 0.5f * (mirror.GetPixel({ { i[0] + 1, i[1] } }, image) -
                             mirror.GetPixel({ { i[0] - 1, i[1] } }, image));
    const auto              g = gradient->GetOutput()->GetPixel(i);
    EXPECT_FLOAT_EQ(g[0], dx) << i;
    EXPECT_FLOAT_EQ(g[1], 0.0f) << i << ": an axis of one pixel mirrors onto itself";
    // At the ends the mirrored neighbours are equal: no slope.
    if (i[0] == 0 || i[0] == 5)
    {
      EXPECT_FLOAT_EQ(g[0], 0.0f) << i;
    }
  }
}
} // namespace
