"""Run by `import itk` (ITK's module loader runs itk/__init_<module>__.py):
adds CudaCommon's functions to itk and its version to itk.CudaCommon."""

import importlib
import sys

_itk = sys.modules["itk"]
_itk.CudaCommon.__version__ = importlib.import_module("itk.CudaCommonVersion").CUDACOMMON_GLOBAL_VERSION_STRING

for _name in ("itk.itkCudaImageFromCudaArray", "itk.itkCudaImageFromImage"):
    _module = importlib.import_module(_name)
    for _function in _module.__all__:
        setattr(_itk, _function, getattr(_module, _function))
