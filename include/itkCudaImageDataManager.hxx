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
#ifndef itkCudaImageDataManager_hxx
#define itkCudaImageDataManager_hxx

#include <algorithm>
#include <limits>

namespace itk
{
template <typename ImageType>
void
CudaImageDataManager<ImageType>::SetImagePointer(ImageType * img)
{
  m_Image = img;
}

template <typename ImageType>
void
CudaImageDataManager<ImageType>::MakeCPUBufferUpToDate()
{
  this->UpdateCPUBuffer();
}

template <typename ImageType>
void
CudaImageDataManager<ImageType>::MakeGPUBufferUpToDate()
{
  this->UpdateGPUBuffer();
}

template <typename ImageType>
auto
CudaImageDataManager<ImageType>::ObserveCPUBuffer() const -> CPUBufferObservation
{
  CPUBufferObservation seen;
  if (m_Image == nullptr)
  {
    return seen;
  }
  seen.MTime = m_Image->GetMTime();
  // The container as itk::Image holds it: CudaImage's accessors would call back into us.
  auto * container = static_cast<typename ImageType::Superclass *>(m_Image)->GetPixelContainer();
  if (container != nullptr)
  {
    seen.Buffer = container->GetBufferPointer();
    seen.Bytes = static_cast<size_t>(container->Size()) * sizeof(typename ImageType::InternalPixelType);
    seen.MTime = std::max(seen.MTime, container->GetMTime());
  }
  return seen;
}

template <typename ImageType>
void *
CudaImageDataManager<ImageType>::AllocateCPUBufferForDownload()
{
  if (m_Image == nullptr)
  {
    return nullptr;
  }
  // Only the pixel container: CudaImage::Allocate() would also reset our flags.
  m_Image->ImageType::Superclass::Allocate(false);
  return m_Image->ImageType::Superclass::GetBufferPointer();
}

template <typename ImageType>
CudaDataManager::Pointer
CudaImageDataManager<ImageType>::RefreshRegionManager(CudaDataManager::Pointer & manager, IntArray & values,
                                                      const IntArray & current)
{
  if (manager.IsNull())
  {
    manager = CudaDataManager::New();
    values = current;
    manager->AdoptCPUBuffer(values.data(), sizeof(IntArray));
  }
  else if (values != current)
  {
    manager->SetGPUBufferDirty();
    values = current;
  }
  manager->UpdateGPUBuffer();
  return manager;
}

template <typename ImageType>
CudaDataManager::Pointer
CudaImageDataManager<ImageType>::GetGPUBufferedRegionIndex()
{
  if (m_Image == nullptr)
  {
    itkExceptionMacro("GetGPUBufferedRegionIndex needs an image (SetImagePointer)");
  }
  IntArray   current{};
  const auto index = m_Image->GetBufferedRegion().GetIndex();
  for (unsigned int d = 0; d < ImageDimension; ++d)
  {
    if (index[d] < std::numeric_limits<int>::min() || index[d] > std::numeric_limits<int>::max())
    {
      itkExceptionMacro("buffered region index " << index << " does not fit in int along axis " << d);
    }
    current[d] = static_cast<int>(index[d]);
  }
  return this->RefreshRegionManager(m_RegionIndexManager, m_RegionIndex, current);
}

template <typename ImageType>
CudaDataManager::Pointer
CudaImageDataManager<ImageType>::GetGPUBufferedRegionSize()
{
  if (m_Image == nullptr)
  {
    itkExceptionMacro("GetGPUBufferedRegionSize needs an image (SetImagePointer)");
  }
  IntArray   current{};
  const auto size = m_Image->GetBufferedRegion().GetSize();
  for (unsigned int d = 0; d < ImageDimension; ++d)
  {
    if (size[d] > static_cast<SizeValueType>(std::numeric_limits<int>::max()))
    {
      itkExceptionMacro("buffered region size " << size << " does not fit in int along axis " << d);
    }
    current[d] = static_cast<int>(size[d]);
  }
  return this->RefreshRegionManager(m_RegionSizeManager, m_RegionSize, current);
}

template <typename ImageType>
void
CudaImageDataManager<ImageType>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Image: " << static_cast<const void *>(m_Image) << std::endl;
  os << indent << "RegionIndexManager: " << (m_RegionIndexManager ? "created" : "none") << std::endl;
  os << indent << "RegionSizeManager: " << (m_RegionSizeManager ? "created" : "none") << std::endl;
  os << indent << "RegionIndex:";
  for (const int v : m_RegionIndex)
  {
    os << ' ' << v;
  }
  os << std::endl << indent << "RegionSize:";
  for (const int v : m_RegionSize)
  {
    os << ' ' << v;
  }
  os << std::endl;
}
} // namespace itk

#endif
