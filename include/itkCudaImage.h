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
#ifndef itkCudaImage_h
#define itkCudaImage_h

#include "itkCudaHostImageContainer.h"
#include "itkCudaImageDataManager.h"
#include "itkImage.h"
#include "itkObjectFactoryBase.h"

#include <atomic>

namespace itk
{
/** \class CudaImage
 * \brief An itk::Image whose pixel buffer is mirrored on a CUDA device.
 *
 * A CudaImage is an Image: every CPU filter, iterator, reader and writer takes
 * it. Its CudaImageDataManager keeps a device copy of the pixel buffer and
 * copies between host and device only when the side being accessed is stale.
 * CUDA filters reach the device memory with
 * `image->GetCudaDataManager()->GetGPUBufferPointer()` (read and write) or
 * `GetConstGPUBufferPointer()` (read only).
 *
 * CPU accessors keep the copies coherent, so that every way ITK code writes
 * the pixels of an Image works the same on a CudaImage whose current copy is
 * on the GPU, and the next GPU read sees the write:
 * - non-const accessors (GetBufferPointer(), GetPixel(), operator[],
 *   SetPixel(), GetPixelContainer(), the accessors) make the CPU copy current
 *   and mark the GPU copy stale (its buffer is released per
 *   ReleaseDirtyGPUBuffer, unless a view holds it);
 * - the const GetBufferPointer() and GetPixelContainer() do the same but keep
 *   the device buffer, because ITK's iterators, writing ones included, take
 *   the buffer through them. The data manager's ConstCPUAccessReadOnly mode
 *   (or ITK_CUDA_CONST_CPU_ACCESS_READ_ONLY=1) trusts them to be read-only
 *   instead: cheaper, and then writes through them must be followed by
 *   Modified();
 * - const GetPixel(), operator[] and the const accessors only read: CPU copy
 *   current, GPU copy untouched; so does
 *   GetDataManager()->GetConstCPUBufferPointer();
 * - FillBuffer() overwrites every pixel: nothing is downloaded first;
 * - Allocate() of a buffer of the same size keeps the current copy where it
 *   is (ITK keeps the pixels of a reused buffer);
 * - a pixel container re-pointed to other memory holds the data from then on.
 * A pointer obtained from an accessor is for use until the next GPU access
 * of the image; code that writes through one later calls Modified().
 * Access through an itk::Image pointer reaches only the virtual
 * GetBufferPointer() (and Allocate(), Initialize(), Graft()): itk::Image's
 * SetPixel(), GetPixel() and FillBuffer() are not virtual.
 *
 * Without a CUDA device a CudaImage behaves exactly like an Image and makes
 * no CUDA call.
 * \ingroup CudaCommon
 */
template <typename TPixel, unsigned int VImageDimension = 2>
class ITK_TEMPLATE_EXPORT CudaImage : public Image<TPixel, VImageDimension>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaImage);

  using Self = CudaImage;
  using Superclass = Image<TPixel, VImageDimension>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using ConstWeakPointer = WeakPointer<const Self>;

  itkNewMacro(Self);
  itkCudaTypeMacro(CudaImage, Image);

  static constexpr unsigned int ImageDimension = VImageDimension;

  using typename Superclass::PixelType;
  using typename Superclass::ValueType;
  using typename Superclass::InternalPixelType;
  using typename Superclass::IOPixelType;
  using typename Superclass::DirectionType;
  using typename Superclass::SpacingType;
  using typename Superclass::PixelContainer;
  using typename Superclass::SizeType;
  using typename Superclass::IndexType;
  using typename Superclass::OffsetType;
  using typename Superclass::RegionType;
  using typename Superclass::PointType;
  using typename Superclass::AccessorType;
  // Functors bound to CudaImage, so that iterators templated over it
  // (neighborhood iterators and their boundary conditions) find its types.
  using AccessorFunctorType = DefaultPixelAccessorFunctor<Self>;
  using NeighborhoodAccessorFunctorType = NeighborhoodAccessorFunctor<Self>;
  using typename Superclass::PixelContainerPointer;
  using typename Superclass::PixelContainerConstPointer;
  using typename Superclass::ImageDimensionType;
  using typename Superclass::IndexValueType;
  using typename Superclass::SizeValueType;
  using typename Superclass::OffsetValueType;
  using typename Superclass::SpacingValueType;

  /** The pixel container Allocate() uses: memory from CudaHostMemoryPool. */
  using HostContainerType = CudaHostImageContainer<SizeValueType, TPixel>;

  using DataManagerType = CudaImageDataManager<Self>;
  using DataManagerPointer = typename DataManagerType::Pointer;

  /** A CudaImage of another pixel type and/or dimension. */
  template <typename UPixelType, unsigned int UImageDimension = VImageDimension>
  struct Rebind
  {
    using Type = CudaImage<UPixelType, UImageDimension>;
  };
  template <typename UPixelType, unsigned int UImageDimension = VImageDimension>
  using RebindImageType = CudaImage<UPixelType, UImageDimension>;

  /** Allocate the CPU buffer; the CPU copy becomes the current one. With
   * HostAllocationOnFirstUse on, a new buffer of at least the pinned
   * threshold is only sized: see there. */
  void
  Allocate(bool initializePixels = false) override;

  /** Make a new host buffer only when the host first needs it (default off;
   * CUDA filters turn it on for the CudaImage outputs they compute on the
   * GPU). Allocate() then sets the buffer size, the GPU side can be used at
   * once, and the host buffer (from CudaHostMemoryPool) is allocated
   * at the first CPU access through a CudaImage accessor or the data manager:
   * a GPU-only intermediate costs no host memory. Its pixels are undefined
   * until written (as after ITK's Allocate(false)): a GPU access before that
   * uploads nothing. Allocate(true) and buffers below the pool's pinned
   * threshold are allocated at once. itk::Image's
   * non-virtual SetPixel(), GetPixel(), FillBuffer() and GetPixelContainer(),
   * called through an itk::Image pointer, see no host buffer before that
   * first access. */
  itkSetMacro(HostAllocationOnFirstUse, bool);
  itkGetConstMacro(HostAllocationOnFirstUse, bool);
  itkBooleanMacro(HostAllocationOnFirstUse);

  /** Release both buffers (other images grafted to this one keep theirs). */
  void
  Initialize() override;

  void
  FillBuffer(const TPixel & value);

  void
  SetPixel(const IndexType & index, const TPixel & value);
  const TPixel &
  GetPixel(const IndexType & index) const;
  /** Reference for writing: marks the GPU copy stale. */
  TPixel &
  GetPixel(const IndexType & index);
  TPixel &
  operator[](const IndexType & index);
  const TPixel &
  operator[](const IndexType & index) const;

  /** Non-const: CPU copy current, GPU copy stale. Const: CPU copy current. */
  TPixel *
  GetBufferPointer() override;
  const TPixel *
  GetBufferPointer() const override;

  AccessorType
  GetPixelAccessor();
  const AccessorType
  GetPixelAccessor() const;
  NeighborhoodAccessorFunctorType
  GetNeighborhoodAccessor();
  const NeighborhoodAccessorFunctorType
  GetNeighborhoodAccessor() const;

  /** Use `container` as the CPU buffer (CPU copy current, GPU copy stale);
   * detaches from images this one was grafted with. */
  void
  SetPixelContainer(PixelContainer * container);
  PixelContainer *
  GetPixelContainer();
  const PixelContainer *
  GetPixelContainer() const;

  /** A change of the number of buffered pixels invalidates the GPU copy
   * (after bringing the CPU copy up to date). */
  void
  SetBufferedRegion(const RegionType & region) override;

  /** Called by the pipeline after a filter generated this image: unless the
   * filter asked for the GPU buffer for writing, it wrote on the CPU, so the
   * GPU copy is stale; unless it made both copies current itself (a
   * committed CudaHostStreamedProduction, or
   * CudaDataManager::SetBothBuffersCurrentByProducer()). */
  void
  DataHasBeenGenerated() override;

  /** Make both copies current now (no-op for the GPU side without a device). */
  void
  UpdateBuffers();

  /** The data manager (made at the first call that needs one: until then the
   * image is CPU-only and costs what an itk::Image costs). */
  DataManagerType *
  GetDataManager()
  {
    return this->Manager();
  }
  const DataManagerType *
  GetDataManager() const
  {
    return this->Manager();
  }
  DataManagerType *
  GetModifiableDataManager() const
  {
    return this->Manager();
  }

  /** The usual way to reach the device memory, also from a const image:
   * `img->GetCudaDataManager()->GetGPUBufferPointer()`. */
  CudaDataManager::Pointer
  GetCudaDataManager() const;

  /** Share pixels, metadata and the data manager with `data` (a CudaImage of
   * the same type). \throws itk::ExceptionObject naming both types otherwise. */
  void
  Graft(const Superclass * data) override;
  void
  Graft(const DataObject * data) override;
  virtual void
  Graft(const Self * data);
  using Superclass::Graft;

