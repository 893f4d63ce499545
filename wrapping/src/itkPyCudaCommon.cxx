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
#include "itkPyCudaCommon.h"

#include "itkCudaMemoryBackend.h"
#include "itkCudaUtil.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <cstdlib>
#include <sstream>
#include <tuple>

namespace itk
{
namespace python
{
namespace
{
cudaStream_t
StreamFromInteger(unsigned long long stream)
{
  if (stream == 1)
  {
    return cudaStreamLegacy;
  }
  if (stream == 2)
  {
    return cudaStreamPerThread;
  }
  return reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(stream));
}


/** An interned Python string, made once. */
PyObject *
Interned(const char * text)
{
  return PyUnicode_InternFromString(text);
}

/** The CUDA Array Interface's "descr" for a type string, made once per type. */
PyObject *
Descr(const char * typestr)
{
  static std::map<std::string, PyObject *> cache; // GIL held: no lock needed
  auto &                                   entry = cache[typestr];
  if (entry == nullptr)
  {
    entry = Py_BuildValue("[(ss)]", "", typestr);
  }
  Py_XINCREF(entry);
  return entry;
}
} // namespace

/** Keeps a Python object alive from C++; the last reference is dropped with the GIL held. */
std::shared_ptr<const void>
KeepAlive(PyObject * owner)
{
  if (owner == nullptr || owner == Py_None)
  {
    return nullptr;
  }
  Py_INCREF(owner);
  return std::shared_ptr<const void>(owner, [](const void * object) {
    if (Py_IsInitialized())
    {
      const PyGILState_STATE state = PyGILState_Ensure();
      Py_DECREF(const_cast<PyObject *>(static_cast<const PyObject *>(object)));
      PyGILState_Release(state);
    }
  });
}

namespace
{
/** What a CudaImage's Python object keeps of its exports (in a capsule
 * attribute): the holds, one per allocation, and the last interface. */
struct ProxyExports
{
  std::vector<std::shared_ptr<const void>> Holds;
  PyObject *                               Interface{ nullptr };
  const void *                             Pointer{ nullptr };
  cudaStream_t                             Stream{ nullptr };
  std::vector<long long>                   Shape;

  ~ProxyExports() { Py_XDECREF(Interface); }
};

const char proxyExportsName[] = "cudacommon.proxy_exports";

void
DeleteProxyExports(PyObject * capsule)
{
  delete static_cast<ProxyExports *>(PyCapsule_GetPointer(capsule, proxyExportsName));
}

/** The exports of `proxy`, made on first use; nullptr with a Python error set. */
ProxyExports *
ExportsOf(PyObject * proxy)
{
  static PyObject * key = Interned("_cuda_exports");
  PyObject *        capsule = PyObject_GetAttr(proxy, key);
  if (capsule == nullptr)
  {
    PyErr_Clear();
    auto * exports = new ProxyExports;
    capsule = PyCapsule_New(exports, proxyExportsName, &DeleteProxyExports);
    if (capsule == nullptr)
    {
      delete exports;
      return nullptr;
    }
    if (PyObject_SetAttr(proxy, key, capsule) < 0)
    {
      Py_DECREF(capsule);
      return nullptr;
    }
  }
  auto * exports = static_cast<ProxyExports *>(PyCapsule_GetPointer(capsule, proxyExportsName));
  Py_DECREF(capsule); // the proxy's attribute keeps it
  return exports;
}

PyObject *
BuildCudaArrayInterface(const CudaGPUBufferExport & view, const std::vector<long long> & shape, const char * typestr)
{
  static PyObject * shapeKey = Interned("shape");
  static PyObject * typestrKey = Interned("typestr");
  static PyObject * descrKey = Interned("descr");
  static PyObject * dataKey = Interned("data");
  static PyObject * versionKey = Interned("version");
  static PyObject * stridesKey = Interned("strides");
  static PyObject * streamKey = Interned("stream");

  PyObject * shapeTuple = PyTuple_New(static_cast<Py_ssize_t>(shape.size()));
  if (shapeTuple == nullptr)
  {
    return nullptr;
  }
  for (size_t d = 0; d < shape.size(); ++d)
  {
    PyTuple_SetItem(shapeTuple, static_cast<Py_ssize_t>(d), PyLong_FromLongLong(shape[d]));
  }
  PyObject * values[] = {
    shapeTuple,
    PyUnicode_FromString(typestr),
    Descr(typestr),
    Py_BuildValue("(KO)", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(view.Pointer)), Py_False),
    PyLong_FromLong(3),
    (Py_INCREF(Py_None), Py_None),
    view.Pointer == nullptr ? (Py_INCREF(Py_None), Py_None) : PyLong_FromUnsignedLongLong(StreamValue(view.Stream)),
  };
  PyObject * keys[] = { shapeKey, typestrKey, descrKey, dataKey, versionKey, stridesKey, streamKey };
  PyObject * dict = PyDict_New();
  bool       ok = dict != nullptr;
  for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); ++i)
  {
    ok = ok && values[i] != nullptr && PyDict_SetItem(dict, keys[i], values[i]) == 0;
    Py_XDECREF(values[i]);
  }
  if (!ok)
  {
    Py_XDECREF(dict);
    return nullptr;
  }
  return dict;
}
} // namespace

