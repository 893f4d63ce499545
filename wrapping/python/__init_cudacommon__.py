"""Run by `import itk` (ITK's module loader runs itk/__init_<module>__.py):
adds CudaCommon's functions to itk, and its version and device queries to
itk.CudaCommon."""

import importlib
import sys

_itk = sys.modules["itk"]
_itk.CudaCommon.__version__ = importlib.import_module("itk.CudaCommonVersion").CUDACOMMON_GLOBAL_VERSION_STRING

for _name in ("itk.itkCudaImageFromCudaArray", "itk.itkCudaImageFromImage"):
    _module = importlib.import_module(_name)
    for _function in _module.__all__:
        setattr(_itk, _function, getattr(_module, _function))


def _device_query(name, doc):
    def query():
        _itk.CudaImage  # loads CudaCommon's classes (itk loads modules lazily)
        return getattr(sys.modules["itk.itkCudaImagePython"], name)()

    query.__name__ = query.__qualname__ = name
    query.__doc__ = doc
    return query


for _name, _doc in (
    ("IsCudaAvailable", "True when a usable CUDA device exists (never raises)."),
    ("CudaUnavailableReason", "Why IsCudaAvailable() is False ('' when it is True)."),
    ("DeviceCount", "How many CUDA devices are visible (0 without a device or driver)."),
    ("DefaultDevice", "The device new images' GPU copies go to."),
):
    setattr(_itk.CudaCommon, _name, _device_query(_name, _doc))
