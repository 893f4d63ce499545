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

#include <algorithm>

#include "itkCudaImage.h"
#include "itkCudaMemoryProbe.h"
#include "itkCudaSquareImageFilter.h"
#include "itkCudaUtil.h"
#include "itkImportImageContainer.h"
#include "itkVector.h"

#include <sstream>
#include <stdexcept>

namespace itk
{
namespace python
{
namespace
{
template <typename T>
struct Tag
{
  using Type = T;
};

// --- pixel values <-> lists of doubles

template <typename P>
struct PixelConversion
{
  static constexpr unsigned int Components = 1;
  static std::vector<double>
  ToDoubles(const P & p)
  {
    return { static_cast<double>(p) };
  }
  static P
  FromDoubles(const std::vector<double> & v)
  {
    return static_cast<P>(v.at(0));
  }
};

template <typename T, unsigned int N>
struct PixelConversion<Vector<T, N>>
{
  static constexpr unsigned int Components = N;
  static std::vector<double>
  ToDoubles(const Vector<T, N> & p)
  {
    return std::vector<double>(p.Begin(), p.End());
  }
  static Vector<T, N>
  FromDoubles(const std::vector<double> & v)
  {
    Vector<T, N> p;
    for (unsigned int i = 0; i < N; ++i)
    {
      p[i] = static_cast<T>(v[i]);
    }
    return p;
  }
};

// --- the type lists

/** Calls f(Tag<CudaImage<P, D>>) for D in 2..MaximumDimension. */
template <typename P, unsigned int MaximumDimension, typename F>
void
VisitDimension(unsigned int dimension, const std::string & code, F && f)
{
  switch (dimension)
  {
    case 2:
      f(Tag<CudaImage<P, 2>>{});
      return;
    case 3:
      f(Tag<CudaImage<P, 3>>{});
      return;
    case 4:
      if constexpr (MaximumDimension >= 4)
      {
        f(Tag<CudaImage<P, 4>>{});
        return;
      }
      break;
    default:
      break;
  }
  throw std::invalid_argument("dimension " + std::to_string(dimension) + " is not available for pixel type " + code +
                              (MaximumDimension >= 4 ? ": expected 2, 3 or 4" : ": expected 2 or 3"));
}

/** Calls f(Tag<P>) for a scalar pixel code; returns false for another code. */
template <typename F>
bool
VisitScalarPixel(const std::string & code, F && f)
{
  if (code == "UC")
    f(Tag<unsigned char>{});
  else if (code == "SS")
    f(Tag<short>{});
  else if (code == "US")
    f(Tag<unsigned short>{});
  else if (code == "SI")
    f(Tag<int>{});
  else if (code == "UI")
    f(Tag<unsigned int>{});
  else if (code == "UL")
    f(Tag<unsigned long>{});
  else if (code == "F")
    f(Tag<float>{});
  else if (code == "D")
    f(Tag<double>{});
  else
    return false;
  return true;
}

const char * const knownCodes = "UC, SS, US, SI, UI, UL, F, D, VF2, VF3";

template <typename F>
void
VisitImageType(const std::string & code, unsigned int dimension, F && f)
{
  const bool scalar = VisitScalarPixel(code, [&](auto pixel) {
    VisitDimension<typename decltype(pixel)::Type, 4>(dimension, code, f);
  });
  if (scalar)
  {
    return;
  }
  if (code == "VF2")
  {
    VisitDimension<Vector<float, 2>, 3>(dimension, code, f);
  }
  else if (code == "VF3")
  {
    VisitDimension<Vector<float, 3>, 3>(dimension, code, f);
  }
  else
  {
    throw std::invalid_argument("unknown pixel type '" + code + "': expected one of " + knownCodes);
  }
}

template <typename TIndex>
TIndex
ToIndex(const std::vector<long long> & values, unsigned int dimension, const char * what)
{
  if (values.size() != dimension)
  {
    throw std::invalid_argument(std::string(what) + " has " + std::to_string(values.size()) +
                                " values, expected " + std::to_string(dimension));
  }
  TIndex index;
  for (unsigned int d = 0; d < dimension; ++d)
  {
    index[d] = values[d];
  }
  return index;
}

template <typename TArray>
std::vector<double>
ToDoubleVector(const TArray & a, unsigned int n)
{
  std::vector<double> values(n);
  for (unsigned int i = 0; i < n; ++i)
  {
    values[i] = static_cast<double>(a[i]);
  }
  return values;
}

void
CheckLength(const std::vector<double> & values, size_t expected, const char * what)
{
  if (values.size() != expected)
  {
    throw std::invalid_argument(std::string(what) + " has " + std::to_string(values.size()) + " values, expected " +
                                std::to_string(expected));
  }
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

/** A pixel container over memory owned by someone else, kept alive by `m_Owner`. */
template <typename TElement>
class BorrowedImageContainer : public ImportImageContainer<SizeValueType, TElement>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(BorrowedImageContainer);
  using Self = BorrowedImageContainer;
  using Superclass = ImportImageContainer<SizeValueType, TElement>;
  using Pointer = SmartPointer<Self>;
  itkNewMacro(Self);

  std::shared_ptr<const void> m_Owner;

protected:
  BorrowedImageContainer() = default;
  ~BorrowedImageContainer() override = default;
};

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

} // namespace

// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------

template <typename F>
void
CudaImageHandle::Visit(F && f) const
{
  VisitImageType(m_PixelCode, m_Dimension, [&](auto tag) {
    using ImageType = typename decltype(tag)::Type;
    f(static_cast<ImageType *>(m_Image.GetPointer()));
  });
}

CudaImageHandle::CudaImageHandle(const std::string & pixelCode, unsigned int dimension)
  : m_PixelCode(pixelCode)
  , m_Dimension(dimension)
{
  VisitImageType(pixelCode, dimension, [&](auto tag) {
    using ImageType = typename decltype(tag)::Type;
    m_Image = ImageType::New().GetPointer();
  });
}

CudaImageHandle::CudaImageHandle(const std::string & pixelCode, unsigned int dimension, DataObject * image)
  : m_PixelCode(pixelCode)
  , m_Dimension(dimension)
  , m_Image(image)
{
  VisitImageType(pixelCode, dimension, [&](auto tag) {
    using ImageType = typename decltype(tag)::Type;
    if (dynamic_cast<ImageType *>(image) == nullptr)
    {
      throw std::invalid_argument("the image is not a CudaImage of pixel type " + pixelCode);
    }
  });
}

unsigned int
CudaImageHandle::GetNumberOfComponentsPerPixel() const
{
  unsigned int components = 0;
  Visit([&](auto * image) {
    using PixelType = typename std::remove_pointer_t<decltype(image)>::PixelType;
    components = PixelConversion<PixelType>::Components;
  });
  return components;
}

unsigned int
CudaImageHandle::GetComponentSize() const
{
  unsigned int bytes = 0;
  Visit([&](auto * image) {
    using PixelType = typename std::remove_pointer_t<decltype(image)>::PixelType;
    bytes = sizeof(PixelType) / PixelConversion<PixelType>::Components;
  });
  return bytes;
}

void
CudaImageHandle::SetRegions(const std::vector<long long> & index, const std::vector<unsigned long long> & size)
{
  Visit([&](auto * image) {
    using ImageType = std::remove_pointer_t<decltype(image)>;
    typename ImageType::RegionType region;
    region.SetIndex(ToIndex<typename ImageType::IndexType>(index, m_Dimension, "index"));
    if (size.size() != m_Dimension)
    {
      throw std::invalid_argument("size has " + std::to_string(size.size()) + " values, expected " +
                                  std::to_string(m_Dimension));
    }
    typename ImageType::SizeType s;
    for (unsigned int d = 0; d < m_Dimension; ++d)
    {
      s[d] = size[d];
    }
    region.SetSize(s);
    image->SetRegions(region);
  });
}

#define ITK_PY_REGION_GETTERS(Name)                                                                                   \
  std::vector<long long> CudaImageHandle::Get##Name##Index() const                                                    \
  {                                                                                                                    \
    std::vector<long long> values;                                                                                     \
    Visit([&](auto * image) {                                                                                          \
      const auto index = image->Get##Name().GetIndex();                                                                \
      values.assign(index.begin(), index.end());                                                                       \
    });                                                                                                                \
    return values;                                                                                                     \
  }                                                                                                                    \
  std::vector<unsigned long long> CudaImageHandle::Get##Name##Size() const                                            \
  {                                                                                                                    \
    std::vector<unsigned long long> values;                                                                            \
    Visit([&](auto * image) {                                                                                          \
      const auto size = image->Get##Name().GetSize();                                                                  \
      values.assign(size.begin(), size.end());                                                                         \
    });                                                                                                                \
    return values;                                                                                                     \
  }
ITK_PY_REGION_GETTERS(BufferedRegion)
ITK_PY_REGION_GETTERS(LargestPossibleRegion)
ITK_PY_REGION_GETTERS(RequestedRegion)
#undef ITK_PY_REGION_GETTERS

std::vector<double>
CudaImageHandle::GetSpacing() const
{
  std::vector<double> values;
  Visit([&](auto * image) { values = ToDoubleVector(image->GetSpacing(), m_Dimension); });
  return values;
}

void
CudaImageHandle::SetSpacing(const std::vector<double> & spacing)
{
  CheckLength(spacing, m_Dimension, "spacing");
  for (const double s : spacing)
  {
    if (!(s > 0.0))
    {
      throw std::invalid_argument("spacing must be positive, got " + std::to_string(s));
    }
  }
  Visit([&](auto * image) {
    typename std::remove_pointer_t<decltype(image)>::SpacingType value;
    std::copy(spacing.begin(), spacing.end(), value.Begin());
    image->SetSpacing(value);
  });
}

std::vector<double>
CudaImageHandle::GetOrigin() const
{
  std::vector<double> values;
  Visit([&](auto * image) { values = ToDoubleVector(image->GetOrigin(), m_Dimension); });
  return values;
}

void
CudaImageHandle::SetOrigin(const std::vector<double> & origin)
{
  CheckLength(origin, m_Dimension, "origin");
  Visit([&](auto * image) {
    typename std::remove_pointer_t<decltype(image)>::PointType value;
    std::copy(origin.begin(), origin.end(), value.Begin());
    image->SetOrigin(value);
  });
}

std::vector<double>
CudaImageHandle::GetDirection() const
{
  std::vector<double> values;
  Visit([&](auto * image) {
    const auto & direction = image->GetDirection();
    for (unsigned int r = 0; r < m_Dimension; ++r)
    {
      for (unsigned int c = 0; c < m_Dimension; ++c)
      {
        values.push_back(direction[r][c]);
      }
    }
  });
  return values;
}

void
CudaImageHandle::SetDirection(const std::vector<double> & direction)
{
  CheckLength(direction, size_t{ m_Dimension } * m_Dimension, "direction");
  Visit([&](auto * image) {
    typename std::remove_pointer_t<decltype(image)>::DirectionType value;
    for (unsigned int r = 0; r < m_Dimension; ++r)
    {
      for (unsigned int c = 0; c < m_Dimension; ++c)
      {
        value[r][c] = direction[r * m_Dimension + c];
      }
    }
    if (vnl_determinant(value.GetVnlMatrix()) == 0.0)
    {
      throw std::invalid_argument("direction must be an invertible matrix");
    }
    image->SetDirection(value);
  });
}

void
CudaImageHandle::Allocate(bool initializePixels)
{
  Visit([&](auto * image) { image->Allocate(initializePixels); });
}

void
CudaImageHandle::FillBuffer(const std::vector<double> & value)
{
  CheckLength(value, this->GetNumberOfComponentsPerPixel(), "fill value");
  Visit([&](auto * image) {
    using PixelType = typename std::remove_pointer_t<decltype(image)>::PixelType;
    image->FillBuffer(PixelConversion<PixelType>::FromDoubles(value));
  });
}

namespace
{
template <typename TImage>
typename TImage::IndexType
CheckedIndex(const TImage * image, const std::vector<long long> & values)
{
  const auto index = ToIndex<typename TImage::IndexType>(values, TImage::ImageDimension, "index");
  if (!image->GetBufferedRegion().IsInside(index))
  {
    std::ostringstream message;
    message << "index " << index << " is outside the buffered region " << image->GetBufferedRegion().GetIndex()
            << " + " << image->GetBufferedRegion().GetSize();
    throw std::out_of_range(message.str());
  }
  return index;
}
} // namespace

std::vector<double>
CudaImageHandle::GetPixel(const std::vector<long long> & index) const
{
  std::vector<double> value;
  Visit([&](auto * image) {
    using ImageType = std::remove_pointer_t<decltype(image)>;
    const ImageType * constImage = image;
    value = PixelConversion<typename ImageType::PixelType>::ToDoubles(constImage->GetPixel(CheckedIndex(image, index)));
  });
  return value;
}

void
CudaImageHandle::SetPixel(const std::vector<long long> & index, const std::vector<double> & value)
{
  CheckLength(value, this->GetNumberOfComponentsPerPixel(), "pixel value");
  Visit([&](auto * image) {
    using PixelType = typename std::remove_pointer_t<decltype(image)>::PixelType;
    image->SetPixel(CheckedIndex(image, index), PixelConversion<PixelType>::FromDoubles(value));
  });
}

void
CudaImageHandle::UpdateBuffers()
{
  Visit([&](auto * image) { image->UpdateBuffers(); });
}

void
CudaImageHandle::Modified()
{
  m_Image->Modified();
}

unsigned long long
CudaImageHandle::GetCPUBufferPointer(bool writable)
{
  unsigned long long pointer = 0;
  Visit([&](auto * image) {
    using ImageType = std::remove_pointer_t<decltype(image)>;
    const ImageType * constImage = image;
    const void *      buffer = writable ? static_cast<const void *>(image->GetBufferPointer())
                                        : static_cast<const void *>(constImage->GetBufferPointer());
    pointer = reinterpret_cast<uintptr_t>(buffer);
  });
  return pointer;
}

unsigned long long
CudaImageHandle::GetGPUBufferPointer(bool writable)
{
  unsigned long long pointer = 0;
  Visit([&](auto * image) {
    auto         manager = image->GetCudaDataManager();
    const void * buffer = writable ? manager->GetGPUBufferPointer() : manager->GetConstGPUBufferPointer();
    pointer = reinterpret_cast<uintptr_t>(buffer);
  });
  return pointer;
}

unsigned long long
CudaImageHandle::GetBufferSize() const
{
  unsigned long long bytes = 0;
  Visit([&](auto * image) {
    bytes = image->GetBufferedRegion().GetNumberOfPixels() *
            sizeof(typename std::remove_pointer_t<decltype(image)>::PixelType);
  });
  return bytes;
}

int
CudaImageHandle::GetDevice() const
{
  int device = 0;
  Visit([&](auto * image) { device = image->GetCudaDataManager()->GetDevice(); });
  return device;
}

void
CudaImageHandle::SetDevice(int device)
{
  Visit([&](auto * image) { image->GetCudaDataManager()->SetDevice(device); });
}

void
CudaImageHandle::ImportHostBuffer(unsigned long long pointer, PyObject * owner)
{
  if (pointer == 0)
  {
    throw std::invalid_argument("data: the host pointer is null");
  }
  Visit([&](auto * image) {
    using ImageType = std::remove_pointer_t<decltype(image)>;
    using PixelType = typename ImageType::PixelType;
    auto         container = BorrowedImageContainer<PixelType>::New();
    const size_t pixels = image->GetBufferedRegion().GetNumberOfPixels();
    container->SetImportPointer(reinterpret_cast<PixelType *>(static_cast<uintptr_t>(pointer)), pixels, false);
    container->m_Owner = KeepAlive(owner);
    image->SetPixelContainer(container);
  });
}

void
CudaImageHandle::ImportDeviceBuffer(unsigned long long pointer, PyObject * owner)
{
  if (pointer == 0)
  {
    throw std::invalid_argument("data: the device pointer is null");
  }
  Visit([&](auto * image) {
    using ImageType = std::remove_pointer_t<decltype(image)>;
    using PixelType = typename ImageType::PixelType;
    const size_t pixels = image->GetBufferedRegion().GetNumberOfPixels();
    auto *       manager = image->GetDataManager();
    auto *       container = image->ImageType::Superclass::GetPixelContainer();
    manager->SetBufferSize(pixels * sizeof(PixelType));
    manager->SetCPUBufferPointer(container != nullptr && container->Size() == pixels ? container->GetBufferPointer()
                                                                                     : nullptr);
    manager->SetGPUBufferPointer(reinterpret_cast<void *>(static_cast<uintptr_t>(pointer)), KeepAlive(owner));
    manager->SetCPUDirtyFlag(true);
    manager->SetGPUDirtyFlag(false);
  });
}

unsigned long long
CudaImageHandle::GetStream()
{
  unsigned long long stream = 0;
  Visit([&](auto * image) { stream = reinterpret_cast<uintptr_t>(image->GetCudaDataManager()->GetStream()); });
  return stream == 0 ? 1 : stream; // no stream of its own: the legacy default stream
}

unsigned long long
CudaImageHandle::ExportGPUBuffer(bool writable)
{
  CudaGPUBufferExport view;
  Visit([&](auto * image) { view = image->GetCudaDataManager()->ExportGPUBuffer(writable); });
  // A hold's address is its allocation's: one hold per buffer, however often it is exported.
  if (std::none_of(m_Views.begin(), m_Views.end(), [&](const auto & held) { return held.get() == view.Hold.get(); }))
  {
    m_Views.push_back(std::move(view.Hold));
  }
  return reinterpret_cast<uintptr_t>(view.Pointer);
}

PyObject *
CudaImageHandle::MakeDLPackCapsule(const std::vector<long long> & shape,
                                   const std::string &            typestr,
                                   bool                           versioned,
                                   PyObject *                     owner)
{
  CudaGPUBufferExport view;
  Visit([&](auto * image) { view = image->GetCudaDataManager()->ExportGPUBuffer(true); });
  return itk::python::MakeDLPackCapsule(
    reinterpret_cast<uintptr_t>(view.Pointer), view.Device, shape, typestr, versioned, false, owner, view.Hold);
}

CudaDataManagerHandle
CudaImageHandle::GetCudaDataManager() const
{
  CudaDataManagerHandle handle(nullptr);
  Visit([&](auto * image) { handle = CudaDataManagerHandle(image->GetCudaDataManager().GetPointer()); });
  return handle;
}

std::string
CudaImageHandle::ToString() const
{
  std::ostringstream os;
  m_Image->Print(os);
  return os.str();
}

// ---------------------------------------------------------------------------

CudaDataManagerHandle::CudaDataManagerHandle(Object * manager)
  : m_Manager(manager)
{}

#define ITK_PY_MANAGER (static_cast<CudaDataManager *>(m_Manager.GetPointer()))

void
CudaDataManagerHandle::SetCPUDirtyFlag(bool dirty)
{
  ITK_PY_MANAGER->SetCPUDirtyFlag(dirty);
}
void
CudaDataManagerHandle::SetGPUDirtyFlag(bool dirty)
{
  ITK_PY_MANAGER->SetGPUDirtyFlag(dirty);
}
bool
CudaDataManagerHandle::IsCPUBufferDirty() const
{
  return ITK_PY_MANAGER->IsCPUBufferDirty();
}
bool
CudaDataManagerHandle::IsGPUBufferDirty() const
{
  return ITK_PY_MANAGER->IsGPUBufferDirty();
}
void
CudaDataManagerHandle::SetCPUBufferDirty()
{
  ITK_PY_MANAGER->SetCPUBufferDirty();
}
void
CudaDataManagerHandle::SetGPUBufferDirty()
{
  ITK_PY_MANAGER->SetGPUBufferDirty();
}
void
CudaDataManagerHandle::UpdateCPUBuffer()
{
  ITK_PY_MANAGER->UpdateCPUBuffer();
}
void
CudaDataManagerHandle::UpdateGPUBuffer()
{
  ITK_PY_MANAGER->UpdateGPUBuffer();
}
bool
CudaDataManagerHandle::Update()
{
  return ITK_PY_MANAGER->Update();
}
unsigned long long
CudaDataManagerHandle::GetBufferSize() const
{
  return ITK_PY_MANAGER->GetBufferSize();
}
unsigned long long
CudaDataManagerHandle::GetGPUBufferSize() const
{
  return ITK_PY_MANAGER->GetGPUBufferSize();
}
unsigned long long
CudaDataManagerHandle::GetGPUBufferPointer()
{
  return reinterpret_cast<uintptr_t>(ITK_PY_MANAGER->GetGPUBufferPointer());
}
unsigned long long
CudaDataManagerHandle::GetConstGPUBufferPointer()
{
  return reinterpret_cast<uintptr_t>(ITK_PY_MANAGER->GetConstGPUBufferPointer());
}
unsigned long long
CudaDataManagerHandle::GetCPUBufferPointer()
{
  return reinterpret_cast<uintptr_t>(ITK_PY_MANAGER->GetCPUBufferPointer());
}
unsigned long long
CudaDataManagerHandle::GetConstCPUBufferPointer()
{
  return reinterpret_cast<uintptr_t>(ITK_PY_MANAGER->GetConstCPUBufferPointer());
}
bool
CudaDataManagerHandle::GetReleaseDirtyGPUBuffer() const
{
  return ITK_PY_MANAGER->GetReleaseDirtyGPUBuffer();
}
void
CudaDataManagerHandle::SetReleaseDirtyGPUBuffer(bool release)
{
  ITK_PY_MANAGER->SetReleaseDirtyGPUBuffer(release);
}
bool
CudaDataManagerHandle::GetConstCPUAccessReadOnly() const
{
  return ITK_PY_MANAGER->GetConstCPUAccessReadOnly();
}
void
CudaDataManagerHandle::SetConstCPUAccessReadOnly(bool readOnly)
{
  ITK_PY_MANAGER->SetConstCPUAccessReadOnly(readOnly);
}
bool
CudaDataManagerHandle::IsGPUBufferExported() const
{
  return ITK_PY_MANAGER->IsGPUBufferExported();
}
TransferStatistics
CudaDataManagerHandle::GetTransferStatistics() const
{
  const CudaTransferStatistics s = ITK_PY_MANAGER->GetTransferStatistics();
  return { s.HostToDeviceCount, s.HostToDeviceBytes, s.DeviceToHostCount,
           s.DeviceToHostBytes, s.PeerCount,         s.PeerBytes };
}
void
CudaDataManagerHandle::ResetTransferStatistics()
{
  ITK_PY_MANAGER->ResetTransferStatistics();
}
#undef ITK_PY_MANAGER

// ---------------------------------------------------------------------------

namespace
{
template <typename F>
void
VisitScalarImageType(const std::string & code, unsigned int dimension, F && f)
{
  const bool scalar = VisitScalarPixel(code, [&](auto pixel) {
    VisitDimension<typename decltype(pixel)::Type, 4>(dimension, code, f);
  });
  if (!scalar)
  {
    throw std::invalid_argument("CudaSquareImageFilter takes scalar pixel types (UC, SS, US, SI, UI, UL, F, D), got " +
                                code);
  }
}
} // namespace

#define ITK_PY_SQUARE_VISIT(body)                                                                                     \
  VisitScalarImageType(m_PixelCode, m_Dimension, [&](auto tag) {                                                      \
    using ImageType = typename decltype(tag)::Type;                                                                    \
    using FilterType = CudaSquareImageFilter<ImageType>;                                                               \
    auto * filter = static_cast<FilterType *>(m_Filter.GetPointer());                                                 \
    (void)filter;                                                                                                      \
    body;                                                                                                              \
  })

CudaSquareImageFilterHandle::CudaSquareImageFilterHandle(const std::string & pixelCode, unsigned int dimension)
  : m_PixelCode(pixelCode)
  , m_Dimension(dimension)
{
  VisitScalarImageType(pixelCode, dimension, [&](auto tag) {
    using ImageType = typename decltype(tag)::Type;
    m_Filter = CudaSquareImageFilter<ImageType>::New().GetPointer();
  });
}

void
CudaSquareImageFilterHandle::SetInput(const CudaImageHandle & image)
{
  if (image.GetPixelCode() != m_PixelCode || image.GetImageDimension() != m_Dimension)
  {
    throw std::invalid_argument("the filter takes a CudaImage[" + m_PixelCode + ", " + std::to_string(m_Dimension) +
                                "], got a CudaImage[" + image.GetPixelCode() + ", " +
                                std::to_string(image.GetImageDimension()) + "]");
  }
  ITK_PY_SQUARE_VISIT(filter->SetInput(static_cast<ImageType *>(image.GetDataObject())));
}

void
CudaSquareImageFilterHandle::Update()
{
  ITK_PY_SQUARE_VISIT(filter->Update());
}

CudaImageHandle
CudaSquareImageFilterHandle::GetOutput() const
{
  DataObject * output = nullptr;
  ITK_PY_SQUARE_VISIT(output = filter->GetOutput());
  return CudaImageHandle(m_PixelCode, m_Dimension, output);
}

void
CudaSquareImageFilterHandle::SetInPlace(bool inPlace)
{
  ITK_PY_SQUARE_VISIT(filter->SetInPlace(inPlace));
}

bool
CudaSquareImageFilterHandle::GetInPlace() const
{
  bool inPlace = false;
  ITK_PY_SQUARE_VISIT(inPlace = filter->GetInPlace());
  return inPlace;
}

void
CudaSquareImageFilterHandle::SetGPUEnabled(bool enabled)
{
  ITK_PY_SQUARE_VISIT(filter->SetGPUEnabled(enabled));
}

void
CudaSquareImageFilterHandle::SetDevice(int device)
{
  ITK_PY_SQUARE_VISIT(filter->SetDevice(device));
}

int
CudaSquareImageFilterHandle::GetDevice() const
{
  int device = -1;
  ITK_PY_SQUARE_VISIT(device = filter->GetDevice());
  return device;
}

void
CudaSquareImageFilterHandle::SetSplitDevices(const std::vector<int> & devices, const std::vector<double> & weights)
{
  ITK_PY_SQUARE_VISIT(filter->SetSplitDevices(devices, weights));
}

std::vector<int>
CudaSquareImageFilterHandle::GetSplitDevices() const
{
  std::vector<int> devices;
  ITK_PY_SQUARE_VISIT(devices = filter->GetSplitDevices());
  return devices;
}

std::vector<double>
CudaSquareImageFilterHandle::GetSplitWeights() const
{
  std::vector<double> weights;
  ITK_PY_SQUARE_VISIT(weights = filter->GetSplitWeights());
  return weights;
}

void
CudaSquareImageFilterHandle::SetSplitAcrossAllDevices(bool all)
{
  ITK_PY_SQUARE_VISIT(filter->SetSplitAcrossAllDevices(all));
}

bool
CudaSquareImageFilterHandle::GetSplitAcrossAllDevices() const
{
  bool all = false;
  ITK_PY_SQUARE_VISIT(all = filter->GetSplitAcrossAllDevices());
  return all;
}

bool
CudaSquareImageFilterHandle::GetGPUEnabled() const
{
  bool enabled = false;
  ITK_PY_SQUARE_VISIT(enabled = filter->GetGPUEnabled());
  return enabled;
}
#undef ITK_PY_SQUARE_VISIT

// ---------------------------------------------------------------------------

struct CudaMemoryProbeHandle::Impl
{
  itk::CudaMemoryProbe Probe;
};

CudaMemoryProbeHandle::CudaMemoryProbeHandle()
  : m_Impl(std::make_unique<Impl>())
{}
CudaMemoryProbeHandle::~CudaMemoryProbeHandle() = default;
void
CudaMemoryProbeHandle::Start()
{
  m_Impl->Probe.Start();
}
void
CudaMemoryProbeHandle::Stop()
{
  m_Impl->Probe.Stop();
}
double
CudaMemoryProbeHandle::GetMean() const
{
  return m_Impl->Probe.GetMean();
}
double
CudaMemoryProbeHandle::GetTotal() const
{
  return static_cast<double>(m_Impl->Probe.GetTotal());
}
unsigned long long
CudaMemoryProbeHandle::GetNumberOfStops() const
{
  return m_Impl->Probe.GetNumberOfStops();
}
std::string
CudaMemoryProbeHandle::GetType() const
{
  return m_Impl->Probe.GetType();
}
std::string
CudaMemoryProbeHandle::GetUnit() const
{
  return m_Impl->Probe.GetUnit();
}
} // namespace python
} // namespace itk
