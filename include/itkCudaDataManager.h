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
/** \class GPUMemPointer
 * \brief Owns or borrows one device allocation.
 *
 * An owned buffer (Allocate()) is freed by Free(), by the next Allocate() or
 * SetPointer(), and by the destructor, on the device it was allocated on and
 * through the backend that allocated it. A borrowed buffer (SetPointer(), e.g.
 * memory of a CuPy array or a PyTorch tensor) is never freed by us.
 * Destruction never throws; a failing cudaFree is reported with itkWarningMacro.
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

  /** Free an owned buffer, forget a borrowed one. \throws on a CUDA error. */
  void
  Free();

  /** Borrow `pointer` (not freed by us); releases the previous buffer. The
   * size stays what SetBufferSize() says. `owner`, when given, is kept alive
   * for as long as the pointer is borrowed (e.g. the Python array that owns
   * the memory), and released when it is replaced, freed or destroyed. */
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
  GetBackend() const
  {
    return m_Backend ? m_Backend : CudaMemoryBackend::GetDefault();
  }

  /** The device the buffer lives on (-1 when there is none or unknown). */
  int
  GetDevice() const
  {
    return m_Device;
  }

protected:
  GPUMemPointer() = default;
  ~GPUMemPointer() override;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  cudaError_t
  Release() noexcept;

  void *                             m_Pointer{ nullptr };
  size_t                             m_BufferSize{ 0 };
  std::shared_ptr<const void>        m_BorrowedFrom;
  bool                               m_Owner{ false };
  int                                m_Device{ -1 };
  std::shared_ptr<CudaMemoryBackend> m_Backend;
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

/** \class CudaDataManager
 * \brief One buffer mirrored on the host (CPU) and on a device (GPU).
 *
 * Each copy is either current or stale ("dirty"); data is copied only when a
 * stale copy is asked for, and the counters returned by
 * GetTransferStatistics() say how often that happened. Copies are queued on
 * the buffer's stream (GetStream()): an upload from pinned memory returns at
 * once, a download returns when the data is on the host.
 *
 * After a successful call:
 * - UpdateCPUBuffer() / GetConstCPUBufferPointer(): the CPU copy is current.
 * - UpdateGPUBuffer() / GetConstGPUBufferPointer(): the GPU copy exists and is current.
 * - GetCPUBufferPointer() / SetGPUBufferDirty(): the CPU copy is current and
 *   the GPU copy stale (the caller writes on the CPU); the device buffer is
 *   released when ReleaseDirtyGPUBuffer is on and we own it.
 * - GetGPUBufferPointer() / SetCPUBufferDirty(): the GPU copy is current and
 *   the CPU copy stale (the caller writes on the GPU).
 * A failing call throws itk::ExceptionObject and leaves the flags describing
 * which copy is still valid.
 *
 * Managers grafted onto each other (Graft()) share one set of buffers, flags
 * and counters, so a write through either is seen by both. Initialize()
 * detaches a manager again.
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
   * SetCPUBufferPointer() and the two flags would do. */
  void
  AdoptCPUBuffer(void * buffer, size_t bytes);

  /** Adopt an external device allocation of GetBufferSize() bytes (borrowed:
   * never freed by us). The dirty flags are left as they are: a caller whose
   * device memory holds the data calls SetCPUDirtyFlag(true) and
   * SetGPUDirtyFlag(false). \throws for a null pointer. */
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

  /** Raw flag setters: no copy is made. */
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

  /** GPU -> CPU when the CPU copy is stale. */
  virtual void
  UpdateCPUBuffer();
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

  /** Allocate the device buffer now (GetBufferSize() bytes), if not yet done. */
  void
  Allocate();
  /** Release the device buffer; if it held the only current copy, the CPU
   * copy is brought up to date first so that nothing is lost. */
  void
  Free();
  /** Detach from any grafted manager and forget all buffers and flags. */
  virtual void
  Initialize();

  /** Share `data`'s buffers, flags and counters from now on. */
  virtual void
  Graft(const CudaDataManager * data);

  /** The stream on which this buffer's copies are queued (made on first
   * use; shared by grafted managers). A blocking stream: work on the legacy
   * default stream is ordered with it, so kernels launched there (code that
   * ignores streams) see the data. Kernels that read or write the buffer on
   * another stream must be ordered after this one, and this one after them
   * (see CudaStreamWaitFor() in itkCudaUtil.h); CudaCommon's filters queue
   * their kernels here. Host reads wait for it; uploads do not block. */
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
   * \throws itk::ExceptionObject for an invalid device index, or when the new
   * device has no room; the image then stays where it was. */
  void
  SetDevice(int device);
  int
  GetDevice() const;

  /** True when this manager and `other` share buffers (grafted). */
  bool
  SharesBuffersWith(const CudaDataManager * other) const;

  /** Free the device buffer as soon as it becomes stale (default on; the
   * environment variable ITK_RELEASE_DIRTY_GPU_BUFFERS=0/false/off changes
   * the default, read when the first manager of the process is made). */
  itkSetMacro(ReleaseDirtyGPUBuffer, bool);
  itkGetConstMacro(ReleaseDirtyGPUBuffer, bool);
  itkBooleanMacro(ReleaseDirtyGPUBuffer);

  /** Copies made since creation or the last ResetTransferStatistics(). */
  CudaTransferStatistics
  GetTransferStatistics() const;
  void
  ResetTransferStatistics();

  /** What ITK_RELEASE_DIRTY_GPU_BUFFERS says now: on, unless it is 0, false,
   * off or no (any case); any other value, or none, keeps it on. New managers
   * use the value read once, at the first manager of the process. */
  static bool
  GetReleaseDirtyGPUBufferDefault();

protected:
  CudaDataManager();
  ~CudaDataManager() override;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

  /** State shared by grafted managers. */
  struct SharedState;

  /** Hook, called with the state locked before the GPU copy is made current:
   * return true when the CPU copy was written behind the flags' back (e.g. an
   * image modified after the last synchronisation). */
  virtual bool
  CPUBufferModifiedExternally(const SharedState &) const
  {
    return false;
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

  static bool
  ProcessReleaseDirtyGPUBufferDefault();

  void
  UpdateCPUBufferLocked(SharedState & state);
  void
  UpdateGPUBufferLocked(SharedState & state);
  void
  AllocateGPUBufferLocked(SharedState & state);
  void
  MarkGPUBufferStaleLocked(SharedState & state);
  void
  ReleaseStreamLocked(SharedState & state);
  void
  MoveGPUBufferLocked(SharedState & state, int device);

  std::shared_ptr<SharedState> m_State;
  bool                         m_ReleaseDirtyGPUBuffer;
};
} // namespace itk

#endif