protected:
  CudaImage();
  ~CudaImage() override;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  /** Point the data manager at the current pixel container: CPU copy current. */
  void
  BindDataManagerToPixelContainer();

  /** The data manager, made on first use (thread-safe; also from const
   * accessors), or nullptr while the image has none. */
  DataManagerType *
  Manager() const;
  DataManagerType *
  ExistingManager() const;

  // One reference held; set once, never replaced.
  mutable std::atomic<DataManagerType *> m_DataManager{ nullptr };
  bool                                   m_HostAllocationOnFirstUse{ false };
};

/** \class CudaTraits
 * \brief Maps `Image<P, D>` to `CudaImage<P, D>`; any other type to itself.
 * \ingroup CudaCommon
 */
template <typename T>
struct CudaTraits
{
  using Type = T;
};
template <typename TPixel, unsigned int VDimension>
struct CudaTraits<Image<TPixel, VDimension>>
{
  using Type = CudaImage<TPixel, VDimension>;
};

/** \class CudaImageFactory
 * \brief Object factory that makes `Image<P, D>::New()` return a
 * `CudaImage<P, D>` for P in {unsigned char, signed char, int, unsigned int,
 * float, double} and D in {1, 2, 3}.
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT CudaImageFactory : public ObjectFactoryBase
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaImageFactory);

  using Self = CudaImageFactory;
  using Superclass = ObjectFactoryBase;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  const char *
  GetITKSourceVersion() const override;
  const char *
  GetDescription() const override;

  itkFactorylessNewMacro(Self);
  itkCudaTypeMacro(CudaImageFactory, ObjectFactoryBase);

  /** Register one CudaImageFactory when a CUDA device is available and none is
   * registered yet; returns true when a factory is (now) registered. */
  static bool
  RegisterOneFactory();

protected:
  CudaImageFactory();
  ~CudaImageFactory() override = default;

private:
  template <typename TPixel>
  void
  RegisterOverridesForPixel();
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkCudaImage.hxx"
#endif

#endif
