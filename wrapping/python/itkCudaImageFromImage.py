"""itk.cuda_image_from_image: an itk.Image seen as an itk.CudaImage."""

import itk

__all__ = ["cuda_image_from_image"]


def cuda_image_from_image(image):
    """An itk.CudaImage of `image`'s pixel type and dimension over the same
    pixels (CudaImageFromImageFilter: no copy; the GPU copy is made at the
    first device access)."""
    adapter = itk.CudaImageFromImageFilter[type(image)].New()
    adapter.SetInput(image)
    adapter.Update()
    return adapter.GetOutput()
