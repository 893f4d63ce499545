// Python additions to itk::CudaDataManager (WrapITK: included into the
// itkCudaDataManager submodule through ITK_WRAP_PYTHON_SWIG_EXT).
%{
#include "itkCudaUtil.h"
#include "itkPyCudaCommon.h"
#include <memory>
%}

// Copy statistics are a dict in Python ({'HostToDeviceCount': ..., ...}),
// not an opaque struct.
%typemap(out) itk::CudaTransferStatistics "$result = itk::python::TransferStatisticsDict($1);"
// A stream is an integer, as the array interfaces write it (1: the legacy
// default stream, where CudaCommon's work is handed to at every view).
%typemap(out) CUstream_st *
{
  const auto stream = reinterpret_cast<uintptr_t>($1);
  $result = PyLong_FromUnsignedLongLong(stream == 0 ? 1ULL : static_cast<unsigned long long>(stream));
}
// ExportGPUBuffer()'s hold is C++ only: Python takes views through the
// image's __cuda_array_interface__ and __dlpack__, which keep it.
%ignore itkCudaDataManager::ExportGPUBuffer;
// A production is the element-wise filters' C++ mechanism (move-only); the
// Python form of AdoptGPUBuffer() is _AdoptGPUBuffer() below, which keeps a
// Python owner.
%ignore itkCudaDataManager::BeginHostStreamedProduction;
%ignore itkCudaDataManager::AdoptGPUBuffer;

%extend itkCudaDataManager {
  // Make `pointer`, device memory of `bytes` bytes that the Python object
  // `owner` keeps valid, the current GPU copy: the CPU copy becomes stale and
  // `owner` is kept alive for as long as any manager shares this buffer
  // (the reference is dropped with the GIL held). `stream` is the producer's
  // stream as the CUDA Array Interface names it (0: none given, 1: the legacy
  // default stream, 2: the per-thread default stream, else a cudaStream_t):
  // the legacy default stream, and with it the image's next use of the
  // buffer, waits for the producer's work on it.
  void _AdoptGPUBuffer(unsigned long long pointer, unsigned long long bytes, PyObject * owner,
                       unsigned long long stream = 0)
  {
    if (stream > 1 && itk::IsCudaAvailable())
    {
      itk::CudaStreamWaitFor(cudaStreamLegacy, stream == 2 ? cudaStreamPerThread
                                                           : reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(stream)));
    }
    Py_INCREF(owner);
    std::shared_ptr<const void> hold(owner, [](const void * object) {
      const PyGILState_STATE state = PyGILState_Ensure();
      Py_DECREF(static_cast<PyObject *>(const_cast<void *>(object)));
      PyGILState_Release(state);
    });
    self->AdoptGPUBuffer(reinterpret_cast<void *>(static_cast<uintptr_t>(pointer)), static_cast<size_t>(bytes),
                         std::move(hold));
  }
}
