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
#ifndef itkCudaImageDataManager_h
#define itkCudaImageDataManager_h

#include "itkCudaDataManager.h"

#include <array>

namespace itk
{
/** \class CudaImageDataManager
 * \brief The CudaDataManager of one CudaImage.
 *
 * Besides mirroring the image's pixel buffer it:
 * - notices CPU writes that bypassed the flags: when the image or its pixel
 *   container was Modified() after the last synchronisation and both copies
 *   are current, the CPU copy is taken as the newer one before the GPU copy
 *   is used;
 * - follows the pixel container when it is re-pointed to other memory
 *   (ImportImageContainer::SetImportPointer()): that memory holds the data
 *   from then on;
 * - allocates the image's pixel buffer when data must come down to the CPU
 *   and the image has none yet;
 * - offers the buffered region's index and size as `int[Dimension]` device
 *   arrays for kernels (created on first request only).
 * \ingroup CudaCommon
 */
template <typename ImageType>
class ITK_TEMPLATE_EXPORT CudaImageDataManager : public CudaDataManager
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaImageDataManager);

  using Self = CudaImageDataManager;
  using Superclass = CudaDataManager;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkFactorylessNewMacro(Self);
  itkCudaTypeMacro(CudaImageDataManager, CudaDataManager);

  static constexpr unsigned int ImageDimension = ImageType::ImageDimension;

  /** The image whose buffer is mirrored (not owned: the image owns us). */
  void
  SetImagePointer(ImageType * img);
  ImageType *
  GetImagePointer() const
  {
    return m_Image;
  }

  /** CPU copy current (downloading when stale). */
  void
  MakeCPUBufferUpToDate();
  /** GPU copy current (uploading when stale or when the image was modified
   * on the CPU since the last synchronisation). */
  void
  MakeGPUBufferUpToDate();

  /** Managers of `int[ImageDimension]` arrays holding the buffered region's
   * index and size, current on both sides on return.
   * \throws when a coordinate does not fit in an int. */
  CudaDataManager::Pointer
  GetGPUBufferedRegionIndex();
  CudaDataManager::Pointer
  GetGPUBufferedRegionSize();

protected:
  CudaImageDataManager() = default;
  ~CudaImageDataManager() override = default;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

  CPUBufferObservation
  ObserveCPUBuffer() const override;
  void *
  AllocateCPUBufferForDownload() override;

private:
  using IntArray = std::array<int, ImageDimension>;
  CudaDataManager::Pointer
  RefreshRegionManager(CudaDataManager::Pointer & manager, IntArray & values, const IntArray & current);

  ImageType *              m_Image{ nullptr };
  IntArray                 m_RegionIndex{};
  IntArray                 m_RegionSize{};
  CudaDataManager::Pointer m_RegionIndexManager;
  CudaDataManager::Pointer m_RegionSizeManager;
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkCudaImageDataManager.hxx"
#endif

#endif
