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
#ifndef itkPyCudaCommon_h
#define itkPyCudaCommon_h

/** \file itkPyCudaCommon.h
 * \brief The C++ layer under the Python package: type-erased handles on
 * CudaImage<P, D>, the square filter and the memory probe, with plain
 * argument types (strings, numbers, std::vector) that SWIG wraps as is.
 *
 * Pixel codes: UC SS US SI UI UL F D (dimensions 2, 3, 4) and VF2 VF3
 * (itk::Vector<float, N>, dimensions 2, 3).
 * Errors: itk::ExceptionObject becomes RuntimeError, std::invalid_argument
 * ValueError, std::out_of_range IndexError (see the SWIG interface).
 * \ingroup CudaCommon
 */

#include <Python.h>

#include "itkDataObject.h"

#include <memory>
#include <string>
#include <vector>

namespace itk
{
namespace python
{
/** True when at least one usable CUDA device exists (never throws). */
bool
IsCudaAvailable();
std::string
CudaUnavailableReason();

/** The calling thread's current CUDA device (0 without a device). */
int
CurrentDevice();
/** Make `device` the calling thread's current device (as cudaSetDevice). */
void
SetCurrentDevice(int device);
/** itk::CudaGetDefaultDevice(): where new images' GPU copies go. */
int
DefaultDevice();
/** How many CUDA devices are visible (0 without a device or driver). */
int
DeviceCount();

/** Make the legacy default stream, on which CudaCommon copies and launches,
 * wait for the work queued so far on `stream` (an external producer's). */
void
LegacyStreamWaitFor(unsigned long long stream);
/** Make stream `waiter` (e.g. an external consumer's) wait for the work
 * queued so far on stream `producer` (e.g. an image's). Stream values as in
 * the array interfaces: 1 legacy default, 2 per-thread default, else a handle. */
void
StreamWaitFor(unsigned long long waiter, unsigned long long producer);

/** Device of a device pointer; throws std::invalid_argument when `pointer`
 * is not device (or managed) memory. */
int
DeviceOfPointer(unsigned long long pointer);

/** Statistics of a data manager's copies. */
struct TransferStatistics
{
  unsigned long long HostToDeviceCount{ 0 };
  unsigned long long HostToDeviceBytes{ 0 };
  unsigned long long DeviceToHostCount{ 0 };
  unsigned long long DeviceToHostBytes{ 0 };
  unsigned long long PeerCount{ 0 };
  unsigned long long PeerBytes{ 0 };
};

class CudaDataManagerHandle;

/** One CudaImage<P, D> of any supported type. */
class CudaImageHandle
{
public:
  CudaImageHandle(const std::string & pixelCode, unsigned int dimension);

  std::string
  GetPixelCode() const
  {
    return m_PixelCode;
  }
  unsigned int
  GetImageDimension() const
  {
    return m_Dimension;
  }
  unsigned int
  GetNumberOfComponentsPerPixel() const;
  /** Bytes of one pixel component. */
  unsigned int
  GetComponentSize() const;

  void
  SetRegions(const std::vector<long long> & index, const std::vector<unsigned long long> & size);
  std::vector<long long>
  GetBufferedRegionIndex() const;
  std::vector<unsigned long long>
  GetBufferedRegionSize() const;
  std::vector<long long>
  GetLargestPossibleRegionIndex() const;
  std::vector<unsigned long long>
  GetLargestPossibleRegionSize() const;
  std::vector<long long>
  GetRequestedRegionIndex() const;
  std::vector<unsigned long long>
  GetRequestedRegionSize() const;

  std::vector<double>
  GetSpacing() const;
  void
  SetSpacing(const std::vector<double> & spacing);
  std::vector<double>
  GetOrigin() const;
  void
  SetOrigin(const std::vector<double> & origin);
  /** Row-major, Dimension x Dimension. */
  std::vector<double>
  GetDirection() const;
  void
  SetDirection(const std::vector<double> & direction);

  void
  Allocate(bool initializePixels);
  void
  FillBuffer(const std::vector<double> & value);
  std::vector<double>
  GetPixel(const std::vector<long long> & index) const;
  void
  SetPixel(const std::vector<long long> & index, const std::vector<double> & value);
  void
  UpdateBuffers();
  void
  Modified();

  /** Host pointer (CPU copy made current; the GPU copy marked stale when writable). */
  unsigned long long
  GetCPUBufferPointer(bool writable);
  /** Device pointer (GPU copy made current; the CPU copy marked stale when writable). */
  unsigned long long
  GetGPUBufferPointer(bool writable);
  /** Bytes of the pixel buffer (buffered region). */
  unsigned long long
  GetBufferSize() const;
  /** Device of the GPU copy (the default device until chosen). */
  int
  GetDevice() const;
  /** Move the image to `device`; see CudaDataManager::SetDevice(). */
  void
  SetDevice(int device);

  /** Use `pointer`, `owner`'s host memory of GetBufferSize() bytes, as the
   * CPU buffer without copying; `owner` is kept alive meanwhile. */
  void
  ImportHostBuffer(unsigned long long pointer, PyObject * owner);
  /** Use `pointer`, `owner`'s device memory of GetBufferSize() bytes, as the
   * GPU buffer without copying (it becomes the current copy; a CPU buffer is
   * allocated when the host first reads); `owner` is kept alive meanwhile. */
  void
  ImportDeviceBuffer(unsigned long long pointer, PyObject * owner);

