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
#ifndef itkCudaDataManager_h
#define itkCudaDataManager_h

#include "itkCudaCompatibility.h"
#include "itkCudaMemoryBackend.h"
#include "itkCudaUtil.h"
#include "itkObject.h"
#include "itkObjectFactory.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

namespace itk
{
namespace CudaDetail
{
struct DeviceAllocation;
}

/** \class GPUMemPointer
 * \brief Owns or borrows one device allocation.
 *
 * An owned buffer (Allocate()) is freed by Free(), by the next Allocate() or
 * SetPointer(), and by the destructor, on the device it was allocated on and
 * through the backend that allocated it; but never while an exported view
 * holds it (Export()): the last holder frees it. A borrowed buffer
 * (SetPointer(), e.g. memory of a CuPy array or a PyTorch tensor) is never
 * freed by us. Destruction never throws; a failing cudaFree is reported with
 * itkWarningMacro.
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT GPUMemPointer : public Object
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(GPUMemPointer);

  using Self = GPUMemPointer;
  using Superclass = Object;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkFactorylessNewMacro(Self);
  itkCudaTypeMacro(GPUMemPointer, Object);

  /** Allocate `bufferSize` bytes on the current device (owned). Releases the
   * previous buffer first (freed when owned, forgotten when borrowed).
   * \throws itk::ExceptionObject naming the requested and free sizes. */
  void
  Allocate(size_t bufferSize);
  /** Same, on `device`; the calling thread's current device is unchanged. */
  void
  Allocate(size_t bufferSize, int device);
  /** Same, in the order of `stream` (a stream of `device`): from the
   * device's memory pool (itkCudaMemoryPool.h), usable at once by work on
   * `stream` (and on the legacy default stream when `stream` is a blocking
   * stream), by other streams once ordered after it; freed in its order too. A
   * buffer a view held is freed after all the device's work. */
  void
  Allocate(size_t bufferSize, int device, cudaStream_t stream);

  /** Free an owned buffer (unless exported views still hold it: then the last
   * of them frees it), forget a borrowed one. \throws on a CUDA error. */
  void
  Free();

  /** Borrow `pointer` (not freed by us); releases the previous buffer. The
   * size stays what SetBufferSize() says. `owner`, when given, is kept alive
   * for as long as the pointer is borrowed (e.g. the Python array that owns
   * the memory), and released when it is replaced, freed or destroyed. A
   * pointer into an allocation of CudaCommon's own is exported by it (see
   * Export()), so it stays valid and is never moved while borrowed. */
  void
  SetPointer(void * pointer, std::shared_ptr<const void> owner = nullptr);

  void *
  GetPointer() const
  {
    return m_Pointer;
  }

  /** Address of the stored device pointer (for APIs that take `void **`). */
  void *
  GetPointerPtr()
  {
    return &m_Pointer;
  }

  size_t
  GetBufferSize() const
  {
    return m_BufferSize;
  }
  void
  SetBufferSize(size_t bufferSize)
  {
    m_BufferSize = bufferSize;
  }

  /** True for a buffer this object allocated and will free. */
  bool
  IsOwner() const
  {
    return m_Owner;
  }

  /** The backend that allocated the buffer, or the default backend for a
   * borrowed one: the backend copies to and from this buffer go through. */
  std::shared_ptr<CudaMemoryBackend>
  GetBackend() const;

  /** The memory resource an owned buffer came from (and goes back to);
   * nullptr for a borrowed buffer or none. */
  std::shared_ptr<CudaMemoryResource>
  GetMemoryResource() const;

  /** The device the buffer lives on (-1 when there is none or unknown). */
  int
  GetDevice() const
  {
    return m_Device;
  }

  /** A hold on the current buffer for a view of it (CUDA Array Interface,
   * DLPack, another image borrowing the pointer): while any hold lives, the
   * memory is not freed, whatever happens to this object, and IsExported()
   * is true. Empty when there is no buffer. */
  std::shared_ptr<const void>
  Export() const;

  /** True while a hold made by Export() on the current buffer lives. */
  bool
  IsExported() const;

protected:
  GPUMemPointer() = default;
  ~GPUMemPointer() override;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  cudaError_t
  Release() noexcept;

  void *                                        m_Pointer{ nullptr };
  size_t                                        m_BufferSize{ 0 };
  bool                                          m_Owner{ false };
  int                                           m_Device{ -1 };
  std::shared_ptr<CudaDetail::DeviceAllocation> m_Allocation;
};

