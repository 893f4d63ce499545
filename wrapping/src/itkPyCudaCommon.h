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
 * \brief What CudaCommon's WrapITK module adds to the wrapped classes
 * (compiled into _CudaCommonPython; CudaImageInterop.i and CudaDataManager.i
 * call it): the array interfaces of a CudaImage with their export holds,
 * DLPack, images over device memory, and device queries.
 * \ingroup CudaCommon
 */

#include <Python.h>

#include "itkCudaImage.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace itk
{
namespace python
{
/** A new T for Python: one reference, released by the proxy's destructor. */
template <typename T>
T *
NewReference()
{
  typename T::Pointer object = T::New();
  object->Register();
  return object.GetPointer();
}

/** Type string of one pixel component, in the array interfaces' notation. */
template <typename TComponent>
constexpr const char *
Typestr()
{
  if constexpr (std::is_floating_point_v<TComponent>)
  {
    return sizeof(TComponent) == 4 ? "<f4" : "<f8";
  }
  else if constexpr (sizeof(TComponent) == 1)
  {
    return std::is_signed_v<TComponent> ? "|i1" : "|u1";
  }
  else if constexpr (std::is_signed_v<TComponent>)
  {
    return sizeof(TComponent) == 2 ? "<i2" : (sizeof(TComponent) == 4 ? "<i4" : "<i8");
  }
  else
  {
    return sizeof(TComponent) == 2 ? "<u2" : (sizeof(TComponent) == 4 ? "<u4" : "<u8");
  }
}

/** Shape of an image in C order (slowest axis first), the component axis last. */
template <typename TImage>
std::vector<long long>
ArrayShape(const TImage * image)
{
  using Traits = NumericTraits<typename TImage::PixelType>;
  const auto             size = image->GetBufferedRegion().GetSize();
  std::vector<long long> shape;
  for (unsigned int d = TImage::ImageDimension; d-- > 0;)
  {
    shape.push_back(static_cast<long long>(size[d]));
  }
  const unsigned int components = Traits::GetLength(typename TImage::PixelType{});
  if (components > 1)
  {
    shape.push_back(components);
  }
  return shape;
}

void
StreamWaitFor(unsigned long long waiter, unsigned long long producer);

/** The CUDA Array Interface (version 3) dictionary of an exported device
 * buffer (an empty image: `view` without pointer), a new reference or nullptr
 * with a Python error set. The export's hold is kept on the Python object
 * `proxy`, once per allocation (the consumer of a view keeps the object, not
 * a hold), with the last dictionary: asked again for the same buffer, shape
 * and stream, the interface is a copy of it. */
PyObject *
CudaArrayInterfaceOf(const CudaGPUBufferExport & view,
                     const std::vector<long long> & shape,
                     const char *                   typestr,
                     PyObject *                     proxy);

/** `image.__cuda_array_interface__`: GPU copy made current, CPU copy stale
 * (the consumer may write), the device buffer held by `proxy`. */
template <typename TImage>
PyObject *
CudaArrayInterface(TImage * image, PyObject * proxy)
{
  using Component = typename NumericTraits<typename TImage::PixelType>::ValueType;
  const auto shape = ArrayShape(image);
  if (image->GetBufferedRegion().GetNumberOfPixels() == 0)
  {
    return CudaArrayInterfaceOf(CudaGPUBufferExport{}, shape, Typestr<Component>(), proxy);
  }
  return CudaArrayInterfaceOf(image->GetDataManager()->ExportGPUBuffer(true), shape, Typestr<Component>(), proxy);
}

/** A DLPack capsule of the device buffer (see itkPyDLPack.cxx). */
PyObject *
MakeDLPackCapsule(unsigned long long             pointer,
                  int                            device,
                  const std::vector<long long> & shape,
                  const std::string &            typestr,
                  bool                           versioned,
                  bool                           readOnly,
                  PyObject *                     owner,
                  std::shared_ptr<const void>    hold);

/** An array-interface stream value (1: legacy default stream) of a stream. */
unsigned long long
StreamValue(cudaStream_t stream);

/** The arguments of `__dlpack__(stream=, max_version=, dl_device=, copy=)`
 * checked as the DLPack protocol asks (BufferError, ValueError: a Python
 * error is set and false returned): the stream value to wait on (-1: none;
 * 1: the legacy default stream, also for None), whether the capsule is
 * versioned, and the CUDA device index dl_device asks for (-1: none). */
bool
ParseDLPackArguments(PyObject *  stream,
                     PyObject *  maxVersion,
                     PyObject *  dlDevice,
                     PyObject *  copy,
                     long long * streamValue,
                     bool *      versioned,
                     int *       requestedDevice);

/** `image.__dlpack__(...)` in one call (nullptr with a Python error set on a
 * bad argument or an empty image): GPU copy made current, CPU copy stale; the
 * capsule keeps `proxy` and the buffer alive until the consumer releases the
 * tensor; the consumer's stream (unless -1) waits for the image's. */
template <typename TImage>
PyObject *
DLPackOf(TImage * image, PyObject * proxy, PyObject * stream, PyObject * maxVersion, PyObject * dlDevice, PyObject * copy)
{
  using Component = typename NumericTraits<typename TImage::PixelType>::ValueType;
  long long streamValue = 1;
  bool      versioned = false;
  int       requestedDevice = -1;
  if (!ParseDLPackArguments(stream, maxVersion, dlDevice, copy, &streamValue, &versioned, &requestedDevice))
  {
    return nullptr;
  }
  auto * manager = image->GetDataManager();
  if (requestedDevice >= 0 && requestedDevice != manager->GetDevice())
  {
    PyErr_Format(PyExc_BufferError, "dl_device (2, %d) requested; the image is on (2, %d)", requestedDevice,
                 manager->GetDevice());
    return nullptr;
  }
  if (image->GetBufferedRegion().GetNumberOfPixels() == 0)
  {
    PyErr_SetString(PyExc_BufferError, "the image has no pixels (set its regions and allocate it first)");
    return nullptr;
  }
  CudaGPUBufferExport view = manager->ExportGPUBuffer(true);
  if (streamValue != -1)
  {
    StreamWaitFor(static_cast<unsigned long long>(streamValue), StreamValue(view.Stream));
  }
  return MakeDLPackCapsule(reinterpret_cast<uintptr_t>(view.Pointer),
                           view.Device,
                           ArrayShape(image),
                           Typestr<Component>(),
                           versioned,
                           false,
                           proxy,
                           std::move(view.Hold));
}

/** Keeps a Python object alive from C++; the last reference is dropped with the GIL held. */
std::shared_ptr<const void>
KeepAlive(PyObject * owner);

/** A new image over `pointer`, device memory of the image's size that `owner`
 * keeps valid: the GPU copy is current, a CPU buffer is allocated when the
 * host first reads. `size` is ITK's (fastest axis first). */
template <typename TImage>
TImage *
ImageFromDevicePointer(unsigned long long pointer, const std::vector<unsigned long long> & size, PyObject * owner)
{
  if (pointer == 0)
  {
    throw std::invalid_argument("data: the device pointer is null");
  }
  if (size.size() != TImage::ImageDimension)
  {
    throw std::invalid_argument("size: expected " + std::to_string(TImage::ImageDimension) + " values, got " +
                                std::to_string(size.size()));
  }
  typename TImage::SizeType itkSize;
  for (unsigned int d = 0; d < TImage::ImageDimension; ++d)
  {
    itkSize[d] = static_cast<SizeValueType>(size[d]);
  }
  TImage * image = NewReference<TImage>();
  try
  {
    image->SetRegions(itkSize);
    auto *       manager = image->GetDataManager();
    const size_t pixels = image->GetBufferedRegion().GetNumberOfPixels();
    manager->AdoptGPUBuffer(reinterpret_cast<void *>(static_cast<uintptr_t>(pointer)),
                            pixels * sizeof(typename TImage::PixelType),
                            KeepAlive(owner));
  }
  catch (...)
  {
    image->UnRegister();
    throw;
  }
  return image;
}

/** Makes the Python object of a new image over device memory (see
 * ImageFromDevicePointer()); defined per type in the SWIG module. */
using ImageFromPointerFunction = PyObject * (*)(unsigned long long                      pointer,
                                                const std::vector<unsigned long long> & size,
                                                PyObject *                              owner);

/** Make `make` the image type FastImageFromCudaArray() picks for arrays of
 * `typestr` values with `components` per pixel (1: scalars) in `dimension`
 * dimensions. */
void
RegisterArrayImageType(const char * typestr, unsigned int components, unsigned int dimension, ImageFromPointerFunction make);

template <typename TImage>
void
RegisterArrayImageType(ImageFromPointerFunction make)
{
  using Pixel = typename TImage::PixelType;
  using Component = typename NumericTraits<Pixel>::ValueType;
  RegisterArrayImageType(Typestr<Component>(), NumericTraits<Pixel>::GetLength(Pixel{}), TImage::ImageDimension, make);
}

/** itk.cuda_image_from_cuda_array(array) in one call for the common case: a
 * __cuda_array_interface__ dictionary with a C-contiguous layout of a
 * registered type on device memory (keep_axes false). Py_None for anything
 * else: the Python function then checks everything and says what is wrong. */
PyObject *
FastImageFromCudaArray(PyObject * array, bool keepAxes, bool isVector);

/** Statistics of a data manager's copies, as a dict
 * ({'HostToDeviceCount': ..., 'HostToDeviceBytes': ..., ...}). */
PyObject *
TransferStatisticsDict(const CudaTransferStatistics & statistics);

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
/** Make stream `waiter` wait for the work queued so far on stream
 * `producer`. Stream values as in the array interfaces: 1 legacy default,
 * 2 per-thread default, else a handle. */
void
StreamWaitFor(unsigned long long waiter, unsigned long long producer);
/** Device of a device pointer; std::invalid_argument when `pointer` is not
 * device (or managed) memory. */
int
DeviceOfPointer(unsigned long long pointer);

/** Consume a DLPack capsule: returns (pointer, device_type, device_id,
 * shape, strides or None, typestr, read_only, owner); `owner` releases the
 * tensor (calls its deleter) when it is destroyed. */
PyObject *
ConsumeDLPackCapsule(PyObject * capsule);
} // namespace python
} // namespace itk

#endif
