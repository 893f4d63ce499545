# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""itk_cudacommon: the names of CudaCommon's earlier Python package, over its
ITK module (itk.CudaCommon, which `import itk` alone provides).

    import itk
    image = itk.CudaImage[itk.F, 3].New()      # an itk.Image[itk.F, 3]
    image.SetRegions([64, 64, 64]); image.Allocate(); image.FillBuffer(2.0)
    array = cupy.asarray(image)                # a view of the GPU copy, no copy
    back = itk.cuda_image_from_cuda_array(array)
    smoothed = itk.median_image_filter(image)  # any ITK filter takes it

Nothing here is needed with `import itk`; this package keeps code written for
`import itk_cudacommon` working (its names are those of itk and
itk.CudaCommon).
"""

import sys
import types

import itk

itk.CudaImage  # loads the module's classes (itk loads modules lazily)
_cuda_common = itk.CudaCommon
_extension = sys.modules["itk.itkCudaImagePython"]

# The classes and functions, as itk and itk.CudaCommon have them.
CudaImage = itk.CudaImage
CudaSquareImageFilter = itk.CudaSquareImageFilter
CudaAbsImageFilter = itk.CudaAbsImageFilter
CudaAddImageFilter = itk.CudaAddImageFilter
CudaImageFromImageFilter = itk.CudaImageFromImageFilter
CudaDataManager = itk.CudaDataManager
cuda_image_from_cuda_array = itk.cuda_image_from_cuda_array
cuda_image_from_image = itk.cuda_image_from_image
image_from_cuda_image = itk.image_from_cuda_image
get_itk_type = _cuda_common.get_itk_type
__version__ = _cuda_common.__version__

IsCudaAvailable = _cuda_common.IsCudaAvailable
CudaUnavailableReason = _cuda_common.CudaUnavailableReason
CudaMemoryPoolIsEnabled = _cuda_common.CudaMemoryPoolIsEnabled
CudaTrimMemoryPools = _cuda_common.CudaTrimMemoryPools
CudaSetMemoryPoolReleaseThreshold = _cuda_common.CudaSetMemoryPoolReleaseThreshold
CudaGetMemoryPoolReleaseThreshold = _cuda_common.CudaGetMemoryPoolReleaseThreshold

# `core`: the module's functions and data manager class, under the names the
# earlier package's extension had.
core = types.SimpleNamespace(
    **{name: getattr(_extension, name) for name in (
        "IsCudaAvailable", "CudaUnavailableReason", "DeviceCount", "DefaultDevice", "CurrentDevice",
        "SetCurrentDevice", "DeviceOfPointer", "LegacyStreamWaitFor", "StreamWaitFor", "ConsumeDLPackCapsule",
        "CudaMemoryPoolIsEnabled", "CudaTrimMemoryPools", "CudaSetMemoryPoolReleaseThreshold",
        "CudaGetMemoryPoolReleaseThreshold", "GetVersion", "GetITKVersion", "_UseEmulatedDeviceMemoryForTests",
        "_HasEmulatedDeviceMemoryForTests")},
    _FastImageFromCudaArray=_extension._itkCudaImagePython._FastImageFromCudaArray,
    itkCudaDataManager=itk.CudaDataManager,
)

__all__ = [
    "CudaAbsImageFilter",
    "CudaAddImageFilter",
    "CudaDataManager",
    "CudaGetMemoryPoolReleaseThreshold",
    "CudaImage",
    "CudaImageFromImageFilter",
    "CudaMemoryPoolIsEnabled",
    "CudaSetMemoryPoolReleaseThreshold",
    "CudaSquareImageFilter",
    "CudaTrimMemoryPools",
    "CudaUnavailableReason",
    "IsCudaAvailable",
    "cuda_image_from_cuda_array",
    "cuda_image_from_image",
    "get_itk_type",
    "image_from_cuda_image",
    "__version__",
]
