// SWIG interface of the Python package itk_cudacommon: wraps the plain C++
// handles of src/itkPyCudaCommon.h; the Pythonic API is in python/.
%module(package="itk_cudacommon") core

%{
#include "itkPyCudaCommon.h"
#include "itkCudaCommonConfiguration.h"
#include "itkMacro.h"
#include <stdexcept>
%}

%include <std_string.i>
%include <std_vector.i>
%include <stdint.i>

%template(VectorDouble) std::vector<double>;
%template(VectorInt) std::vector<int>;
%template(VectorLongLong) std::vector<long long>;
%template(VectorULongLong) std::vector<unsigned long long>;

%exception {
  try
  {
    $action
  }
  catch (const itk::ExceptionObject & e)
  {
    PyErr_SetString(PyExc_RuntimeError, e.GetDescription());
    SWIG_fail;
  }
  catch (const std::invalid_argument & e)
  {
    PyErr_SetString(PyExc_ValueError, e.what());
    SWIG_fail;
  }
  catch (const std::out_of_range & e)
  {
    PyErr_SetString(PyExc_IndexError, e.what());
    SWIG_fail;
  }
  catch (const std::exception & e)
  {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    SWIG_fail;
  }
}

// Internal plumbing between handles, not for Python.
%ignore itk::python::CudaImageHandle::GetDataObject;
%ignore itk::python::CudaImageHandle::CudaImageHandle(const std::string &, unsigned int, DataObject *);
%ignore itk::python::CudaDataManagerHandle::CudaDataManagerHandle;

%include "itkPyCudaCommon.h"

%inline %{
namespace itk { namespace python {
/** CudaCommon_VERSION_STRING of the C++ library this module was built with. */
std::string GetVersion() { return CudaCommon_VERSION_STRING; }
}}
%}
