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
CudaImage<TPixel, VImageDimension>::CudaImage() = default;

template <typename TPixel, unsigned int VImageDimension>
CudaImage<TPixel, VImageDimension>::~CudaImage()
{
  if (DataManagerType * manager = m_DataManager.load(std::memory_order_acquire))
  {
    manager->SetImagePointer(nullptr);
    manager->UnRegister();
  }
}

template <typename TPixel, unsigned int VImageDimension>
auto
CudaImage<TPixel, VImageDimension>::ExistingManager() const -> DataManagerType *
{
  return m_DataManager.load(std::memory_order_acquire);
}

template <typename TPixel, unsigned int VImageDimension>
auto
CudaImage<TPixel, VImageDimension>::Manager() const -> DataManagerType *
{
  if (DataManagerType * manager = m_DataManager.load(std::memory_order_acquire))
  {
    return manager;
  }
  // Made at the first use that needs it: an image used on the CPU only costs
  // what an itk::Image costs. Until then the CPU copy is the only one.
  typename DataManagerType::Pointer made = DataManagerType::New();
  auto *                            self = const_cast<Self *>(this);
  made->SetImagePointer(self);
  PixelContainer * container = self->Superclass::GetPixelContainer();
  if (container != nullptr && container->GetBufferPointer() != nullptr)
  {
    made->AdoptCPUBuffer(container->GetBufferPointer(), static_cast<size_t>(container->Size()) * sizeof(TPixel));
  }
  DataManagerType * expected = nullptr;
  if (m_DataManager.compare_exchange_strong(expected, made.GetPointer(), std::memory_order_acq_rel))
  {
    made->Register(); // the image's reference
    return made.GetPointer();
  }
  made->SetImagePointer(nullptr);
  return expected; // made by another thread meanwhile
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::BindDataManagerToPixelContainer()
{
  DataManagerType * manager = this->ExistingManager();
  if (manager == nullptr)
  {
    return; // made later, from the container it then finds
  }
  PixelContainer * container = Superclass::GetPixelContainer();
  const size_t     bytes = container != nullptr ? static_cast<size_t>(container->Size()) * sizeof(TPixel) : 0;
  manager->AdoptCPUBuffer(container != nullptr ? container->GetBufferPointer() : nullptr, bytes);
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
  if (before == nullptr && !initializePixels && m_HostAllocationOnFirstUse &&
      dynamic_cast<HostContainerType *>(current) != nullptr &&
      bytes >= CudaHostMemoryPool::GetInstance().GetPinnedThreshold())
  {
    // Sized only: AllocateCPUBufferForDownload() makes it at the first host
    // use. Already sized so (allocated again before any host use): the
    // current copy stays, as Allocate() keeps the pixels of a reused buffer.
    DataManagerType * manager = this->Manager();
    if (manager->GetBufferSize() != bytes)
    {
      manager->AdoptCPUBuffer(nullptr, bytes);
    }
    return;
  }
  DataManagerType * manager = this->ExistingManager();
  if (manager != nullptr && before != nullptr && pixels != pixelsBefore)
  {
    manager->MakeCPUBufferUpToDate();
  }
  Superclass::Allocate(initializePixels);
  PixelContainer * after = Superclass::GetPixelContainer();
  if (manager != nullptr &&
      (before == nullptr || after->GetBufferPointer() != before || pixels != pixelsBefore ||
       manager->GetBufferSize() != static_cast<size_t>(pixels) * sizeof(TPixel)))
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
  if (DataManagerType * manager = this->ExistingManager())
  {
    manager->Initialize();
  }
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::FillBuffer(const TPixel & value)
{
  // Every pixel is overwritten: stale GPU data is not brought down first.
  if (DataManagerType * manager = this->ExistingManager())
  {
    manager->GetCPUBufferPointerForOverwrite();
  }
  Superclass::FillBuffer(value);
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::SetPixel(const IndexType & index, const TPixel & value)
{
  if (DataManagerType * manager = this->ExistingManager())
  {
    manager->SetGPUBufferDirty();
  }
  Superclass::SetPixel(index, value);
}

template <typename TPixel, unsigned int VImageDimension>
const TPixel &
CudaImage<TPixel, VImageDimension>::GetPixel(const IndexType & index) const
{
  if (DataManagerType * manager = this->ExistingManager())
  {
    manager->MakeCPUBufferUpToDate();
  }
  return Superclass::GetPixel(index);
}

template <typename TPixel, unsigned int VImageDimension>
TPixel &
CudaImage<TPixel, VImageDimension>::GetPixel(const IndexType & index)
{
  if (DataManagerType * manager = this->ExistingManager())
  {
    manager->SetGPUBufferDirty();
  }
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
  if (DataManagerType * manager = this->ExistingManager())
  {
    manager->SetGPUBufferDirty();
  }
  return Superclass::GetBufferPointer();
}

template <typename TPixel, unsigned int VImageDimension>
const TPixel *
CudaImage<TPixel, VImageDimension>::GetBufferPointer() const
{
  // ITK's iterators, writing ones included, take the buffer here.
  if (DataManagerType * manager = this->ExistingManager())
  {
    manager->UpdateCPUBufferForConstAccess();
  }
  return Superclass::GetBufferPointer();
}

template <typename TPixel, unsigned int VImageDimension>
auto
CudaImage<TPixel, VImageDimension>::GetPixelAccessor() -> AccessorType
{
  if (DataManagerType * manager = this->ExistingManager())
  {
    manager->SetGPUBufferDirty();
  }
  return Superclass::GetPixelAccessor();
}

template <typename TPixel, unsigned int VImageDimension>
auto
CudaImage<TPixel, VImageDimension>::GetPixelAccessor() const -> const AccessorType
{
  if (DataManagerType * manager = this->ExistingManager())
  {
    manager->MakeCPUBufferUpToDate();
  }
  return Superclass::GetPixelAccessor();
}

template <typename TPixel, unsigned int VImageDimension>
auto
CudaImage<TPixel, VImageDimension>::GetNeighborhoodAccessor() -> NeighborhoodAccessorFunctorType
{
  if (DataManagerType * manager = this->ExistingManager())
  {
    manager->SetGPUBufferDirty();
  }
  return NeighborhoodAccessorFunctorType();
}

template <typename TPixel, unsigned int VImageDimension>
auto
CudaImage<TPixel, VImageDimension>::GetNeighborhoodAccessor() const -> const NeighborhoodAccessorFunctorType
{
  if (DataManagerType * manager = this->ExistingManager())
  {
    manager->MakeCPUBufferUpToDate();
  }
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
  if (DataManagerType * manager = this->ExistingManager())
  {
    manager->Initialize();
    this->BindDataManagerToPixelContainer();
  }
}

template <typename TPixel, unsigned int VImageDimension>
auto
CudaImage<TPixel, VImageDimension>::GetPixelContainer() -> PixelContainer *
{
  if (DataManagerType * manager = this->ExistingManager())
  {
    manager->SetGPUBufferDirty();
  }
  return Superclass::GetPixelContainer();
}

template <typename TPixel, unsigned int VImageDimension>
auto
CudaImage<TPixel, VImageDimension>::GetPixelContainer() const -> const PixelContainer *
{
  // A const container still hands out a writable buffer pointer.
  if (DataManagerType * manager = this->ExistingManager())
  {
    manager->UpdateCPUBufferForConstAccess();
  }
  return Superclass::GetPixelContainer();
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::SetBufferedRegion(const RegionType & region)
{
  const SizeValueType before = this->GetBufferedRegion().GetNumberOfPixels();
  // An empty region had nothing on the GPU: new images skip the data manager.
  DataManagerType *   manager = this->ExistingManager();
  if (manager != nullptr && before > 0 && region.GetNumberOfPixels() != before)
  {
    // Keep the data (CPU side), drop the device copy of the old layout.
    manager->SetGPUBufferDirty();
    manager->Free();
  }
  Superclass::SetBufferedRegion(region);
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::DataHasBeenGenerated()
{
  Superclass::DataHasBeenGenerated();
  DataManagerType * manager = this->ExistingManager();
  if (manager != nullptr && manager->TakeBothBuffersCurrentByProducer())
  {
    return; // the filter wrote both copies
  }
  if (manager != nullptr && !manager->IsCPUBufferDirty() && manager->GetBufferSize() > 0)
  {
    manager->SetGPUBufferDirty();
  }
}

template <typename TPixel, unsigned int VImageDimension>
void
CudaImage<TPixel, VImageDimension>::UpdateBuffers()
{
  this->Manager()->Update();
}

template <typename TPixel, unsigned int VImageDimension>
CudaDataManager::Pointer
CudaImage<TPixel, VImageDimension>::GetCudaDataManager() const
{
  return this->Manager();
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
  this->Manager()->Graft(data->Manager());
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
  if (const DataManagerType * manager = this->ExistingManager())
  {
    os << indent << "DataManager:" << std::endl;
    manager->Print(os, indent.GetNextIndent());
  }
  else
  {
    os << indent << "DataManager: none yet (made at the first GPU use; the CPU copy is the only one)" << std::endl;
  }
}
} // namespace itk

#endif
