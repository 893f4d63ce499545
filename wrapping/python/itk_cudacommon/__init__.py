# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""itk_cudacommon: ITK images mirrored on the GPU, zero-copy with CuPy, PyTorch and JAX.

    import itk_cudacommon as icc
    image = icc.CudaImage['F', 3].New()
    image.SetRegions([64, 64, 64]); image.Allocate(); image.FillBuffer(2.0)
    array = cupy.asarray(image)              # a view, no copy
    back = icc.cuda_image_from_cuda_array(array)

When the itk package is importable, `import itk_cudacommon` also makes
itk.CudaImage, itk.cuda_image_from_cuda_array, itk.cuda_image_from_image and
itk.CudaSquareImageFilter available.
"""

from . import core
from ._filters import CudaMemoryProbe, CudaSquareImageFilter
from ._image import CudaDataManager, CudaImage, ImageRegion
from ._interop import cuda_image_from_cuda_array, cuda_image_from_image, get_itk_type, image_from_cuda_image

__version__ = core.GetVersion()


def IsCudaAvailable():
    """True when a usable CUDA device exists (never raises)."""
    return core.IsCudaAvailable()


def CudaUnavailableReason():
    """Why IsCudaAvailable() is False ('' when it is True)."""
    return core.CudaUnavailableReason()


__all__ = [
    "CudaDataManager",
    "CudaImage",
    "CudaMemoryProbe",
    "CudaSquareImageFilter",
    "CudaUnavailableReason",
    "ImageRegion",
    "IsCudaAvailable",
    "cuda_image_from_cuda_array",
    "cuda_image_from_image",
    "get_itk_type",
    "image_from_cuda_image",
    "__version__",
]


def _extend_itk():
    try:
        import itk
    except ImportError:
        return
    for name in ("CudaImage", "cuda_image_from_cuda_array", "cuda_image_from_image", "CudaSquareImageFilter",
                 "image_from_cuda_image"):
        setattr(itk, name, globals()[name])


_extend_itk()
