# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""Zero-copy views between CudaImage and CuPy, PyTorch, JAX, NumPy and itk."""

from . import core
from ._types import code_from_typestr, image_class_name, normalize_typestr

# DLPack device types (dlpack.h).
_DLPACK_CUDA = 2
_DLPACK_CUDA_MANAGED = 13
_ITEMSIZE = {"|u1": 1, "|i1": 1, "<i2": 2, "<u2": 2, "<i4": 4, "<u4": 4, "<u8": 8, "<i8": 8, "<f4": 4, "<f8": 8}


def get_itk_type(typestr):
    """The name of the ITK pixel type of values with this array type string
    ('F' for '<f4'; getattr(itk, name) is the type), as itk.CudaCommon.get_itk_type
    of ITKCudaCommon's wheels."""
    return code_from_typestr(typestr)


def _expected_strides(shape, itemsize, keep_axes, components):
    """Byte strides of the only layout a CudaImage can view without copying."""
    spatial = len(shape) - (1 if components > 1 else 0)
    strides = [0] * len(shape)
    step = itemsize
    if components > 1:
        strides[-1] = itemsize
        step *= components
    order = range(spatial) if keep_axes else reversed(range(spatial))
    for axis in order:
        strides[axis] = step
        step *= shape[axis]
    return tuple(strides)


def _check_layout(shape, strides, itemsize, keep_axes, components):
    expected = _expected_strides(shape, itemsize, keep_axes, components)
    if strides is None:
        c_order = _expected_strides(shape, itemsize, False, components)
        strides = c_order
    if any(s > 1 for s in shape) and tuple(
            st for st, n in zip(strides, shape) if n > 1) != tuple(e for e, n in zip(expected, shape) if n > 1):
        order = "Fortran (axis 0 fastest)" if keep_axes else "C (last axis fastest)"
        raise ValueError(
            f"strides: {tuple(strides)} is not a contiguous {order} layout for shape {tuple(shape)} "
            f"(expected {expected}); make the array contiguous first (e.g. cupy.ascontiguousarray), "
            "which copies it")


def _view(pointer, shape, typestr, strides, keep_axes, is_vector, owner):
    """A CudaImage over `pointer` (device memory), keeping `owner` alive."""
    shape = tuple(shape)
    components = shape[-1] if is_vector else 1
    if is_vector and len(shape) < 2:
        raise ValueError(f"shape: a vector image needs a component axis, got shape {shape}")
    code = code_from_typestr(typestr, components)
    spatial = shape[:-1] if is_vector else shape
    dimension = len(spatial)
    if any(n == 0 for n in shape):
        raise ValueError(f"shape: {shape} has no elements; a CudaImage cannot view an empty array")
    _check_layout(shape, strides, _ITEMSIZE[normalize_typestr(typestr)], keep_axes, components)
    image_class = getattr(core, image_class_name(code, dimension))
    core.DeviceOfPointer(pointer)  # ValueError unless it is device memory
    size = spatial if keep_axes else tuple(reversed(spatial))
    return image_class._FromDevicePointer(pointer, size, owner)


def _check_int_tuple(value, field, allow_negative=False):
    if not isinstance(value, tuple) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise ValueError(f"{field}: expected a tuple of integers, got {value!r}")
    if not allow_negative and any(v < 0 for v in value):
        raise ValueError(f"{field}: negative values in {value!r}")
    if any(abs(v) >= 2**63 for v in value):
        raise ValueError(f"{field}: values out of range in {value!r}")
    return value


def _from_cuda_array_interface(obj, keep_axes, is_vector):
    interface = obj.__cuda_array_interface__
    if not isinstance(interface, dict):
        raise TypeError(f"__cuda_array_interface__: expected a dict, got {type(interface).__name__}")
    for field in ("shape", "typestr", "data", "version"):
        if field not in interface:
            raise ValueError(f"{field}: missing from __cuda_array_interface__")
    version = interface["version"]
    if not isinstance(version, int) or not 0 <= version <= 3:
        raise ValueError(f"version: expected 0 to 3, got {version!r}")
    shape = _check_int_tuple(interface["shape"], "shape")
    typestr = interface["typestr"]
    if not isinstance(typestr, str):
        raise ValueError(f"typestr: expected a string, got {typestr!r}")
    normalize_typestr(typestr)
    data = interface["data"]
    if (not isinstance(data, tuple) or len(data) != 2 or not isinstance(data[0], int) or isinstance(data[0], bool)
            or not isinstance(data[1], bool)):
        raise ValueError(f"data: expected (pointer, read_only), got {data!r}")
    if data[1]:
        raise ValueError("data: the array is read-only, but CudaImage device buffers are written by filters")
    if not 0 < data[0] < 2**64:
        raise ValueError(f"data: {data[0]:#x} is not a device address")
    if interface.get("mask") is not None:
        raise ValueError("mask: masked arrays are not supported")
    strides = interface.get("strides")
    if strides is not None:
        _check_int_tuple(strides, "strides", allow_negative=True)
        if len(strides) != len(shape):
            raise ValueError(f"strides: {len(strides)} values for {len(shape)} axes")
    stream = interface.get("stream")
    if stream is not None:
        if not isinstance(stream, int) or isinstance(stream, bool) or not 0 < stream < 2**64:
            raise ValueError(f"stream: expected None or a non-zero stream handle, got {stream!r}")
    if not shape:
        raise ValueError("shape: a 0-d array has no image axes")
    typestr_key = normalize_typestr(typestr)
    if typestr_key not in _ITEMSIZE:
        code_from_typestr(typestr)  # raises with the list of known types
    image = _view(data[0], shape, typestr, strides, keep_axes, is_vector, obj)
    if stream is not None:
        core.LegacyStreamWaitFor(stream)  # our work must follow the producer's
    return image


