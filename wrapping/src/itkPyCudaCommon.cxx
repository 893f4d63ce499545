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

#include "itkCudaUtil.h"
#include "itkObjectFactoryBase.h"
#include "itkSingleton.h"

#include <map>
#include <mutex>
#include <sstream>

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

const char exportCapsuleName[] = "cudacommon.gpu_buffer_hold";

void
DeleteHoldCapsule(PyObject * capsule)
{
  delete static_cast<std::shared_ptr<const void> *>(PyCapsule_GetPointer(capsule, exportCapsuleName));
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

bool
AdoptWheelGlobals()
{
  // The wheel's ITKCommon module exports its SingletonIndex through a capsule
  // (as ITK's own modules of a static build adopt it); `import itk` alone is
  // lazy and does not load that module.
  PyObject * common = PyImport_ImportModule("itk._ITKCommonPython");
  if (common == nullptr)
  {
    return false;
  }
  Py_DECREF(common);
  // The capsule holds a table of functions; entry 0 returns the SingletonIndex.
  auto ** table = static_cast<void **>(PyCapsule_Import("itk._ITKCommonPython._C_API", 0));
  if (table == nullptr || table[0] == nullptr)
  {
    if (!PyErr_Occurred())
    {
      PyErr_SetString(PyExc_ImportError, "itk._ITKCommonPython._C_API holds no SingletonIndex");
    }
    return false;
  }
  using GetIndexFunction = SingletonIndex * (*)();
  SingletonIndex::SetInstance(reinterpret_cast<GetIndexFunction>(table[0])());
  ObjectFactoryBase::Initialize();
  return true;
}

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

void
KeepExportOnProxy(PyObject * proxy, std::shared_ptr<const void> hold)
{
  if (hold == nullptr)
  {
    return;
  }
  static PyObject * key = Interned("_cuda_exports");
  PyObject *        holds = PyObject_GetAttr(proxy, key);
  if (holds == nullptr)
  {
    PyErr_Clear();
    holds = PyList_New(0);
    if (holds == nullptr || PyObject_SetAttr(proxy, key, holds) < 0)
    {
      Py_XDECREF(holds);
      throw std::runtime_error("cannot keep the exported device buffer on the image's Python object");
    }
  }
  // A hold's address is its allocation's: one hold per buffer, however often it is exported.
  const Py_ssize_t count = PyList_GET_SIZE(holds);
  for (Py_ssize_t i = 0; i < count; ++i)
  {
    auto * held = static_cast<std::shared_ptr<const void> *>(
      PyCapsule_GetPointer(PyList_GET_ITEM(holds, i), exportCapsuleName));
    if (held != nullptr && held->get() == hold.get())
    {
      Py_DECREF(holds);
      return;
    }
  }
  auto *     stored = new std::shared_ptr<const void>(std::move(hold));
  PyObject * capsule = PyCapsule_New(stored, exportCapsuleName, &DeleteHoldCapsule);
  if (capsule == nullptr)
  {
    delete stored;
    Py_DECREF(holds);
    throw std::runtime_error("cannot keep the exported device buffer on the image's Python object");
  }
  const int appended = PyList_Append(holds, capsule);
  Py_DECREF(capsule);
  Py_DECREF(holds);
  if (appended < 0)
  {
    throw std::runtime_error("cannot keep the exported device buffer on the image's Python object");
  }
}

PyObject *
MakeCudaArrayInterface(const CudaGPUBufferExport & view, const std::vector<long long> & shape, const char * typestr)
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
    PyTuple_SET_ITEM(shapeTuple, static_cast<Py_ssize_t>(d), PyLong_FromLongLong(shape[d]));
  }
  // Stream values of the interface: 1 is the legacy default stream (0 is not allowed).
  const auto stream = reinterpret_cast<uintptr_t>(view.Stream);
  PyObject * values[] = {
    shapeTuple,
    PyUnicode_FromString(typestr),
    Descr(typestr),
    Py_BuildValue("(KO)", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(view.Pointer)), Py_False),
    PyLong_FromLong(3),
    (Py_INCREF(Py_None), Py_None),
    view.Pointer == nullptr ? (Py_INCREF(Py_None), Py_None)
                            : PyLong_FromUnsignedLongLong(stream == 0 ? 1 : static_cast<unsigned long long>(stream)),
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

PyObject *
TransferStatisticsDict(const CudaDataManager * manager)
{
  const auto s = manager->GetTransferStatistics();
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
  if (!itk::IsCudaAvailable())
  {
    throw std::runtime_error("no CUDA device is available (" + itk::CudaUnavailableReason() + ")");
  }
  cudaPointerAttributes attributes{};
  const cudaError_t     error =
    cudaPointerGetAttributes(&attributes, reinterpret_cast<const void *>(static_cast<uintptr_t>(pointer)));
  if (error != cudaSuccess)
  {
    cudaGetLastError();
  }
  if (error != cudaSuccess ||
      (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged))
  {
    std::ostringstream message;
    message << "data: 0x" << std::hex << pointer << " is not CUDA device memory";
    throw std::invalid_argument(message.str());
  }
  return attributes.device;
}

} // namespace python
} // namespace itk