unsigned long long
StreamValue(cudaStream_t stream)
{
  // Stream values of the array interfaces: 1 is the legacy default stream (0 is not allowed).
  const auto value = reinterpret_cast<uintptr_t>(stream);
  return value == 0 ? 1 : static_cast<unsigned long long>(value);
}

PyObject *
CudaArrayInterfaceOf(const CudaGPUBufferExport & view,
                     const std::vector<long long> & shape,
                     const char *                   typestr,
                     PyObject *                     proxy)
{
  if (view.Pointer == nullptr)
  {
    return BuildCudaArrayInterface(view, shape, typestr);
  }
  if (proxy == nullptr)
  {
    throw std::invalid_argument("the image's Python object is needed to hold its exported buffer");
  }
  ProxyExports * exports = ExportsOf(proxy);
  if (exports == nullptr)
  {
    return nullptr;
  }
  if (exports->Interface != nullptr && exports->Pointer == view.Pointer && exports->Stream == view.Stream &&
      exports->Shape == shape && !exports->Holds.empty() && exports->Holds.back().get() == view.Hold.get())
  {
    return PyDict_Copy(exports->Interface); // the consumer may change its copy
  }
  // A hold's address is its allocation's: one hold per buffer, however often
  // it is exported; the current allocation's is kept last, where the cache
  // check looks.
  const auto held = std::find_if(exports->Holds.begin(), exports->Holds.end(), [&](const auto & hold) {
    return hold.get() == view.Hold.get();
  });
  if (held == exports->Holds.end())
  {
    exports->Holds.push_back(view.Hold);
  }
  else
  {
    std::rotate(held, held + 1, exports->Holds.end());
  }
  PyObject * interface = BuildCudaArrayInterface(view, shape, typestr);
  if (interface == nullptr)
  {
    return nullptr;
  }
  Py_XDECREF(exports->Interface);
  exports->Interface = interface;
  exports->Pointer = view.Pointer;
  exports->Stream = view.Stream;
  exports->Shape = shape;
  return PyDict_Copy(interface);
}

namespace
{
struct ArrayImageKey
{
  std::string  Typestr;
  unsigned int Components;
  unsigned int Dimension;
  bool
  operator<(const ArrayImageKey & other) const
  {
    return std::tie(Typestr, Components, Dimension) < std::tie(other.Typestr, other.Components, other.Dimension);
  }
};

std::map<ArrayImageKey, ImageFromPointerFunction> &
ArrayImageTypes()
{
  static std::map<ArrayImageKey, ImageFromPointerFunction> types;
  return types;
}

/** A Python int that is not a bool, in [minimum, 2^64). */
bool
IsIntAtLeast(PyObject * value, unsigned long long minimum, unsigned long long & result)
{
  if (value == nullptr || !PyLong_Check(value) || PyBool_Check(value))
  {
    return false;
  }
  result = PyLong_AsUnsignedLongLong(value);
  if (result == static_cast<unsigned long long>(-1) && PyErr_Occurred())
  {
    PyErr_Clear();
    return false;
  }
  return result >= minimum;
}

/** The interface entry `key` (a borrowed reference; nullptr when absent). */
PyObject *
Entry(PyObject * interface, const char * key)
{
  return PyDict_GetItemString(interface, key);
}
} // namespace

void
RegisterArrayImageType(const char * typestr, unsigned int components, unsigned int dimension, ImageFromPointerFunction make)
{
  ArrayImageTypes()[ArrayImageKey{ typestr, components, dimension }] = make;
}