def _from_dlpack(obj, keep_axes, is_vector):
    device_type, _ = obj.__dlpack_device__()
    if device_type not in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
        raise ValueError(f"device: DLPack device type {device_type} is not CUDA memory")
    try:  # stream 1: the legacy default stream, on which CudaCommon works
        capsule = obj.__dlpack__(stream=1, max_version=(1, 0))
    except TypeError:  # producers that predate max_version
        capsule = obj.__dlpack__(stream=1)
    pointer, device_type, _, shape, strides, typestr, read_only, owner = core.ConsumeDLPackCapsule(capsule)
    if device_type not in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
        raise ValueError(f"device: DLPack device type {device_type} is not CUDA memory")
    if read_only:
        raise ValueError("data: the tensor is read-only, but CudaImage device buffers are written by filters")
    if strides is not None:
        itemsize = _ITEMSIZE[normalize_typestr(typestr)]
        strides = tuple(s * itemsize for s in strides)
    return _view(pointer, shape, typestr, strides, keep_axes, is_vector, owner)


def cuda_image_from_cuda_array(array, keep_axes=False, is_vector=False):
    """A CudaImage viewing the device memory of `array` (no copy).

    `array` has __cuda_array_interface__ (CuPy, Numba, PyTorch) or __dlpack__
    (PyTorch, JAX, CuPy). The image keeps `array` alive. keep_axes=False reads
    C-order data as ITK does: shape (z, y, x) is image size (x, y, z);
    keep_axes=True keeps the axis order, which needs Fortran-ordered data.
    is_vector=True takes the last axis as the components of vector pixels
    (2 to 4 float32). Non-contiguous arrays raise ValueError: copy them first.
    A CudaImage given as `array` keeps its pixel type.
    """
    if hasattr(array, "_CudaArrayInterface"):  # a CudaImage keeps its pixel type
        is_vector = array.GetNumberOfComponentsPerPixel() > 1
    image = core._FastImageFromCudaArray(array, keep_axes, is_vector)  # the common case, in one call
    if image is not None:
        return image
    if hasattr(array, "__cuda_array_interface__"):
        return _from_cuda_array_interface(array, keep_axes, is_vector)
    if hasattr(array, "__dlpack__") and hasattr(array, "__dlpack_device__"):
        return _from_dlpack(array, keep_axes, is_vector)
    raise TypeError(
        f"expected an object with __cuda_array_interface__ or __dlpack__ (CuPy, PyTorch, JAX), "
        f"got {type(array).__name__}")


def cuda_image_from_image(image, spacing=None, origin=None, direction=None, is_vector=None):
    """A CudaImage with the pixels and geometry of an itk.Image, or of a NumPy
    array (C order: shape (z, y, x[, components]); spacing, origin and
    direction may be given).

    An itk.Image is converted by itk.CudaImageFromImageFilter, as in
    ITKCudaCommon's wheels: the CudaImage shares its pixel container (no copy;
    the container lives as long as either image). A NumPy array is copied.
    """
    import itk

    if not (hasattr(image, "GetLargestPossibleRegion") and hasattr(image, "GetSpacing")):
        import numpy

        array = numpy.asarray(image)
        if array.ndim == 0 or array.size == 0:
            raise ValueError(f"shape: {array.shape} has no image axes or no elements")
        components = array.shape[-1] if is_vector else 1
        code = code_from_typestr(array.dtype.str, components)  # ValueError for a type CudaImage lacks
        dimension = array.ndim - (1 if is_vector else 0)
        image_class_name(code, dimension)  # ValueError for a dimension CudaImage lacks
        pixel = itk.Vector[itk.F, components] if is_vector else getattr(itk, code)
        image = itk.image_from_array(numpy.ascontiguousarray(array), ttype=itk.Image[pixel, dimension])
    converter = itk.CudaImageFromImageFilter.New(image)
    converter.Update()
    result = converter.GetOutput()
    result.DisconnectPipeline()
    if spacing is not None:
        result.SetSpacing(spacing)
    if origin is not None:
        result.SetOrigin(origin)
    if direction is not None:
        result.SetDirection(itk.matrix_from_array(_float_array(direction)))
    return result


def _float_array(values):
    import numpy

    return numpy.asarray(values, dtype=float)


def image_from_cuda_image(cuda_image):
    """An itk.Image (itk package) with the pixels and geometry of `cuda_image`
    (CPU copy made current, pixels copied)."""
    import itk
    import numpy

    array = numpy.array(cuda_image, copy=True)
    result = itk.image_from_array(array, is_vector=cuda_image.GetNumberOfComponentsPerPixel() > 1)
    result.SetSpacing(cuda_image.GetSpacing())
    result.SetOrigin(cuda_image.GetOrigin())
    result.SetDirection(itk.matrix_from_array(cuda_image.GetDirection()))
    return result