  /** The image's stream (its data manager's) as an integer, for the array
   * interfaces: copies and CudaCommon kernels on the image are queued there. */
  unsigned long long
  GetStream();

  /** The device pointer for a view (the CUDA Array Interface): GPU copy made
   * current (the CPU copy then stale when writable), and the device buffer
   * held, never freed, released or moved, for as long as this handle lives,
   * since the view's consumer keeps the Python image, not a hold of its own. */
  unsigned long long
  ExportGPUBuffer(bool writable);

  /** A DLPack capsule of the device buffer (GPU copy made current, CPU copy
   * then stale) that holds the buffer until the consumer releases the tensor. */
  PyObject *
  MakeDLPackCapsule(const std::vector<long long> & shape,
                    const std::string &            typestr,
                    bool                           versioned,
                    PyObject *                     owner);

  CudaDataManagerHandle
  GetCudaDataManager() const;

  std::string
  ToString() const;

  /** The ITK object (for other handles). */
  DataObject *
  GetDataObject() const
  {
    return m_Image.GetPointer();
  }
  /** A handle on an existing image of the given type. */
  CudaImageHandle(const std::string & pixelCode, unsigned int dimension, DataObject * image);

private:
  template <typename F>
  void
  Visit(F && f) const;

  std::string         m_PixelCode;
  unsigned int        m_Dimension;
  DataObject::Pointer m_Image;
  // Holds on the device buffers handed out by ExportGPUBuffer(), one per allocation.
  std::vector<std::shared_ptr<const void>> m_Views;
};

/** The CudaDataManager of an image. */
class CudaDataManagerHandle
{
public:
  explicit CudaDataManagerHandle(Object * manager);
  void
  SetCPUDirtyFlag(bool dirty);
  void
  SetGPUDirtyFlag(bool dirty);
  bool
  IsCPUBufferDirty() const;
  bool
  IsGPUBufferDirty() const;
  void
  SetCPUBufferDirty();
  void
  SetGPUBufferDirty();
  void
  UpdateCPUBuffer();
  void
  UpdateGPUBuffer();
  bool
  Update();
  unsigned long long
  GetBufferSize() const;
  unsigned long long
  GetGPUBufferSize() const;
  unsigned long long
  GetGPUBufferPointer();
  unsigned long long
  GetConstGPUBufferPointer();
  unsigned long long
  GetCPUBufferPointer();
  unsigned long long
  GetConstCPUBufferPointer();
  bool
  GetReleaseDirtyGPUBuffer() const;
  void
  SetReleaseDirtyGPUBuffer(bool release);
  bool
  GetConstCPUAccessReadOnly() const;
  void
  SetConstCPUAccessReadOnly(bool readOnly);
  bool
  IsGPUBufferExported() const;
  TransferStatistics
  GetTransferStatistics() const;
  void
  ResetTransferStatistics();

private:
  Object::Pointer m_Manager;
};

/** CudaSquareImageFilter<CudaImage<P, D>> for scalar pixel codes. */
class CudaSquareImageFilterHandle
{
public:
  CudaSquareImageFilterHandle(const std::string & pixelCode, unsigned int dimension);
  void
  SetInput(const CudaImageHandle & image);
  void
  Update();
  CudaImageHandle
  GetOutput() const;
  void
  SetInPlace(bool inPlace);
  bool
  GetInPlace() const;
  void
  SetGPUEnabled(bool enabled);
  bool
  GetGPUEnabled() const;
  /** -1: the input's device. */
  void
  SetDevice(int device);
  int
  GetDevice() const;
  /** See CudaSquareImageFilter::SetSplitDevices(). */
  void
  SetSplitDevices(const std::vector<int> & devices, const std::vector<double> & weights);
  std::vector<int>
  GetSplitDevices() const;
  std::vector<double>
  GetSplitWeights() const;
  void
  SetSplitAcrossAllDevices(bool all);
  bool
  GetSplitAcrossAllDevices() const;

private:
  std::string     m_PixelCode;
  unsigned int    m_Dimension;
  Object::Pointer m_Filter;
};

/** itk::CudaMemoryProbe. */
class CudaMemoryProbeHandle
{
public:
  CudaMemoryProbeHandle();
  ~CudaMemoryProbeHandle();
  void
  Start();
  void
  Stop();
  double
  GetMean() const;
  double
  GetTotal() const;
  unsigned long long
  GetNumberOfStops() const;
  std::string
  GetType() const;
  std::string
  GetUnit() const;

private:
  struct Impl;
  std::unique_ptr<Impl> m_Impl;
};

#ifndef SWIG
/** DLPack: a capsule for a device buffer (versioned "dltensor_versioned" when
 * `versioned`, else "dltensor"). `owner` and `hold` (see CudaGPUBufferExport)
 * are kept until the consumer calls the deleter. Shape and strides are in
 * elements (C order). */
PyObject *
MakeDLPackCapsule(unsigned long long             pointer,
                  int                            device,
                  const std::vector<long long> & shape,
                  const std::string &            typestr,
                  bool                           versioned,
                  bool                           readOnly,
                  PyObject *                     owner,
                  std::shared_ptr<const void>    hold);
#endif

/** Consume a DLPack capsule: returns (pointer, device_type, device_id,
 * shape, strides or None, typestr, read_only, owner); `owner` releases the
 * tensor (calls its deleter) when it is destroyed. */
PyObject *
ConsumeDLPackCapsule(PyObject * capsule);
} // namespace python
} // namespace itk

#endif
