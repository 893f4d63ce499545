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
#ifndef itkCudaMirrorBoundaryCondition_hxx
#define itkCudaMirrorBoundaryCondition_hxx

#include "itkConstNeighborhoodIterator.h"
#include "itkCudaSeparableConvolution.hcu" // CudaMirrorPosition
#include "itkZeroFluxNeumannBoundaryCondition.h"

namespace itk
{
template <typename TInputImage, typename TOutputImage>
auto
CudaMirrorBoundaryCondition<TInputImage, TOutputImage>::Mirror(OffsetValueType i, SizeValueType size)
  -> OffsetValueType
{
  return static_cast<OffsetValueType>(CudaMirrorPosition(i, static_cast<long long>(size)));
}

template <typename TInputImage, typename TOutputImage>
auto
CudaMirrorBoundaryCondition<TInputImage, TOutputImage>::MirroredIndex(const IndexType &  index,
                                                                     const RegionType & bufferedRegion) -> IndexType
{
  IndexType mirrored;
  for (unsigned int i = 0; i < ImageDimension; ++i)
  {
    const OffsetValueType start = bufferedRegion.GetIndex(i);
    mirrored[i] = start + Mirror(index[i] - start, bufferedRegion.GetSize(i));
  }
  return mirrored;
}

template <typename TInputImage, typename TOutputImage>
auto
CudaMirrorBoundaryCondition<TInputImage, TOutputImage>::GetPixel(const IndexType &   index,
                                                                const TInputImage * image) const -> OutputPixelType
{
  return static_cast<OutputPixelType>(image->GetPixel(MirroredIndex(index, image->GetBufferedRegion())));
}

template <typename TInputImage, typename TOutputImage>
bool
CudaMirrorBoundaryCondition<TInputImage, TOutputImage>::IteratorPixel(const NeighborhoodType * data,
                                                                     const OffsetType &       pointIndex,
                                                                     const TInputImage *&     image,
                                                                     IndexType &              index) const
{
  // The iterators ITK's filters use, with ITK's default condition overridden
  // by this one, or with this one as their type's.
  using DefaultIterator = ConstNeighborhoodIterator<TInputImage, ZeroFluxNeumannBoundaryCondition<TInputImage>>;
  using OwnIterator = ConstNeighborhoodIterator<TInputImage, Self>;
  IndexType center;
  if (const auto * iterator = dynamic_cast<const DefaultIterator *>(data))
  {
    image = iterator->GetImagePointer();
    center = iterator->GetIndex();
  }
  else if (const auto * own = dynamic_cast<const OwnIterator *>(data))
  {
    image = own->GetImagePointer();
    center = own->GetIndex();
  }
  else
  {
    return false;
  }
  for (unsigned int i = 0; i < ImageDimension; ++i)
  {
    index[i] = center[i] + pointIndex[i] - static_cast<OffsetValueType>(data->GetRadius(i));
  }
  return image != nullptr;
}

template <typename TInputImage, typename TOutputImage>
auto
CudaMirrorBoundaryCondition<TInputImage, TOutputImage>::NeighborhoodMirror(const OffsetType &       pointIndex,
                                                                          const OffsetType &       boundaryOffset,
                                                                          const NeighborhoodType * data)
  -> OffsetValueType
{
  // boundaryOffset leads from the pixel past the edge to the nearest pixel
  // inside; as far again is its mirror image.
  OffsetValueType linear = 0;
  for (unsigned int i = 0; i < ImageDimension; ++i)
  {
    linear += (pointIndex[i] + 2 * boundaryOffset[i]) * static_cast<OffsetValueType>(data->GetStride(i));
  }
  return linear;
}

template <typename TInputImage, typename TOutputImage>
auto
CudaMirrorBoundaryCondition<TInputImage, TOutputImage>::operator()(const OffsetType &       pointIndex,
                                                                  const OffsetType &       boundaryOffset,
                                                                  const NeighborhoodType * data) const
  -> OutputPixelType
{
  const TInputImage * image = nullptr;
  IndexType           index;
  if (IteratorPixel(data, pointIndex, image, index))
  {
    return GetPixel(index, image);
  }
  return static_cast<OutputPixelType>(
    *reinterpret_cast<PixelType *>(data->operator[](NeighborhoodMirror(pointIndex, boundaryOffset, data))));
}

template <typename TInputImage, typename TOutputImage>
auto
CudaMirrorBoundaryCondition<TInputImage, TOutputImage>::operator()(
  const OffsetType &                      pointIndex,
  const OffsetType &                      boundaryOffset,
  const NeighborhoodType *                data,
  const NeighborhoodAccessorFunctorType & neighborhoodAccessorFunctor) const -> OutputPixelType
{
  const TInputImage * image = nullptr;
  IndexType           index;
  if (IteratorPixel(data, pointIndex, image, index))
  {
    const IndexType mirrored = MirroredIndex(index, image->GetBufferedRegion());
    return static_cast<OutputPixelType>(
      neighborhoodAccessorFunctor.Get(image->GetBufferPointer() + image->ComputeOffset(mirrored)));
  }
  return static_cast<OutputPixelType>(
    neighborhoodAccessorFunctor.Get(data->operator[](NeighborhoodMirror(pointIndex, boundaryOffset, data))));
}
} // namespace itk

#endif