/** \struct CudaTransferStatistics
 * \brief How many copies a data manager made, and their bytes: between host
 * and device, and from one device to another (SetDevice()).
 * \ingroup CudaCommon
 */
struct CudaTransferStatistics
{
  uint64_t HostToDeviceCount{ 0 };
  uint64_t HostToDeviceBytes{ 0 };
  uint64_t DeviceToHostCount{ 0 };
  uint64_t DeviceToHostBytes{ 0 };
  uint64_t PeerCount{ 0 };
  uint64_t PeerBytes{ 0 };
};

/** \struct CudaGPUBufferExport
 * \brief What a view of a device buffer needs, taken in one step
 * (CudaDataManager::ExportGPUBuffer()): the pointer, its size, device and
 * stream, and the hold that keeps the memory valid and in place.
 * \ingroup CudaCommon
 */
struct CudaGPUBufferExport
{
  void *       Pointer{ nullptr };
  size_t       Bytes{ 0 };
  int          Device{ -1 };
  /** The stream the view's consumer orders its work after: for a CUDA
   * buffer, the legacy default stream of Device (cudaStreamLegacy), to which
   * the buffer's queued work was handed, as for a raw pointer (see
   * CudaDataManager::GetStream()); the consumer may also work there. */
  cudaStream_t Stream{ nullptr };
  /** While this (or a copy) lives, the device buffer is never freed, never
   * released as stale and never moved to another device, whatever any
   * manager sharing it does; the next GPU use of the image refreshes it in
   * place. */
  std::shared_ptr<const void> Hold;
};

class CudaDataManager;

/** \class CudaHostStreamedProduction
 * \brief A producer writing both copies of a data manager's buffer chunk by
 * chunk: one transition of the coherence state machine
 * (docs/coherence.md), begun by CudaDataManager::BeginHostStreamedProduction()
 * and ended once, by Commit() or Abandon().
 *
 * While it runs neither copy is current. Commit(): both copies current (the
 * pipeline's DataHasBeenGenerated() keeps them so, see
 * CudaDataManager::TakeBothBuffersCurrentByProducer()) and the producer's
 * copies counted. Abandon(), also what the destructor does when neither was
 * called (an error, an abort): the host copy is current (it holds the chunks
 * that landed and, where none did, what it held before) and the device copy
 * stale. Move-only; the producer must have finished every copy into the
 * buffers before it ends the production.
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT CudaHostStreamedProduction
{
public:
  CudaHostStreamedProduction() = default;
  CudaHostStreamedProduction(CudaHostStreamedProduction && other) noexcept;
  CudaHostStreamedProduction &
  operator=(CudaHostStreamedProduction && other) noexcept;
  CudaHostStreamedProduction(const CudaHostStreamedProduction &) = delete;
  CudaHostStreamedProduction &
  operator=(const CudaHostStreamedProduction &) = delete;
  ~CudaHostStreamedProduction();

  /** False for an empty production (BeginHostStreamedProduction() did not apply). */
  explicit operator bool() const { return m_Manager != nullptr; }

  /** The pinned host buffer the chunks come down into. */
  void *
  GetHostBuffer() const
  {
    return m_HostBuffer;
  }
  /** The device buffer the chunks go through (current device's memory). */
  void *
  GetDeviceBuffer() const
  {
    return m_DeviceBuffer;
  }

  /** Both copies hold the result: both current; `copies` (what the producer
   * moved, each input's upload counted as one copy) is added to the
   * manager's transfer statistics. */
  void
  Commit(const CudaTransferStatistics & copies);
  /** The host copy is current, the device copy stale. */
  void
  Abandon() noexcept;

private:
  friend class CudaDataManager;
  CudaHostStreamedProduction(CudaDataManager * manager, void * host, void * device);

  SmartPointer<CudaDataManager> m_Manager;
  void *                        m_HostBuffer{ nullptr };
  void *                        m_DeviceBuffer{ nullptr };
};

