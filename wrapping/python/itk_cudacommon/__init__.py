# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""itk_cudacommon: ITK images mirrored on the GPU, for ITK's PyPI wheels.

    import itk
    import itk_cudacommon
    image = itk.CudaImage[itk.F, 3].New()      # an itk.Image[itk.F, 3]
    image.SetRegions([64, 64, 64]); image.Allocate(); image.FillBuffer(2.0)
    array = cupy.asarray(image)                # a view of the GPU copy, no copy
    back = itk.cuda_image_from_cuda_array(array)
    smoothed = itk.median_image_filter(image)  # any ITK filter takes it

Importing the package registers its types in itk (itk.CudaImage,
itk.CudaSquareImageFilter, itk.CudaAbsImageFilter, itk.CudaAddImageFilter,
itk.CudaImageFromImageFilter, their snake_case forms, ...) and the
functions itk.cuda_image_from_cuda_array and itk.cuda_image_from_image; the
module itk.CudaCommon holds them too, as in ITKCudaCommon's wheels.
"""

from ._itk import check_itk_version as _check_itk_version

_check_itk_version()  # before the extension, which is compiled for one ITK release

from . import CudaCommonPython as core  # noqa: E402
from ._itk import check_swig_runtime as _check_swig_runtime  # noqa: E402
from ._itk import register as _register  # noqa: E402

_check_swig_runtime(core)
from ._interop import (  # noqa: E402
    cuda_image_from_cuda_array,
    cuda_image_from_image,
    get_itk_type,
    image_from_cuda_image,
)

__version__ = core.GetVersion()

CudaImage, CudaSquareImageFilter, CudaImageFromImageFilter = _register(
    __name__, cuda_image_from_cuda_array, cuda_image_from_image, get_itk_type, image_from_cuda_image)
CudaDataManager = core.itkCudaDataManager
CudaMemoryProbe = core.itkCudaMemoryProbe


def IsCudaAvailable():
    """True when a usable CUDA device exists (never raises)."""
    return core.IsCudaAvailable()


def CudaUnavailableReason():
    """Why IsCudaAvailable() is False ('' when it is True)."""
    return core.CudaUnavailableReason()


def CudaMemoryPoolIsEnabled():
    """True when device buffers come from CudaCommon's stream-ordered memory
    pools (the default; ITK_CUDA_MEMORY_POOL=0 turns them off)."""
    return core.CudaMemoryPoolIsEnabled()


def CudaTrimMemoryPools(keep_bytes=0):
    """Give the devices the memory the pools keep for later allocations (all
    but keep_bytes per device), after the device work queued so far."""
    core.CudaTrimMemoryPools(int(keep_bytes))


def CudaSetMemoryPoolReleaseThreshold(nbytes):
    """Bytes of freed memory each pool keeps for later allocations."""
    core.CudaSetMemoryPoolReleaseThreshold(int(nbytes))


def CudaGetMemoryPoolReleaseThreshold(device=0):
    """The release threshold of device's pool, in bytes."""
    return core.CudaGetMemoryPoolReleaseThreshold(int(device))


__all__ = [
    "CudaGetMemoryPoolReleaseThreshold",
    "CudaMemoryPoolIsEnabled",
    "CudaSetMemoryPoolReleaseThreshold",
    "CudaTrimMemoryPools",
    "CudaAbsImageFilter",
    "CudaAddImageFilter",
    "CudaDataManager",
    "CudaImage",
    "CudaImageFromImageFilter",
    "CudaMemoryProbe",
    "CudaSquareImageFilter",
    "CudaUnavailableReason",
    "IsCudaAvailable",
    "cuda_image_from_cuda_array",
    "cuda_image_from_image",
    "get_itk_type",
    "image_from_cuda_image",
    "__version__",
]
