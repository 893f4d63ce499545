"""itk.cuda_image_from_image and itk.image_from_cuda_image: between
itk.Image (or a NumPy array) and itk.CudaImage."""

import itk

__all__ = ["cuda_image_from_image", "image_from_cuda_image"]


def cuda_image_from_image(image, spacing=None, origin=None, direction=None, is_vector=None):
    """An itk.CudaImage with the pixels and geometry of an itk.Image, or of a
    NumPy array (C order: shape (z, y, x[, components]); spacing, origin and
    direction may be given).

    An itk.Image is converted by itk.CudaImageFromImageFilter, as in
    ITKCudaCommon's wheels: the CudaImage shares its pixel container (no copy;
    the GPU copy is made at the first device access). A NumPy array is
    copied."""
    if not (hasattr(image, "GetLargestPossibleRegion") and hasattr(image, "GetSpacing")):
        import numpy

        array = numpy.ascontiguousarray(image)
        if array.ndim == 0 or array.size == 0:
            raise ValueError(f"shape: {array.shape} has no image axes or no elements")
        components = array.shape[-1] if is_vector else 1
        component = getattr(itk, itk.CudaCommon.get_itk_type(array.dtype.str), None) if array.dtype.str in (
            "|u1", "<i2", "<u2", "<i4", "<u4", "<u8", "<f4", "<f8") else None
        if component is None or (components > 1 and component is not itk.F):
            raise ValueError(f"typestr: {array.dtype.str!r} x {components} has no CudaImage pixel type")
        dimension = array.ndim - (1 if is_vector else 0)
        if is_vector and (itk.F, components) not in itk.Vector.keys():
            raise ValueError(f"typestr: vector pixels of {components} x {array.dtype.str!r} are not available")
        pixel = itk.Vector[itk.F, components] if is_vector else component
        if (pixel, dimension) not in itk.CudaImage.keys():
            raise ValueError(f"dimension {dimension} is not available for pixel type {pixel}")
        image = itk.image_from_array(array, ttype=itk.Image[pixel, dimension])
    adapter = itk.CudaImageFromImageFilter[type(image)].New()
    adapter.SetInput(image)
    adapter.Update()
    result = adapter.GetOutput()
    result.DisconnectPipeline()
    if spacing is not None:
        result.SetSpacing(spacing)
    if origin is not None:
        result.SetOrigin(origin)
    if direction is not None:
        import numpy

        result.SetDirection(itk.matrix_from_array(numpy.asarray(direction, dtype=float)))
    return result


def image_from_cuda_image(cuda_image):
    """An itk.Image with the pixels (copied, from the CPU copy made current)
    and geometry of `cuda_image`."""
    import numpy

    array = numpy.array(cuda_image, copy=True)
    result = itk.image_from_array(array, is_vector=cuda_image.GetNumberOfComponentsPerPixel() > 1)
    result.SetSpacing(cuda_image.GetSpacing())
    result.SetOrigin(cuda_image.GetOrigin())
    result.SetDirection(itk.matrix_from_array(itk.array_from_matrix(cuda_image.GetDirection())))
    return result
