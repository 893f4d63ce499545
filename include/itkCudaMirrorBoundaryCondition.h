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
#ifndef itkCudaMirrorBoundaryCondition_h
#define itkCudaMirrorBoundaryCondition_h

#include "itkImageBoundaryCondition.h"

namespace itk
{
/** \class CudaMirrorBoundaryCondition
 * \brief Reads past the buffer's edges from the pixels mirrored about the
 * edge pixels: along an axis of n pixels, index -1 reads 1, -2 reads 2, and n
 * reads n - 2 (d c b | a b c d | c b a: SciPy's and CuPy's `mode="mirror"`,
 * whole-sample symmetric), repeatedly for an axis shorter than the reach; an
 * axis of one pixel reads that pixel.
 *
 * ITK has no mirror condition; this one is an ITK ImageBoundaryCondition, so
 * ITK's CPU filters take it where they take ITK's own (a neighborhood
 * iterator's OverrideBoundaryCondition(), DiscreteGaussianImageFilter's
 * SetInputBoundaryCondition()/SetRealBoundaryCondition(),
 * GradientImageFilter's OverrideBoundaryCondition()), and CudaCommon's
 * neighborhood filters run it on the GPU (CudaDiscreteGaussianImageFilter,
 * CudaGradientImageFilter), with the same results.
 *
 * From a neighborhood iterator it reads through the iterator's image
 * (ConstNeighborhoodIterator and NeighborhoodIterator of TInputImage with
 * ITK's default condition, or with this one), so any axis length is mirrored
 * correctly; from another container of pixel pointers it reads the mirrored
 * pixel of the neighborhood itself, which needs each axis longer than the
 * neighborhood's radius.
 * \ingroup CudaCommon
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT CudaMirrorBoundaryCondition : public ImageBoundaryCondition<TInputImage, TOutputImage>
{
public:
  using Self = CudaMirrorBoundaryCondition;
  using Superclass = ImageBoundaryCondition<TInputImage, TOutputImage>;

  using typename Superclass::IndexType;
  using typename Superclass::NeighborhoodAccessorFunctorType;
  using typename Superclass::NeighborhoodType;
  using typename Superclass::OffsetType;
  using typename Superclass::OutputPixelType;
  using typename Superclass::PixelType;
  using typename Superclass::RegionType;
  using OffsetValueType = typename OffsetType::OffsetValueType;
  static constexpr unsigned int ImageDimension = Superclass::ImageDimension;

  CudaMirrorBoundaryCondition() = default;

  const char *
  GetNameOfClass() const override
  {
    return "CudaMirrorBoundaryCondition";
  }

  OutputPixelType
  operator()(const OffsetType &       pointIndex,
             const OffsetType &       boundaryOffset,
             const NeighborhoodType * data) const override;

  OutputPixelType
  operator()(const OffsetType &                      pointIndex,
             const OffsetType &                      boundaryOffset,
             const NeighborhoodType *                data,
             const NeighborhoodAccessorFunctorType & neighborhoodAccessorFunctor) const override;

  OutputPixelType
  GetPixel(const IndexType & index, const TInputImage * image) const override;

  /** The index of the pixel that `index` reads: mirrored into the image's
   * buffered region. */
  static IndexType
  MirroredIndex(const IndexType & index, const RegionType & bufferedRegion);

  /** Position i of an axis of `size` pixels, mirrored into [0, size). */
  static OffsetValueType
  Mirror(OffsetValueType i, SizeValueType size);

private:
  /** The image and the index of the pixel a neighborhood iterator reads at
   * `pointIndex`; false where `data` is no iterator this class knows. */
  bool
  IteratorPixel(const NeighborhoodType * data,
                const OffsetType &       pointIndex,
                const TInputImage *&     image,
                IndexType &              index) const;

  /** The linear index in the neighborhood of the pixel mirrored about the
   * nearest pixel inside (needs the axis longer than the radius). */
  static OffsetValueType
  NeighborhoodMirror(const OffsetType & pointIndex, const OffsetType & boundaryOffset, const NeighborhoodType * data);
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkCudaMirrorBoundaryCondition.hxx"
#endif

#endif