/** \class CudaDataManager
 * \brief One buffer mirrored on the host (CPU) and on a device (GPU).
 *
 * Each copy is either current or stale ("dirty"); data is copied only when a
 * stale copy is asked for, and the counters returned by
 * GetTransferStatistics() say how often that happened. Copies are queued on
 * the buffer's stream (GetStream()): an upload from pinned memory returns at
 * once, a download returns when the data is on the host. The states and
 * transitions are drawn in docs/coherence.md.
 *
 * After a successful call:
 * - UpdateCPUBuffer() / GetConstCPUBufferPointer(): the CPU copy is current;
 *   the GPU copy is untouched (the explicit read-only path).
 * - UpdateCPUBufferForConstAccess(): the CPU copy is current and the GPU copy
 *   stale, unless ConstCPUAccessReadOnly is on (then as UpdateCPUBuffer()).
 * - GetCPUBufferPointer() / SetGPUBufferDirty(): the CPU copy is current and
 *   the GPU copy stale (the caller writes on the CPU); the device buffer is
 *   released when ReleaseDirtyGPUBuffer is on, we own it and no view holds it.
 * - GetCPUBufferPointerForOverwrite(): the same without copying stale GPU
 *   data down first (the caller overwrites every byte).
 * - UpdateGPUBuffer() / GetConstGPUBufferPointer(): the GPU copy exists and is current.
 * - GetGPUBufferPointer() / SetCPUBufferDirty(): the GPU copy is current and
 *   the CPU copy stale (the caller writes on the GPU).
 * A failing call throws itk::ExceptionObject and leaves the flags describing
 * which copy is still valid.
 *
 * Managers grafted onto each other (Graft()) share one set of buffers, flags,
 * counters and policies (ReleaseDirtyGPUBuffer, ConstCPUAccessReadOnly), so a
 * write through either is seen by both. Initialize() detaches a manager again.
 *
 * Accessors, transfers and flag changes may be called from several threads
 * at once (a mutex per set of shared buffers serialises them; the flags are
 * also readable without it). Graft() and Initialize() change which buffers a
 * manager uses: like any modification of an ITK object, they must not race
 * with other calls on the same manager.
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT CudaDataManager : public Object
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaDataManager);

  using Self = CudaDataManager;
  using Superclass = Object;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkFactorylessNewMacro(Self);
  itkCudaTypeMacro(CudaDataManager, Object);

  /** Size in bytes of both copies. Changing it releases an owned GPU buffer. */
  void
  SetBufferSize(size_t num);
  size_t
  GetBufferSize() const;

  /** Kept for source compatibility with ITKCudaCommon 2.x; stored, unused. */
  void
  SetBufferFlag(int flags);

  /** Host memory of GetBufferSize() bytes that this manager mirrors (not owned). */
  void
  SetCPUBufferPointer(void * ptr);

  /** `buffer`, `bytes` long, now holds the data (e.g. a freshly allocated or
   * imported pixel buffer): the CPU copy is current and the GPU copy stale
   * (released per ReleaseDirtyGPUBuffer). One call for what SetBufferSize(),
   * SetCPUBufferPointer() and the two flags would do. A null `buffer` of
   * non-zero size is a host buffer not made yet: AllocateCPUBufferForDownload()
   * makes it at the first host use (a GPU-only image never needs one). */
  void
  AdoptCPUBuffer(void * buffer, size_t bytes);

  /** `pointer`, device memory of `bytes` bytes that `owner` (may be null)
   * keeps valid, now holds the data (a CuPy array, a PyTorch tensor, a
   * buffer of another library): the GPU copy is current and the CPU copy
   * stale, with no host buffer until the host first reads
   * (AllocateCPUBufferForDownload()); the memory is borrowed (never freed by
   * us) and `owner` kept alive while any manager sharing these buffers uses
   * it. One call for what SetBufferSize(), SetCPUBufferPointer(nullptr),
   * SetGPUBufferPointer() and the two flags would do. The image's device
   * becomes the pointer's. \throws itk::ExceptionObject for a null pointer,
   * 0 bytes, or memory the backend knows to be shorter than `bytes` or no
   * device memory; the manager is then unchanged. */
  void
  AdoptGPUBuffer(void * pointer, size_t bytes, std::shared_ptr<const void> owner = nullptr);

  /** Start a production that writes both copies chunk by chunk (the
   * host-streamed path of the element-wise filters, CudaStreamImagesFromHost()):
   * the host buffer is the one this manager mirrors now (in place, the
   * input's), the device buffer is made or kept at GetBufferSize() bytes.
   * Neither copy is current until the production ends (see
   * CudaHostStreamedProduction). Returns an empty production, having changed
   * nothing, when there is no host buffer or it is not pinned memory
   * (CudaIsPinnedHostMemory()): none is made here, so a GPU-only image keeps
   * costing no host memory. */
  CudaHostStreamedProduction
  BeginHostStreamedProduction();

  /** Adopt an external device allocation of GetBufferSize() bytes (borrowed:
   * never freed by us). The dirty flags are left as they are: a caller whose
   * device memory holds the data calls AdoptGPUBuffer() instead (or, as in
   * 2.x, SetCPUDirtyFlag(true) and SetGPUDirtyFlag(false) after this). A
   * pointer into another CudaCommon buffer holds that buffer as a view does
   * (see ExportGPUBuffer()). \throws for a null pointer. */
  void
  SetGPUBufferPointer(void * ptr);
  void
  SetGPUBufferPointer(uint64_t address);
  /** Same, keeping `owner` alive for as long as any manager sharing these
   * buffers uses the pointer (see GPUMemPointer::SetPointer()). */
  void
  SetGPUBufferPointer(void * ptr, std::shared_ptr<const void> owner);

  /** Size of the device buffer, 0 when there is none; no transfer. */
  size_t
  GetGPUBufferSize() const;

  /** Raw flag setters (2.x): no copy is made. */
  void
  SetCPUDirtyFlag(bool isDirty);
  void
  SetGPUDirtyFlag(bool isDirty);
  bool
  IsCPUBufferDirty() const;
  bool
  IsGPUBufferDirty() const;

  /** The caller is about to write the GPU copy: make it current, then mark the CPU copy stale. */
  void
  SetCPUBufferDirty();
  /** The caller is about to write the CPU copy: make it current, then mark the GPU copy stale. */
  void
  SetGPUBufferDirty();

  /** GPU -> CPU when the CPU copy is stale; the GPU copy stays as it is. */
  virtual void
  UpdateCPUBuffer();
  /** CPU copy current, for a const CPU access through which ITK code may
   * still write (its iterators take the buffer through the const
   * GetBufferPointer()): the GPU copy is then marked stale, its buffer kept.
   * With ConstCPUAccessReadOnly on, the same as UpdateCPUBuffer(). */
  void
  UpdateCPUBufferForConstAccess();
  /** Allocate the device buffer if needed; CPU -> GPU when the GPU copy is stale. */
  virtual void
  UpdateGPUBuffer();
  /** Make both copies current. Returns false (and does nothing) when no device
   * is available, since then the CPU copy is the only one.
   * \throws when both copies are stale. */
  bool
  Update();

  /** Device pointer for reading and writing: GPU copy current, CPU copy then stale. */
  void *
  GetGPUBufferPointer();
  /** Device pointer for reading only: GPU copy current, CPU copy untouched. */
  const void *
  GetConstGPUBufferPointer();
  /** Device pointer for a caller that overwrites every byte on the GPU
   * without reading any: allocated when needed but not uploaded; the GPU copy
   * is then current and the CPU copy stale. An in-place filter asks for its
   * input's pointer first, so that the input is uploaded. */
  void *
  GetGPUBufferPointerForOverwrite();
  /** Address of the device pointer (GPU copy made current, CPU copy then stale). */
  void *
  GetGPUBufferPointerPtr();
  /** Host pointer for reading and writing: CPU copy current, GPU copy then stale. */
  void *
  GetCPUBufferPointer();
  /** Host pointer for reading only: CPU copy current, GPU copy untouched. */
  const void *
  GetConstCPUBufferPointer();
  /** Host pointer for a caller that overwrites every byte on the CPU without
   * reading any (e.g. FillBuffer()): nothing is downloaded; the CPU copy is
   * then current and the GPU copy stale. May return nullptr when there is no
   * CPU buffer yet. */
  void *
  GetCPUBufferPointerForOverwrite();
  /** The host buffer as it is, or nullptr while it is not made yet (a CUDA
   * filter's output before its first host use): no copy, no allocation, no
   * change of the flags. For checks (is it pinned?), not for access. */
  const void *
  PeekCPUBuffer() const;

  /** Make the GPU copy current (read-only, or for writing: CPU copy then
   * stale) and hold it for a view, in one step: see CudaGPUBufferExport.
   * \throws as GetGPUBufferPointer(). */
  CudaGPUBufferExport
  ExportGPUBuffer(bool writable = true);
  /** True while a view made by ExportGPUBuffer() (or a borrowing manager)
   * holds the current device buffer. */
  bool
  IsGPUBufferExported() const;

  /** Allocate the device buffer now (GetBufferSize() bytes), if not yet done. */
  void
  Allocate();
  /** Release the device buffer; if it held the only current copy, the CPU
   * copy is brought up to date first so that nothing is lost. Memory that a
   * view holds is freed when the last view goes. */
  void
  Free();
  /** Detach from any grafted manager and forget all buffers and flags. */
  virtual void
  Initialize();

  /** Share `data`'s buffers, flags, counters and policies from now on. */
  virtual void
  Graft(const CudaDataManager * data);

  /** The stream on which this buffer's copies are queued (one of the
   * device's pooled streams, taken at first use; shared by grafted managers),
   * ordered after legacy-stream work that may use the buffer: the caller may
   * queue work on it at once. Host reads wait for it; uploads do not block.
   *
   * A non-blocking stream (see CudaPooledStreamsAreBlocking()), yet code that
   * ignores streams keeps working: every raw device pointer handed out
   * (GetGPUBufferPointer() and its forms, UpdateGPUBuffer(),
   * SetCPUBufferDirty()) outside a CudaStreamOrderingScope that excludes it
   * first makes the legacy default stream wait for the work queued here, and
   * the buffer's next copy, free or hand-out waits for the legacy stream in
   * turn; so do exported views and adopted external pointers. Kernels on a
   * stream of your own must be ordered after this one, and this one after
   * them (CudaStreamWaitFor() in itkCudaUtil.h, or a CudaStreamOrderingScope
   * on your stream around taking the pointers); CudaCommon's filters do it
   * with a scope. */
  cudaStream_t
  GetStream();

  /** The device of the GPU copy: CudaGetDefaultDevice() unless set (or the
   * device of an adopted external pointer). Setting another device while the
   * GPU copy is current copies it device to device (directly over NVLink or
   * PCIe where the devices can reach each other; counted as a peer copy) and
   * releases the old device buffer (a borrowed one is forgotten, not freed);
   * the flags stay as they were. A stale GPU copy is just released: the next
   * GPU use uploads to the new device. No call changes the calling thread's
   * current device.
   * \throws itk::ExceptionObject for an invalid device index, when the new
   * device has no room, or when a view holds the device buffer (it would no
   * longer see the image); the image then stays where it was. */
  void
  SetDevice(int device);
  int
  GetDevice() const;

  /** True when this manager and `other` share buffers (grafted). */
  bool
  SharesBuffersWith(const CudaDataManager * other) const;

  /** Free the device buffer as soon as it becomes stale through a CPU write
   * (default on; the environment variable ITK_RELEASE_DIRTY_GPU_BUFFERS=0/
   * false/off/no changes the default, read when the first manager of the
   * process is made). A buffer a view holds is never released. Shared by
   * grafted managers: it is a property of the buffer. */
  void
  SetReleaseDirtyGPUBuffer(bool release);
  bool
  GetReleaseDirtyGPUBuffer() const;
  void
  ReleaseDirtyGPUBufferOn()
  {
    this->SetReleaseDirtyGPUBuffer(true);
  }
  void
  ReleaseDirtyGPUBufferOff()
  {
    this->SetReleaseDirtyGPUBuffer(false);
  }

  /** Trust const CPU access to be read-only (default off; the environment
   * variable ITK_CUDA_CONST_CPU_ACCESS_READ_ONLY=1/true/on/yes changes the
   * default, read when the first manager of the process is made). Off, a
   * const CPU access (CudaImage::GetBufferPointer() const, and so every ITK
   * iterator) marks the GPU copy stale, since ITK's iterators write through
   * it: safe, at the price of an upload at the next GPU use. On, it only
   * makes the CPU copy current: a GPU -> CPU read -> GPU pipeline moves one
   * copy instead of two, but CPU writes through a const access (any ITK
   * iterator, outside a filter) are lost for the GPU unless the image is
   * Modified() afterwards. Shared by grafted managers. */
  void
  SetConstCPUAccessReadOnly(bool readOnly);
  bool
  GetConstCPUAccessReadOnly() const;
  void
  ConstCPUAccessReadOnlyOn()
  {
    this->SetConstCPUAccessReadOnly(true);
  }
  void
  ConstCPUAccessReadOnlyOff()
  {
    this->SetConstCPUAccessReadOnly(false);
  }

  /** Copies made since creation or the last ResetTransferStatistics(). */
  CudaTransferStatistics
  GetTransferStatistics() const;
  /** Count a copy of `hostToDeviceBytes` up and one of `deviceToHostBytes`
   * down (none for 0) that code outside the manager made of this buffer, e.g.
   * CudaElementwiseImageFilter streaming it through the device in chunks
   * (counted as one copy each way, as the manager counts its own). */
  void
  RecordTransfers(uint64_t hostToDeviceBytes, uint64_t deviceToHostBytes);

  /** For a producer that wrote both copies itself (CudaElementwiseImageFilter
   * streaming an image through the device): both are current, and the
   * pipeline's DataHasBeenGenerated() after the update keeps them so (it
   * otherwise takes a current CPU copy for one a CPU filter wrote, and marks
   * the GPU copy stale). */
  void
  SetBothBuffersCurrentByProducer();
  /** True, once, when SetBothBuffersCurrentByProducer() was called and both
   * copies are still current (CudaImage::DataHasBeenGenerated()). */
  bool
  TakeBothBuffersCurrentByProducer();
  void
  ResetTransferStatistics();

  /** What ITK_RELEASE_DIRTY_GPU_BUFFERS says now: on, unless it is 0, false,
   * off or no (any case); any other value, or none, keeps it on. New managers
   * use the value read once, at the first manager of the process. */
  static bool
  GetReleaseDirtyGPUBufferDefault();
  /** What ITK_CUDA_CONST_CPU_ACCESS_READ_ONLY says now: off, unless it is 1,
   * true, on or yes (any case). Read once per process like the above. */
  static bool
  GetConstCPUAccessReadOnlyDefault();

