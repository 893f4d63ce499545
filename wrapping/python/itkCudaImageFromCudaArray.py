"""itk.cuda_image_from_cuda_array: an itk.CudaImage over the device memory of
an object with the CUDA Array Interface (CuPy, PyTorch, Numba, ...)."""

import sys

import itk

__all__ = ["cuda_image_from_cuda_array"]

_fast = None  # the module's one-call path, found on first use (itk loads modules lazily)


def _c_strides(shape, itemsize):
    strides = []
    step = itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def cuda_image_from_cuda_array(array, keep_axes=False, is_vector=False):
    """An itk.CudaImage whose GPU copy is `array`'s memory, without a copy;
    the image keeps `array` alive.

    keep_axes=False (the default) reverses the axes (C order: the last axis
    is ITK's first, x); keep_axes=True keeps them. is_vector=True takes the
    last axis as the components of itk.Vector pixels. The array must be
    contiguous in that order. When the interface names a stream, the image's
    work on the memory waits for the producer's work on that stream. Raises
    ValueError for another layout, a pixel type ITK does not wrap, an empty
    array or an invalid stream, and TypeError for an object without the
    interface."""
    global _fast
    if _fast is None:
        itk.CudaImage  # loads CudaCommon's classes
        # The extension's function itself (no Python wrapper in between).
        _fast = sys.modules["itk.itkCudaImagePython"]._itkCudaImagePython._FastImageFromCudaArray
    # A C-contiguous device array of a wrapped type, in one call; None for
    # anything else, checked and explained below.
    image = _fast(array, bool(keep_axes), bool(is_vector))
    if image is not None:
        return image
    try:
        interface = array.__cuda_array_interface__
    except AttributeError:
        raise TypeError(f"{type(array).__name__} has no __cuda_array_interface__") from None
    shape = tuple(int(extent) for extent in interface["shape"])
    typestr = interface["typestr"]
    pointer = int(interface["data"][0])
    itemsize = int(typestr[2:])
    components = shape[-1] if is_vector else 1
    spatial = shape[:-1] if is_vector else shape
    if not spatial or 0 in shape or pointer == 0:
        raise ValueError(f"cuda_image_from_cuda_array: an empty array or one without pixels (shape {shape})")
    stream = interface.get("stream")
    if stream == 0 or (stream is not None and (not isinstance(stream, int) or stream < 0)):
        raise ValueError(f"cuda_image_from_cuda_array: invalid stream {stream!r} in the interface (0 is not allowed)")
    strides = interface.get("strides")
    if keep_axes:
        expected = tuple(reversed(_c_strides(tuple(reversed(spatial)), itemsize * components)))
        if is_vector:
            expected += (itemsize,)
    else:
        expected = _c_strides(shape, itemsize)
    if strides is not None and tuple(strides) != expected:
        order = "Fortran (first axis fastest)" if keep_axes else "C (last axis fastest)"
        raise ValueError(f"cuda_image_from_cuda_array: expected {order} contiguous strides {expected}, got {tuple(strides)}")
    itk.CudaImage  # loads CudaCommon's classes (and with them itk.CudaCommon.get_itk_type)
    try:
        component = getattr(itk, itk.CudaCommon.get_itk_type(typestr))
    except KeyError:
        raise ValueError(f"cuda_image_from_cuda_array: no ITK pixel type for typestr {typestr!r}") from None
    pixel = itk.Vector[component, components] if is_vector else component
    size = spatial if keep_axes else tuple(reversed(spatial))
    try:
        image_type = itk.CudaImage[pixel, len(size)]
    except (KeyError, itk.TemplateTypeError):
        raise ValueError(f"cuda_image_from_cuda_array: itk.CudaImage[{pixel}, {len(size)}] is not wrapped") from None
    image = image_type.New()
    image.SetRegions([int(extent) for extent in size])
    bytes_ = itemsize * components
    for extent in size:
        bytes_ *= extent
    # The producer's work on the memory comes before the image's.
    image.GetCudaDataManager()._AdoptGPUBuffer(pointer, bytes_, array, stream or 0)
    return image