PyObject *
FastImageFromCudaArray(PyObject * array, bool keepAxes, bool isVector)
{
  static PyObject * interfaceName = Interned("__cuda_array_interface__");
  if (keepAxes)
  {
    Py_RETURN_NONE;
  }
  PyObject * interface = PyObject_GetAttr(array, interfaceName);
  if (interface == nullptr)
  {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  // The dictionary stays alive through `array` while it is read (and its
  // entries through it); released on every path below.
  std::unique_ptr<PyObject, void (*)(PyObject *)> interfaceReference(interface, [](PyObject * o) { Py_DECREF(o); });
  if (!PyDict_CheckExact(interface))
  {
    Py_RETURN_NONE;
  }
  unsigned long long version = 0;
  PyObject *         shape = Entry(interface, "shape");
  PyObject *         typestr = Entry(interface, "typestr");
  PyObject *         data = Entry(interface, "data");
  PyObject *         strides = Entry(interface, "strides");
  PyObject *         mask = Entry(interface, "mask");
  PyObject *         stream = Entry(interface, "stream");
  if (!IsIntAtLeast(Entry(interface, "version"), 0, version) || version > 3 || shape == nullptr ||
      !PyTuple_CheckExact(shape) || typestr == nullptr || !PyUnicode_Check(typestr) || data == nullptr ||
      !PyTuple_CheckExact(data) || PyTuple_Size(data) != 2 || PyTuple_GetItem(data, 1) != Py_False ||
      (mask != nullptr && mask != Py_None))
  {
    Py_RETURN_NONE;
  }
  unsigned long long pointer = 0;
  unsigned long long streamValue = 0;
  if (!IsIntAtLeast(PyTuple_GetItem(data, 0), 1, pointer) ||
      (stream != nullptr && stream != Py_None && !IsIntAtLeast(stream, 1, streamValue)))
  {
    Py_RETURN_NONE;
  }
  const Py_ssize_t                axes = PyTuple_Size(shape);
  std::vector<unsigned long long> extents(static_cast<size_t>(axes));
  for (Py_ssize_t a = 0; a < axes; ++a)
  {
    if (!IsIntAtLeast(PyTuple_GetItem(shape, a), 1, extents[a]) || extents[a] >= (1ULL << 63))
    {
      Py_RETURN_NONE;
    }
  }
  const char * type = PyUnicode_AsUTF8AndSize(typestr, nullptr);
  if (type == nullptr)
  {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  const unsigned int components = isVector && axes > 0 ? static_cast<unsigned int>(extents.back()) : 1;
  const Py_ssize_t   spatial = isVector ? axes - 1 : axes;
  const auto         found = ArrayImageTypes().find(ArrayImageKey{ type, components, static_cast<unsigned int>(spatial) });
  if (spatial < 1 || found == ArrayImageTypes().end())
  {
    Py_RETURN_NONE;
  }
  if (strides != nullptr && strides != Py_None)
  {
    // Only C order is taken here (the item size is the typestr's digits).
    if (!PyTuple_CheckExact(strides) || PyTuple_Size(strides) != axes)
    {
      Py_RETURN_NONE;
    }
    unsigned long long step = std::strtoull(type + 2, nullptr, 10);
    for (Py_ssize_t a = axes; a-- > 0;)
    {
      PyObject * given = PyTuple_GetItem(strides, a);
      if (!PyLong_Check(given) || PyBool_Check(given))
      {
        Py_RETURN_NONE;
      }
      const long long value = PyLong_AsLongLong(given);
      if (value == -1 && PyErr_Occurred())
      {
        PyErr_Clear();
        Py_RETURN_NONE;
      }
      if (extents[a] > 1 && static_cast<unsigned long long>(value) != step)
      {
        Py_RETURN_NONE;
      }
      step *= extents[a];
    }
  }
  try
  {
    DeviceOfPointer(pointer);
  }
  catch (const std::invalid_argument &)
  {
    Py_RETURN_NONE; // not device memory: the Python function says so
  }
  std::vector<unsigned long long> size;
  if (isVector)
  {
    size.assign(extents.rbegin() + 1, extents.rend());
  }
  else
  {
    size.assign(extents.rbegin(), extents.rend());
  }
  PyObject * image = found->second(pointer, size, array);
  if (image != nullptr && streamValue > 1)
  {
    LegacyStreamWaitFor(streamValue); // our work must follow the producer's
  }
  return image;
}

PyObject *
TransferStatisticsDict(const CudaTransferStatistics & s)
{
  return Py_BuildValue("{sKsKsKsKsKsK}",
                       "HostToDeviceCount",
                       static_cast<unsigned long long>(s.HostToDeviceCount),
                       "HostToDeviceBytes",
                       static_cast<unsigned long long>(s.HostToDeviceBytes),
                       "DeviceToHostCount",
                       static_cast<unsigned long long>(s.DeviceToHostCount),
                       "DeviceToHostBytes",
                       static_cast<unsigned long long>(s.DeviceToHostBytes),
                       "PeerCount",
                       static_cast<unsigned long long>(s.PeerCount),
                       "PeerBytes",
                       static_cast<unsigned long long>(s.PeerBytes));
}

bool
IsCudaAvailable()
{
  return itk::IsCudaAvailable();
}

std::string
CudaUnavailableReason()
{
  return itk::CudaUnavailableReason();
}

int
CurrentDevice()
{
  int device = 0;
  if (itk::IsCudaAvailable() && cudaGetDevice(&device) != cudaSuccess)
  {
    cudaGetLastError();
    device = 0;
  }
  return device;
}

void
SetCurrentDevice(int device)
{
  const int count = DeviceCount();
  if (device < 0 || device >= count)
  {
    throw std::invalid_argument("invalid CUDA device " + std::to_string(device) + ": expected an index in [0, " +
                                std::to_string(count) + ")");
  }
  CUDA_CHECK(cudaSetDevice(device));
}

int
DefaultDevice()
{
  return itk::CudaGetDefaultDevice();
}

int
DeviceCount()
{
  std::vector<cudaDeviceProp> devices;
  return itk::CudaGetAvailableDevices(devices);
}

bool
ParseDLPackArguments(PyObject *  stream,
                     PyObject *  maxVersion,
                     PyObject *  dlDevice,
                     PyObject *  copy,
                     long long * streamValue,
                     bool *      versioned,
                     int *       requestedDevice)
{
  *requestedDevice = -1;
  if (copy != nullptr && copy != Py_None)
  {
    const int wanted = PyObject_IsTrue(copy);
    if (wanted < 0)
    {
      return false;
    }
    if (wanted == 1)
    {
      PyErr_SetString(PyExc_BufferError, "copy=True: CudaImage exports its device buffer without copying");
      return false;
    }
  }
  if (dlDevice != nullptr && dlDevice != Py_None)
  {
    int type = -1;
    int index = -1;
    PyObject * tuple = PySequence_Tuple(dlDevice);
    const bool parsed = tuple != nullptr && PyArg_ParseTuple(tuple, "ii", &type, &index);
    Py_XDECREF(tuple);
    if (!parsed)
    {
      PyErr_Clear();
      PyErr_SetString(PyExc_BufferError, "dl_device: expected a (device type, device id) pair");
      return false;
    }
    if (type != 2 || index < 0)
    {
      PyErr_Format(PyExc_BufferError, "dl_device (%d, %d) requested; the image is on a CUDA device (2, ...)", type,
                   index);
      return false;
    }
    *requestedDevice = index;
  }
  *streamValue = 1; // None: the legacy default stream
  if (stream != nullptr && stream != Py_None)
  {
    const long long value = PyLong_Check(stream) && !PyBool_Check(stream) ? PyLong_AsLongLong(stream) : 0;
    if (value == 0 || (value == -1 && PyErr_Occurred() != nullptr))
    {
      PyErr_Clear();
      PyObject *   text = PyObject_Repr(stream);
      const char * shown = text != nullptr ? PyUnicode_AsUTF8AndSize(text, nullptr) : nullptr;
      PyErr_Clear();
      PyErr_Format(PyExc_ValueError, "stream: expected None, -1, 1, 2 or a CUDA stream handle, got %s",
                   shown != nullptr ? shown : "an object without repr");
      Py_XDECREF(text);
      return false;
    }
    *streamValue = value;
  }
  *versioned = false;
  if (maxVersion != nullptr && maxVersion != Py_None)
  {
    PyObject * major = PySequence_GetItem(maxVersion, 0);
    const long value = major != nullptr ? PyLong_AsLong(major) : -1;
    Py_XDECREF(major);
    if (PyErr_Occurred() != nullptr)
    {
      PyErr_Clear();
      PyErr_SetString(PyExc_ValueError, "max_version: expected a (major, minor) pair of integers");
      return false;
    }
    *versioned = value >= 1;
  }
  return true;
}

void
LegacyStreamWaitFor(unsigned long long stream)
{
  if (stream == 0 || stream == 1 || !itk::IsCudaAvailable())
  {
    return;
  }
  itk::CudaStreamWaitFor(cudaStreamLegacy, StreamFromInteger(stream));
}

void
StreamWaitFor(unsigned long long waiter, unsigned long long producer)
{
  if (waiter == 0 || producer == 0 || waiter == producer || !itk::IsCudaAvailable())
  {
    return;
  }
  itk::CudaStreamWaitFor(StreamFromInteger(waiter), StreamFromInteger(producer));
}

int
DeviceOfPointer(unsigned long long pointer)
{
  // Through the memory backend (the CUDA runtime's cudaPointerGetAttributes;
  // the emulated backend's allocations in tests).
  const auto backend = CudaMemoryBackend::GetDefault();
  if (!backend->IsDeviceAvailable())
  {
    throw std::runtime_error("no CUDA device is available (" + itk::CudaUnavailableReason() + ")");
  }
  int device = -1;
  if (backend->GetPointerDevice(reinterpret_cast<const void *>(static_cast<uintptr_t>(pointer)), &device) !=
      cudaSuccess)
  {
    std::ostringstream message;
    message << "data: 0x" << std::hex << pointer << " is not CUDA device memory";
    throw std::invalid_argument(message.str());
  }
  return device;
}

} // namespace python
} // namespace itk
