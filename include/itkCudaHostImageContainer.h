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
#ifndef itkCudaHostImageContainer_h
#define itkCudaHostImageContainer_h

#include "itkCudaCompatibility.h"
#include "itkCudaHostMemoryPool.h"
#include "itkImportImageContainer.h"

#include <memory>
#include <type_traits>

namespace itk
{
/** \class CudaHostImageContainer
 * \brief The pixel container CudaImage allocates: buffers of at least the
 * pool's pinned threshold come from CudaHostMemoryPool (pinned once reused,
 * cached for reuse), smaller ones from new[] as in ImportImageContainer.
 *
 * Memory imported with SetImportPointer() is handled as by
 * ImportImageContainer: freed with delete[] only when the container was told
 * to manage it.
 * \ingroup CudaCommon
 */
template <typename TElementIdentifier, typename TElement>
class ITK_TEMPLATE_EXPORT CudaHostImageContainer : public ImportImageContainer<TElementIdentifier, TElement>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaHostImageContainer);

  using Self = CudaHostImageContainer;
  using Superclass = ImportImageContainer<TElementIdentifier, TElement>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using typename Superclass::ElementIdentifier;

  itkFactorylessNewMacro(Self);
  itkCudaTypeMacro(CudaHostImageContainer, ImportImageContainer);

  static_assert(std::is_trivially_destructible<TElement>::value,
                "CudaHostImageContainer holds trivially destructible pixels");

protected:
  CudaHostImageContainer()
    : m_PinnedThreshold(CudaHostMemoryPool::GetInstance().GetPinnedThreshold())
  {}
  ~CudaHostImageContainer() override
  {
    // The base destructor would call its own DeallocateManagedMemory().
    this->DeallocateManagedMemory();
  }

  TElement *
  AllocateElements(ElementIdentifier size, bool useDefaultConstructor = false) const override
  {
    const size_t bytes = static_cast<size_t>(size) * sizeof(TElement);
    if (bytes < m_PinnedThreshold)
    {
      // Small: plain new[], as ImportImageContainer does; no pool bookkeeping.
      return useDefaultConstructor ? new TElement[size]() : new TElement[size];
    }
    void * memory = nullptr;
    try
    {
      memory = CudaHostMemoryPool::GetInstance().Allocate(bytes);
    }
    catch (const std::bad_alloc &)
    {
      itkGenericExceptionMacro("cannot allocate " << static_cast<size_t>(size) * sizeof(TElement)
                                                  << " bytes of host memory for " << size << " pixels");
    }
    auto * elements = static_cast<TElement *>(memory);
    if (useDefaultConstructor)
    {
      std::uninitialized_value_construct_n(elements, size);
    }
    else
    {
      std::uninitialized_default_construct_n(elements, size);
    }
    return elements;
  }

  void
  DeallocateManagedMemory() override
  {
    TElement * pointer = this->GetImportPointer();
    if (pointer != nullptr && this->GetContainerManageMemory())
    {
      // Below the threshold AllocateElements() used new[]; above it, the pool,
      // unless the memory was imported (then it is not the pool's).
      const size_t bytes = static_cast<size_t>(this->Capacity()) * sizeof(TElement);
      if (bytes >= m_PinnedThreshold && CudaHostMemoryPool::GetInstance().Owns(pointer))
      {
        CudaHostMemoryPool::GetInstance().Free(pointer);
      }
      else
      {
        delete[] pointer;
      }
    }
    this->SetImportPointer(nullptr);
    this->SetCapacity(0);
    this->SetSize(0);
  }

private:
  // Fixed for the container's life, so that a block is always returned the
  // way it was obtained.
  const size_t m_PinnedThreshold;
};
} // namespace itk

#endif