protected:
  CudaDataManager();
  ~CudaDataManager() override;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

  /** State shared by grafted managers. */
  struct SharedState;

  /** What the owner of the CPU buffer says of it, asked with the state
   * locked before a copy is made (see ObserveCPUBuffer()). */
  struct CPUBufferObservation
  {
    /** The buffer the owner holds now; nullptr: unknown (keep ours). A
     * different pointer of GetBufferSize() bytes means the buffer was
     * re-pointed (e.g. ImportImageContainer::SetImportPointer()): it holds
     * the data from now on. */
    void * Buffer{ nullptr };
    size_t Bytes{ 0 };
    /** Modified time of the owner (image and pixel container): later than
     * GetSynchronizationTime() means the CPU copy was written behind the
     * flags' back. */
    ModifiedTimeType MTime{ 0 };
  };

  /** Hook: the CPU buffer as its owner (the image) sees it. The default
   * knows nothing. Must not call back into this manager. */
  virtual CPUBufferObservation
  ObserveCPUBuffer() const
  {
    return {};
  }

  /** Hook, called with the state locked when the CPU copy must receive data
   * but no host buffer exists: return a host buffer of GetBufferSize() bytes
   * or nullptr (then an exception is thrown). */
  virtual void *
  AllocateCPUBufferForDownload()
  {
    return nullptr;
  }

  /** Modified time of the last change of flags or copies (for the hook above). */
  static ModifiedTimeType
  GetSynchronizationTime(const SharedState & state);

