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

#include <cstdint>
#include <stdexcept>

// DLPack's C ABI (https://dmlc.github.io/dlpack/latest/c_api.html), declared
// here from the specification so that no header needs to be installed.
namespace
{
enum DLDeviceKind : int32_t
{
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLCUDAManaged = 13
};
enum DLTypeCode : uint8_t
{
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2
};
struct DLDevice
{
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType
{
  uint8_t  code;
  uint8_t  bits;
  uint16_t lanes;
};
struct DLTensor
{
  void *     data;
  DLDevice   device;
  int32_t    ndim;
  DLDataType dtype;
  int64_t *  shape;
  int64_t *  strides;
  uint64_t   byte_offset;
};
struct DLManagedTensor
{
  DLTensor dl_tensor;
  void *   manager_ctx;
  void (*deleter)(DLManagedTensor * self);
};
struct DLPackVersion
{
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersioned
{
  DLPackVersion version;
  void *        manager_ctx;
  void (*deleter)(DLManagedTensorVersioned * self);
  uint64_t flags;
  DLTensor dl_tensor;
};
constexpr uint64_t DLPACK_FLAG_BITMASK_READ_ONLY = uint64_t{ 1 } << 0;
constexpr uint32_t DLPACK_MAJOR_VERSION = 1;
constexpr uint32_t DLPACK_MINOR_VERSION = 0;

const char * const legacyName = "dltensor";
const char * const versionedName = "dltensor_versioned";

/** What our exported tensors point back to: the shape arrays and the owner. */
struct ExportContext
{
  std::vector<int64_t>        Shape;
  std::vector<int64_t>        Strides;
  PyObject *                  Owner;
  std::shared_ptr<const void> Hold; // keeps the device buffer in place (CudaGPUBufferExport)
};

void
ReleaseOwner(PyObject * owner)
{
  if (owner != nullptr && Py_IsInitialized())
  {
    const PyGILState_STATE state = PyGILState_Ensure();
    Py_DECREF(owner);
    PyGILState_Release(state);
  }
}

template <typename TManaged>
void
DeleteExported(TManaged * self)
{
  auto * context = static_cast<ExportContext *>(self->manager_ctx);
  ReleaseOwner(context->Owner);
  delete context;
  delete self;
}

// A capsule nobody consumed still owns its tensor.
void
LegacyCapsuleDestructor(PyObject * capsule)
{
  if (PyCapsule_IsValid(capsule, legacyName))
  {
    auto * managed = static_cast<DLManagedTensor *>(PyCapsule_GetPointer(capsule, legacyName));
    if (managed != nullptr && managed->deleter != nullptr)
    {
      managed->deleter(managed);
    }
  }
}

void
VersionedCapsuleDestructor(PyObject * capsule)
{
  if (PyCapsule_IsValid(capsule, versionedName))
  {
    auto * managed = static_cast<DLManagedTensorVersioned *>(PyCapsule_GetPointer(capsule, versionedName));
    if (managed != nullptr && managed->deleter != nullptr)
    {
      managed->deleter(managed);
    }
  }
}

DLDataType
DataTypeFromTypestr(const std::string & typestr)
{
  if (typestr.size() < 3)
  {
    throw std::invalid_argument("typestr '" + typestr + "' is not of the form <f4");
  }
  const char kind = typestr[1];
  const int  bytes = std::stoi(typestr.substr(2));
  DLDataType type{ 0, static_cast<uint8_t>(bytes * 8), 1 };
  switch (kind)
  {
    case 'f':
      type.code = kDLFloat;
      break;
    case 'i':
      type.code = kDLInt;
      break;
    case 'u':
      type.code = kDLUInt;
      break;
    default:
      throw std::invalid_argument("typestr '" + typestr + "' has no DLPack equivalent");
  }
  return type;
}

std::string
TypestrFromDataType(const DLDataType & type)
{
  if (type.lanes != 1)
  {
    throw std::invalid_argument("dtype: " + std::to_string(type.lanes) + " lanes are not supported, expected 1");
  }
  if (type.bits % 8 != 0 || type.bits == 0)
  {
    throw std::invalid_argument("dtype: " + std::to_string(type.bits) + " bits is not a whole number of bytes");
  }
  char kind = 0;
  switch (type.code)
  {
    case kDLFloat:
      kind = 'f';
      break;
    case kDLInt:
      kind = 'i';
      break;
    case kDLUInt:
      kind = 'u';
      break;
    default:
      throw std::invalid_argument("dtype: DLPack type code " + std::to_string(type.code) +
                                  " is not supported (int, uint, float only)");
  }
  const int bytes = type.bits / 8;
  return std::string(bytes == 1 ? "|" : "<") + kind + std::to_string(bytes);
}

/** What a consumed capsule becomes: the tensor, released when this capsule goes. */
struct ImportedTensor
{
  void * Managed;
  bool   Versioned;
};

void
ImportedTensorDestructor(PyObject * capsule)
{
  auto * imported = static_cast<ImportedTensor *>(PyCapsule_GetPointer(capsule, "cudacommon.dlpack_tensor"));
  if (imported == nullptr)
  {
    PyErr_Clear();
    return;
  }
  if (imported->Versioned)
  {
    auto * managed = static_cast<DLManagedTensorVersioned *>(imported->Managed);
    if (managed->deleter != nullptr)
    {
      managed->deleter(managed);
    }
  }
  else
  {
    auto * managed = static_cast<DLManagedTensor *>(imported->Managed);
    if (managed->deleter != nullptr)
    {
      managed->deleter(managed);
    }
  }
  delete imported;
}
} // namespace

namespace itk
{
namespace python
{
PyObject *
MakeDLPackCapsule(unsigned long long             pointer,
                  int                            device,
                  const std::vector<long long> & shape,
                  const std::string &            typestr,
                  bool                           versioned,
                  bool                           readOnly,
                  PyObject *                     owner,
                  std::shared_ptr<const void>    hold)
{
  auto * context = new ExportContext{ std::vector<int64_t>(shape.begin(), shape.end()),
                                      std::vector<int64_t>(shape.size(), 1),
                                      owner,
                                      std::move(hold) };
  for (size_t d = shape.size(); d-- > 1;)
  {
    context->Strides[d - 1] = context->Strides[d] * context->Shape[d];
  }
  DLTensor tensor{ reinterpret_cast<void *>(static_cast<uintptr_t>(pointer)),
                   DLDevice{ kDLCUDA, device },
                   static_cast<int32_t>(shape.size()),
                   DLDataType{},
                   context->Shape.data(),
                   context->Strides.data(),
                   0 };
  try
  {
    tensor.dtype = DataTypeFromTypestr(typestr);
  }
  catch (...)
  {
    delete context;
    throw;
  }
  Py_XINCREF(owner);
  PyObject * capsule = nullptr;
  if (versioned)
  {
    auto * managed = new DLManagedTensorVersioned{ DLPackVersion{ DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION },
                                                   context,
                                                   &DeleteExported<DLManagedTensorVersioned>,
                                                   readOnly ? DLPACK_FLAG_BITMASK_READ_ONLY : 0,
                                                   tensor };
    capsule = PyCapsule_New(managed, versionedName, &VersionedCapsuleDestructor);
    if (capsule == nullptr)
    {
      DeleteExported(managed);
    }
  }
  else
  {
    auto * managed = new DLManagedTensor{ tensor, context, &DeleteExported<DLManagedTensor> };
    capsule = PyCapsule_New(managed, legacyName, &LegacyCapsuleDestructor);
    if (capsule == nullptr)
    {
      DeleteExported(managed);
    }
  }
  return capsule;
}

PyObject *
ConsumeDLPackCapsule(PyObject * capsule)
{
  const bool versioned = PyCapsule_IsValid(capsule, versionedName);
  if (!versioned && !PyCapsule_IsValid(capsule, legacyName))
  {
    throw std::invalid_argument("__dlpack__ did not return an unconsumed 'dltensor' or 'dltensor_versioned' capsule");
  }
  void *     managed = PyCapsule_GetPointer(capsule, versioned ? versionedName : legacyName);
  DLTensor * tensor = nullptr;
  bool       readOnly = false;
  if (versioned)
  {
    auto * v = static_cast<DLManagedTensorVersioned *>(managed);
    if (v->version.major != DLPACK_MAJOR_VERSION)
    {
      throw std::invalid_argument("DLPack version " + std::to_string(v->version.major) + "." +
                                  std::to_string(v->version.minor) + " is not supported, expected 1.x");
    }
    tensor = &v->dl_tensor;
    readOnly = (v->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
  }
  else
  {
    tensor = &static_cast<DLManagedTensor *>(managed)->dl_tensor;
  }
  const std::string typestr = TypestrFromDataType(tensor->dtype);

  // From here on the tensor is ours: mark the capsule used, wrap the release.
  PyCapsule_SetName(capsule, versioned ? "used_dltensor_versioned" : "used_dltensor");
  PyObject * owner = PyCapsule_New(new ImportedTensor{ managed, versioned }, "cudacommon.dlpack_tensor",
                                   &ImportedTensorDestructor);
  if (owner == nullptr)
  {
    return nullptr;
  }
  PyObject * shape = PyTuple_New(tensor->ndim);
  for (int32_t d = 0; d < tensor->ndim; ++d)
  {
    PyTuple_SetItem(shape, d, PyLong_FromLongLong(tensor->shape[d]));
  }
  PyObject * strides = Py_None;
  if (tensor->strides != nullptr)
  {
    strides = PyTuple_New(tensor->ndim);
    for (int32_t d = 0; d < tensor->ndim; ++d)
    {
      PyTuple_SetItem(strides, d, PyLong_FromLongLong(tensor->strides[d]));
    }
  }
  else
  {
    Py_INCREF(Py_None);
  }
  const auto address = reinterpret_cast<uintptr_t>(tensor->data) + tensor->byte_offset;
  return Py_BuildValue("(KiiNNsON)",
                       static_cast<unsigned long long>(address),
                       static_cast<int>(tensor->device.device_type),
                       static_cast<int>(tensor->device.device_id),
                       shape,
                       strides,
                       typestr.c_str(),
                       readOnly ? Py_True : Py_False,
                       owner);
}
} // namespace python
} // namespace itk
