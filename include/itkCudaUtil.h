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
#ifndef itkCudaUtil_h
#define itkCudaUtil_h

/** \file itkCudaUtil.h
 * \brief Device queries and error handling shared by all CudaCommon classes.
 *
 * None of these functions requires a GPU: on a machine without a device or
 * without a driver they report "nothing available" instead of throwing, except
 * where a specific device is asked for.
 * \ingroup CudaCommon
 */

#include "itkCudaCommonConfiguration.h"
#include "itkCudaError.h"
#include "itkMacro.h"
#include "itkVector.h"

// What ITKCudaCommon 2.x's itkCudaUtil.h brought in, and its users (RTK's
// host code calls make_float3 and the driver API) rely on.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace itk
{
/** Default thread-block edge for 1-, 2- and 3-D kernels: 256, 16 and 4, so a
 * block holds 256, 16x16 = 256 or 4x4x4 = 64 threads.
 * \throws itk::ExceptionObject for imageDim 0 or greater than 3. */
CudaCommon_EXPORT int
CudaGetLocalBlockSize(unsigned int imageDim);

/** (major, minor) compute capability of `device`.
 * \throws itk::ExceptionObject naming the device count when the index is invalid. */
CudaCommon_EXPORT std::pair<int, int>
GetCudaComputeCapability(int device);

/** Fill `devices` with the properties of every visible device and return their
 * count: 0 when there is no device or no driver (never throws for that). */
CudaCommon_EXPORT int
CudaGetAvailableDevices(std::vector<cudaDeviceProp> & devices);

/** Index of the device with the largest multiprocessor count x clock, computed
 * once per process; -1 when no device is available. */
CudaCommon_EXPORT int
CudaGetMaxFlopsDev();

/** The device new device buffers go to unless told otherwise: the index in
 * the environment variable ITK_CUDA_DEVICE when it names a visible device,
 * else the most capable device (CudaGetMaxFlopsDev()), else 0. Read once. */
CudaCommon_EXPORT int
CudaGetDefaultDevice();

/** Print the name and main properties of `device` to std::cout (and every
 * property when verbose). \throws itk::ExceptionObject for an invalid index. */
CudaCommon_EXPORT void
CudaPrintDeviceInfo(int device, bool verbose = false);

/** Index of the first device whose name contains `name`, else -1. */
CudaCommon_EXPORT int
CudaSelectPlatform(const char * name);

/** True when at least one usable CUDA device exists. Never throws: false on a
 * machine without a GPU or without a driver. The answer is computed once. */
CudaCommon_EXPORT bool
IsCudaAvailable();

/** Why IsCudaAvailable() is false ("" when it is true), e.g.
 * "cudaErrorNoDevice: no CUDA-capable device is detected". */
CudaCommon_EXPORT std::string
CudaUnavailableReason();

/** Queue on `waiter` a wait for the work queued so far on `producer` (an
 * event). Nothing to do when both are the same stream. The streams may belong
 * to different devices, and neither need be the current device's (the
 * legacy and per-thread handles mean the current device's streams).
 * \throws itk::ExceptionObject naming the CUDA error. */
CudaCommon_EXPORT void
CudaStreamWaitFor(cudaStream_t waiter, cudaStream_t producer);

/** \class CudaStreamOrderingScope
 * \brief Orders one stream with the streams of the images that work queued
 * on it uses: what a CUDA filter's GPUGenerateData() runs inside.
 *
 * While a scope is open on a thread, every device pointer a CudaDataManager
 * hands out on that thread (GetGPUBufferPointer() and its const,
 * for-overwrite and pointer-to-pointer forms, UpdateGPUBuffer(),
 * ExportGPUBuffer()) is ready for the work queued next on the scope's
 * stream: the stream waits for the buffer's own stream (its uploads, and
 * the kernels of the filters before) when they differ. Copies and frees a
 * manager queues on a buffer's stream while the scope is open come after
 * the work queued on the scope's stream so far, once the scope has used that
 * buffer. Finish() (or the destructor) closes the scope and makes the stream
 * of every buffer it used wait for the scope's stream, so that later copies,
 * frees and kernels of those images follow the work queued there.
 *
 * CudaImageToImageFilter opens one on its primary output's stream around
 * GPUGenerateData(), so a filter queues its kernels on
 * GetCudaStream() and needs no events of its own. Scopes nest (the innermost
 * applies) and must be closed in the reverse order of their opening. Waits
 * are events queued on the streams: the host never blocks. Work queued on
 * the legacy default stream is ordered too, unless the scope is opened with
 * `legacyStreamToo` false (see the constructor).
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT CudaStreamOrderingScope
{
public:
  /** Open a scope on `stream` (a stream of any device) on the calling
   * thread. With `legacyStreamToo` (the default), the code inside may also
   * queue work on the legacy default stream, as ITKCudaCommon 2.x filters and
   * RTK's do: each device pointer handed out is ready for that stream too,
   * and the buffer's next copy or free waits for it, as outside any scope.
   * False for code that queues its work on `stream` alone (no such waits). */
  explicit CudaStreamOrderingScope(cudaStream_t stream, bool legacyStreamToo = true);
  /** Closes the scope as Finish() does; a failing wait is logged, not thrown. */
  ~CudaStreamOrderingScope();
  CudaStreamOrderingScope(const CudaStreamOrderingScope &) = delete;
  CudaStreamOrderingScope &
  operator=(const CudaStreamOrderingScope &) = delete;

  /** Close the scope: the streams it used wait for its stream.
   * \throws itk::ExceptionObject naming the CUDA error, or when a scope
   * opened later on this thread is still open. */
  void
  Finish();

  cudaStream_t
  GetStream() const
  {
    return m_Stream;
  }
  bool
  GetLegacyStreamToo() const
  {
    return m_LegacyStreamToo;
  }

  /** The scope's stream waits for the work queued on `producer` so far, and
   * `producer` will wait for the scope's stream at Finish(). Nothing to do for
   * the scope's own stream. \throws itk::ExceptionObject naming the CUDA error. */
  void
  WaitFor(cudaStream_t producer);

  /** True when WaitFor(`stream`) was called in this scope. */
  bool
  HasUsed(cudaStream_t stream) const;

  /** The innermost open scope of the calling thread, or nullptr. */
  static CudaStreamOrderingScope *
  GetCurrent() noexcept;

private:
  cudaError_t
  Close() noexcept;

  cudaStream_t              m_Stream;
  bool                      m_LegacyStreamToo;
  CudaStreamOrderingScope * m_Enclosing;
  std::vector<cudaStream_t> m_Used;
  bool                      m_Open{ true };
};

