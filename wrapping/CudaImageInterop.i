// What CudaCommon's own itk.CudaImage classes add to CudaImage.i (which RTK
// configures for its CudaImage types too): the array interfaces with the
// export holds that keep a view's memory valid when the image reallocates or
// goes away, DLPack, and the one-call path of itk.cuda_image_from_cuda_array.
// The C++ is wrapping/src (itkPyCudaCommon.h, compiled into the module), the
// code of the itk_cudacommon package; CudaImageInterop.i.in adds one block
// per wrapped type. Included after CudaImage.i into the itkCudaImage
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

// Device queries (itk.CudaCommon.IsCudaAvailable() and friends, added by
// __init_cudacommon__.py).
%include <std_string.i>
namespace itk { namespace python {
bool IsCudaAvailable();
std::string CudaUnavailableReason();
int DeviceCount();
int DefaultDevice();
}}
