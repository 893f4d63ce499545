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
#ifndef itkCudaImage_hxx
#define itkCudaImage_hxx

#include <typeinfo>

namespace itk
{
template <typename TPixel, unsigned int VImageDimension>
CudaImage<TPixel, VImageDimension>::CudaImage()
  : m_DataManager(DataManagerType::New())
{
  m_DataManager->SetImagePointer(this);
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::BindDataManagerToPixelContainer()
{
  PixelContainer * container = Superclass::GetPixelContainer();
  const size_t     bytes = container != nullptr ? static_cast<size_t>(container->Size()) * sizeof(TPixel) : 0;
  m_DataManager->AdoptCPUBuffer(container != nullptr ? container->GetBufferPointer() : nullptr, bytes);
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::Allocate(bool initializePixels)
{
  // Large images get pixels from CudaHostMemoryPool (pinned once reused: fast copies),
  // unless the image already has a buffer of its own (e.g. shared through a
  // graft). Small ones keep ITK's container: copying them is latency-bound.
  PixelContainer * current = Superclass::GetPixelContainer();
  if (current == nullptr ||
      (current->Capacity() == 0 && dynamic_cast<const HostContainerType *>(current) == nullptr &&
       this->GetBufferedRegion().GetNumberOfPixels() * sizeof(TPixel) >=
         CudaHostMemoryPool::GetInstance().GetPinnedThreshold()))
  {
    Superclass::SetPixelContainer(HostContainerType::New());
    current = Superclass::GetPixelContainer();
  }
  // Allocate() keeps the pixels of a buffer it reuses or grows (Reserve()
  // semantics). Reused as it is: whichever copy is current stays current,
  // nothing moves. Resized: the current data must be on the host first.
  const TPixel *      before = current->GetBufferPointer();
  const SizeValueType pixelsBefore = current->Size();
  this->ComputeOffsetTable();
  const auto   pixels = static_cast<SizeValueType>(this->GetOffsetTable()[VImageDimension]);
  const size_t bytes = static_cast<size_t>(pixels) * sizeof(TPixel);
  if (before == nullptr && m_HostAllocationOnFirstUse && dynamic_cast<HostContainerType *>(current) != nullptr &&
      bytes >= CudaHostMemoryPool::GetInstance().GetPinnedThreshold())
  {
    // Sized only: AllocateCPUBufferForDownload() makes it at the first host
    // use. Already sized so (allocated again before any host use): the
    // current copy stays, as Allocate() keeps the pixels of a reused buffer.
    if (m_DataManager->GetBufferSize() != bytes)
    {
      m_DataManager->AdoptCPUBuffer(nullptr, bytes);
    }
    return;
  }
  if (before != nullptr && pixels != pixelsBefore)
  {
    m_DataManager->MakeCPUBufferUpToDate();
  }
  Superclass::Allocate(initializePixels);
  PixelContainer * after = Superclass::GetPixelContainer();
  if (before == nullptr || after->GetBufferPointer() != before || pixels != pixelsBefore ||
      m_DataManager->GetBufferSize() != static_cast<size_t>(pixels) * sizeof(TPixel))
  {
    this->BindDataManagerToPixelContainer();
  }
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::Initialize()
{
  Superclass::Initialize();
  // The pixel container was replaced: stop sharing buffers with grafted images.
  m_DataManager->Initialize();
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::FillBuffer(const TPixel & value)
{
  // Every pixel is overwritten: stale GPU data is not brought down first.
  m_DataManager->GetCPUBufferPointerForOverwrite();
  Superclass::FillBuffer(value);
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::SetPixel(const IndexType & index, const TPixel & value)
{
  m_DataManager->SetGPUBufferDirty();
  Superclass::SetPixel(index, value);
}

template <typename TPixel, unsigned int VImageDimension>
const TPixel &
CudaImage<TPixel, VImageDimension>::GetPixel(const IndexType & index) const
{
  m_DataManager->MakeCPUBufferUpToDate();
  return Superclass::GetPixel(index);
}

template <typename TPixel, unsigned int VImageDimension>
TPixel &
CudaImage<TPixel, VImageDimension>::GetPixel(const IndexType & index)
{
  m_DataManager->SetGPUBufferDirty();
  return Superclass::GetPixel(index);
}

template <typename TPixel, unsigned int VImageDimension>
TPixel & CudaImage<TPixel, VImageDimension>::operator[](const IndexType & index)
{
  return this->GetPixel(index);
}

template <typename TPixel, unsigned int VImageDimension>
const TPixel & CudaImage<TPixel, VImageDimension>::operator[](const IndexType & index) const
{
  return this->GetPixel(index);
}

template <typename TPixel, unsigned int VImageDimension>
TPixel *
CudaImage<TPixel, VImageDimension>::GetBufferPointer()
{
  m_DataManager->SetGPUBufferDirty();
  return Superclass::GetBufferPointer();
}

template <typename TPixel, unsigned int VImageDimension>
const TPixel *
CudaImage<TPixel, VImageDimension>::GetBufferPointer() const
{
  // ITK's iterators, writing ones included, take the buffer here.
  m_DataManager->UpdateCPUBufferForConstAccess();
  return Superclass::GetBufferPointer();
}

template <typename TPixel, unsigned int VImageDimension>
auto
CudaImage<TPixel, VImageDimension>::GetPixelAccessor() -> AccessorType
{
  m_DataManager->SetGPUBufferDirty();
  return Superclass::GetPixelAccessor();
}

template <typename TPixel, unsigned int VImageDimension>
auto
CudaImage<TPixel, VImageDimension>::GetPixelAccessor() const -> const AccessorType
{
  m_DataManager->MakeCPUBufferUpToDate();
  return Superclass::GetPixelAccessor();
}

template <typename TPixel, unsigned int VImageDimension>
auto
CudaImage<TPixel, VImageDimension>::GetNeighborhoodAccessor() -> NeighborhoodAccessorFunctorType
{
  m_DataManager->SetGPUBufferDirty();
  return NeighborhoodAccessorFunctorType();
}

template <typename TPixel, unsigned int VImageDimension>
auto
CudaImage<TPixel, VImageDimension>::GetNeighborhoodAccessor() const -> const NeighborhoodAccessorFunctorType
{
  m_DataManager->MakeCPUBufferUpToDate();
  return NeighborhoodAccessorFunctorType();
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::SetPixelContainer(PixelContainer * container)
{
  if (container == Superclass::GetPixelContainer())
  {
    return;
  }
  Superclass::SetPixelContainer(container);
  m_DataManager->Initialize();
  this->BindDataManagerToPixelContainer();
}

template <typename TPixel, unsigned int VImageDimension>
auto
CudaImage<TPixel, VImageDimension>::GetPixelContainer() -> PixelContainer *
{
  m_DataManager->SetGPUBufferDirty();
  return Superclass::GetPixelContainer();
}

template <typename TPixel, unsigned int VImageDimension>
auto
CudaImage<TPixel, VImageDimension>::GetPixelContainer() const -> const PixelContainer *
{
  // A const container still hands out a writable buffer pointer.
  m_DataManager->UpdateCPUBufferForConstAccess();
  return Superclass::GetPixelContainer();
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::SetBufferedRegion(const RegionType & region)
{
  const SizeValueType before = this->GetBufferedRegion().GetNumberOfPixels();
  // An empty region had nothing on the GPU: new images skip the data manager.
  if (before > 0 && region.GetNumberOfPixels() != before)
  {
    // Keep the data (CPU side), drop the device copy of the old layout.
    m_DataManager->SetGPUBufferDirty();
    m_DataManager->Free();
  }
  Superclass::SetBufferedRegion(region);
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::DataHasBeenGenerated()
{
  Superclass::DataHasBeenGenerated();
  if (!m_DataManager->IsCPUBufferDirty() && m_DataManager->GetBufferSize() > 0)
  {
    m_DataManager->SetGPUBufferDirty();
  }
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::UpdateBuffers()
{
  m_DataManager->Update();
}

template <typename TPixel, unsigned int VImageDimension>
CudaDataManager::Pointer
CudaImage<TPixel, VImageDimension>::GetCudaDataManager() const
{
  return m_DataManager.GetPointer();
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::Graft(const Self * data)
{
  if (data == nullptr)
  {
    return;
  }
  // Superclass::Graft copies metadata and shares the pixel container through
  // Image::SetPixelContainer (not ours), then the device side is shared too.
  Superclass::Graft(static_cast<const Superclass *>(data));
  m_DataManager->Graft(data->m_DataManager.GetPointer());
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::Graft(const Superclass * data)
{
  if (data == nullptr)
  {
    return;
  }
  const auto * cudaData = dynamic_cast<const Self *>(data);
  if (cudaData == nullptr)
  {
    itkExceptionMacro("cannot graft an image of type " << data->GetNameOfClass() << " (" << typeid(*data).name()
                                                       << ") onto a " << this->GetNameOfClass() << " ("
                                                       << typeid(Self).name() << "): expected the same CudaImage type");
  }
  this->Graft(cudaData);
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::Graft(const DataObject * data)
{
  if (data == nullptr)
  {
    return;
  }
  const auto * cudaData = dynamic_cast<const Self *>(data);
  if (cudaData == nullptr)
  {
    itkExceptionMacro("cannot graft a " << data->GetNameOfClass() << " (" << typeid(*data).name() << ") onto a "
                                        << this->GetNameOfClass() << " (" << typeid(Self).name()
                                        << "): expected the same CudaImage type");
  }
  this->Graft(cudaData);
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "HostAllocationOnFirstUse: " << m_HostAllocationOnFirstUse << std::endl;
  os << indent << "DataManager:" << std::endl;
  m_DataManager->Print(os, indent.GetNextIndent());
}
} // namespace itk

#endif