/** Whether the streams images and filters queue their work on (one of a
 * few per device, shared: CudaDataManager::GetStream()) are blocking streams,
 * ordered with the legacy default stream both ways by CUDA itself. Off by
 * default: they are non-blocking, and CudaCommon orders them with the legacy
 * stream only where a device pointer is handed to code that may launch there,
 * so that unrelated work on the legacy stream (another library's) never
 * waits for an image's copies, nor they for it. ITK_CUDA_BLOCKING_STREAMS=1
 * (true, on, yes; any case), read once per process, makes them blocking. */
CudaCommon_EXPORT bool
CudaPooledStreamsAreBlocking() noexcept;

/** Let `device` and `peer` read and write each other's memory directly (over
 * NVLink or PCIe) when the hardware allows it, so that copies between them
 * need not go through host memory. Peer access is a property of the whole
 * process: it is enabled once per pair, both ways, and left on. Returns true
 * when both directions are enabled (also for device == peer); false when the
 * devices cannot reach each other or an index is invalid. Never throws; the
 * current device is unchanged. */
CudaCommon_EXPORT bool
CudaEnablePeerAccess(int device, int peer) noexcept;

/** True when `pointer` is page-locked host memory the CUDA runtime knows
 * (cudaMallocHost, cudaHostRegister): copies from and to it are one DMA each
 * that overlaps other work. Never throws; false without a device. */
CudaCommon_EXPORT bool
CudaIsPinnedHostMemory(const void * pointer) noexcept;

/** Restores the calling thread's current device on destruction, so that
 * library code can work on any device without changing the caller's. */
class CudaCommon_EXPORT CudaDeviceGuard
{
public:
  /** Make `device` current (when it is not already). A negative device
   * leaves the current device alone. \throws itk::ExceptionObject. */
  explicit CudaDeviceGuard(int device);
  ~CudaDeviceGuard();
  CudaDeviceGuard(const CudaDeviceGuard &) = delete;
  CudaDeviceGuard &
  operator=(const CudaDeviceGuard &) = delete;

private:
  int m_PreviousDevice{ -1 };
  bool m_Changed{ false };
};
} // namespace itk

#endif
