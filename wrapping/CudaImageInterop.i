// What CudaCommon's own itk.CudaImage classes add to CudaImage.i (which RTK
// configures for its CudaImage types too): the array interfaces with the
// export holds that keep a view's memory valid when the image reallocates or
// goes away, DLPack, and the one-call path of itk.cuda_image_from_cuda_array.
// The C++ is wrapping/src (itkPyCudaCommon.h, compiled into the module);
// CudaImageInterop.i.in adds one block per wrapped type. Included after CudaImage.i into the itkCudaImage
// submodule (ITK_WRAP_PYTHON_SWIG_EXT).
%{
#include "itkPyCudaCommon.h"
%}

// The Python object a method is called on (the export holds live on it). Set
// in a check typemap, which runs after the arguments are unpacked.
%typemap(in, numinputs=0) PyObject * CUDACOMMON_SELF "$1 = NULL;"
%typemap(check) PyObject * CUDACOMMON_SELF "$1 = swig_obj[0];"

// itk.cuda_image_from_cuda_array's common case in one call (an image of a
// registered type over a C-contiguous device array); None for anything else,
// which the Python function then checks and explains.
%rename(_FastImageFromCudaArray) itk::python::FastImageFromCudaArray;
namespace itk { namespace python {
PyObject * FastImageFromCudaArray(PyObject * array, bool keepAxes, bool isVector);
}}

// Devices, streams and DLPack input (itk.CudaCommon.IsCudaAvailable() and
// friends, added by __init_cudacommon__.py; the others serve
// itkCudaImageFromCudaArray.py and the itk_cudacommon package).
%include <std_string.i>
// Bad arguments (an invalid device, host memory given as device memory) are
// ValueErrors, as in Python; other failures RuntimeErrors.
%define CUDACOMMON_VALUE_ERRORS(function)
%exception function {
  try
  {
    $action
  }
  catch (const std::invalid_argument & error)
  {
    SWIG_exception_fail(SWIG_ValueError, error.what());
  }
  catch (const std::exception & error)
  {
    SWIG_exception_fail(SWIG_RuntimeError, error.what());
  }
}
%enddef
CUDACOMMON_VALUE_ERRORS(itk::python::SetCurrentDevice)
CUDACOMMON_VALUE_ERRORS(itk::python::DeviceOfPointer)
CUDACOMMON_VALUE_ERRORS(itk::python::LegacyStreamWaitFor)
CUDACOMMON_VALUE_ERRORS(itk::python::StreamWaitFor)
CUDACOMMON_VALUE_ERRORS(itk::CudaGetMemoryPoolReleaseThreshold)
namespace itk { namespace python {
bool IsCudaAvailable();
std::string CudaUnavailableReason();
int DeviceCount();
int DefaultDevice();
int CurrentDevice();
void SetCurrentDevice(int device);
void LegacyStreamWaitFor(unsigned long long stream);
void StreamWaitFor(unsigned long long waiter, unsigned long long producer);
int DeviceOfPointer(unsigned long long pointer);
PyObject * ConsumeDLPackCapsule(PyObject * capsule);
}}

// The stream-ordered device memory pools (itkCudaMemoryPool.h).
%{
#include "itkCudaMemoryPool.h"
%}
namespace itk {
bool CudaMemoryPoolIsEnabled();
void CudaSetMemoryPoolReleaseThreshold(unsigned long long bytes);
unsigned long long CudaGetMemoryPoolReleaseThreshold(int device);
void CudaTrimMemoryPools(unsigned long long keepBytes = 0);
}

%{
#include "itkConfigure.h"
#include "itkCudaCommonConfiguration.h"
#ifdef CUDACOMMON_PYTHON_TEST_BACKEND
#  include "itkCudaEmulatedMemoryBackend.h"
#endif
%}
%inline %{
namespace itk { namespace python {
/** CudaCommon_VERSION_STRING of the C++ library this module was built with. */
std::string GetVersion() { return CudaCommon_VERSION_STRING; }
/** The ITK release this module was compiled with. */
std::string GetITKVersion()
{
  return std::to_string(ITK_VERSION_MAJOR) + '.' + std::to_string(ITK_VERSION_MINOR) + '.' +
         std::to_string(ITK_VERSION_PATCH);
}
/** For the tests of a build with the test backend (CMake option
 * CudaCommon_PYTHON_TEST_BACKEND, never in a wheel): from now on, device
 * buffers of new allocations are host memory, so the export paths run on any
 * machine. Process-wide and for good: run such tests in a process of their
 * own. */
void _UseEmulatedDeviceMemoryForTests()
{
#ifdef CUDACOMMON_PYTHON_TEST_BACKEND
  itk::CudaMemoryBackend::SetDefault(std::make_shared<itk::CudaEmulatedMemoryBackend>());
#else
  throw std::runtime_error("this build of CudaCommon's module has no test backend "
                           "(configure with -DCudaCommon_PYTHON_TEST_BACKEND=ON)");
#endif
}
/** True when _UseEmulatedDeviceMemoryForTests() can switch the backend. */
bool _HasEmulatedDeviceMemoryForTests()
{
#ifdef CUDACOMMON_PYTHON_TEST_BACKEND
  return true;
#else
  return false;
#endif
}
}}
%}

// itk::CudaMemoryProbe (itkCudaMemoryProbe.h): device memory in use, as ITK's
// resource probes report (itk.CudaMemoryProbe(), __init_cudacommon__.py).
// Declared here: its base, ResourceProbe<OffsetValueType, double>, is not
// among ITKCommon's wrapped probes.
%{
#include "itkCudaMemoryProbe.h"
typedef itk::CudaMemoryProbe itkCudaMemoryProbe;
%}
class itkCudaMemoryProbe
{
public:
  itkCudaMemoryProbe();
  ~itkCudaMemoryProbe();
  void Start();
  void Stop();
  void Reset();
  double GetMean() const;
  unsigned long long GetNumberOfStops() const;
  std::string GetType() const;
  std::string GetUnit() const;
};
%extend itkCudaMemoryProbe {
  /** The sum of the samples (kB). */
  double GetTotal() const { return static_cast<double>(self->GetTotal()); }
}