private:
  using LockType = std::unique_lock<std::mutex>;

  /** How a transition uses the copy it makes current. */
  enum class Access
  {
    Read,     ///< the other copy stays as it is
    Write,    ///< the other copy becomes stale
    Overwrite ///< as Write, without bringing this copy up to date first
  };

  static bool
  ProcessReleaseDirtyGPUBufferDefault();
  static bool
  ProcessConstCPUAccessReadOnlyDefault();

  // The transitions of the coherence state machine (docs/coherence.md); each
  // is called with the state locked.
  void
  ObserveCPUBufferLocked(SharedState & state);
  void
  AcquireCPULocked(SharedState & state, Access access, bool releaseStaleGPUBuffer);
  void
  AcquireGPULocked(SharedState & state, Access access);
  void
  AllocatePendingCPUBufferLocked(SharedState & state);
  void
  DownloadLocked(SharedState & state);
  /** Returns whether it (re)allocated. */
  bool
  AllocateGPUBufferLocked(SharedState & state);
  void
  ReleaseStaleGPUBufferLocked(SharedState & state);
  void
  ReleaseStreamLocked(SharedState & state);
  void
  MoveGPUBufferLocked(SharedState & state, int device);
  void
  AdoptGPUBufferLocked(SharedState & state, void * pointer, std::shared_ptr<const void> owner);

  friend class CudaHostStreamedProduction;
  void
  EndHostStreamedProduction(const CudaTransferStatistics * committed) noexcept;

  std::shared_ptr<SharedState> m_State;
};
} // namespace itk

#endif
