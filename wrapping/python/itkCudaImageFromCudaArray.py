"""itk.cuda_image_from_cuda_array: an itk.CudaImage over the device memory of
an array with the CUDA Array Interface (CuPy, PyTorch, Numba) or DLPack
(PyTorch, JAX, CuPy), without a copy."""

import sys

import itk

__all__ = ["cuda_image_from_cuda_array"]

# DLPack device types (dlpack.h).
_DLPACK_CUDA = 2
_DLPACK_CUDA_MANAGED = 13
# Array-interface type strings of the component types CudaImage wraps, by
# their ITK short names.
_TYPESTRS = {"UC": "|u1", "SS": "<i2", "US": "<u2", "SI": "<i4", "UI": "<u4", "UL": "<u8", "F": "<f4", "D": "<f8"}
_CODES = {typestr: code for code, typestr in _TYPESTRS.items()}
_module = None  # itk.itkCudaImagePython, found on first use (itk loads modules lazily)


def _extension():
    global _module
    if _module is None:
        itk.CudaImage  # loads CudaCommon's classes
        _module = sys.modules["itk.itkCudaImagePython"]
    return _module


def _normalize_typestr(typestr):
    """'<f4' for '<f4', '=f4' or 'f4' (little-endian only); ValueError otherwise."""
    if not isinstance(typestr, str) or len(typestr) < 2:
        raise ValueError(f"typestr: expected a string such as '<f4', got {typestr!r}")
    order, body = (typestr[0], typestr[1:]) if typestr[0] in "<>|=" else ("=", typestr)
    if order == ">" and body not in ("u1", "i1"):
        raise ValueError(f"typestr: big-endian data ({typestr!r}) is not supported")
    return ("|" if body in ("u1", "i1") else "<") + body


def _pixel_type(typestr, components, keys):
    """The itk pixel type of values of `typestr` with `components` per pixel
    (`keys`: itk.CudaImage.keys())."""
    code = _CODES.get(_normalize_typestr(typestr))
    if code is None:
        raise ValueError(f"typestr: {typestr!r} has no CudaImage pixel type (known: {', '.join(sorted(_CODES))})")
    if components == 1:
        return getattr(itk, code)
    if code == "F":
        if (itk.F, components) in itk.Vector.keys():
            vector = itk.Vector[itk.F, components]
            if any(p == vector for p, _ in keys):
                return vector
    raise ValueError(f"typestr: vector pixels of {components} x {typestr!r} are not available "
                     "(vector images hold float32 components, as many as ITK_WRAP_VECTOR_COMPONENTS)")


def _expected_strides(shape, itemsize, keep_axes, components):
    """Byte strides of the only layout a CudaImage can view without copying."""
    spatial = len(shape) - (1 if components > 1 else 0)
    strides = [0] * len(shape)
    step = itemsize
    if components > 1:
        strides[-1] = itemsize
        step *= components
    for axis in (range(spatial) if keep_axes else reversed(range(spatial))):
        strides[axis] = step
        step *= shape[axis]
    return tuple(strides)


def _view(pointer, shape, typestr, strides, keep_axes, is_vector, owner, stream=0):
    """A CudaImage over `pointer` (device memory), keeping `owner` alive; its
    work waits for the producer's on `stream` (array-interface values)."""
    shape = tuple(shape)
    if is_vector and len(shape) < 2:
        raise ValueError(f"shape: a vector image needs a component axis, got shape {shape}")
    components = shape[-1] if is_vector else 1
    keys = itk.CudaImage.keys()  # (not a failed lookup: its message loads ITK's IO modules)
    pixel = _pixel_type(typestr, components, keys)
    spatial = shape[:-1] if is_vector else shape
    if any(n == 0 for n in shape):
        raise ValueError(f"shape: {shape} has no elements; a CudaImage cannot view an empty array")
    itemsize = int(_normalize_typestr(typestr)[2:])
    expected = _expected_strides(shape, itemsize, keep_axes, components)
    if strides is None:  # the interfaces' C-contiguous layout
        strides = _expected_strides(shape, itemsize, False, components)
    if tuple(s for s, n in zip(strides, shape) if n > 1) != tuple(
            e for e, n in zip(expected, shape) if n > 1):
        order = "Fortran (axis 0 fastest)" if keep_axes else "C (last axis fastest)"
        raise ValueError(
            f"strides: {tuple(strides)} is not a contiguous {order} layout for shape {shape} "
            f"(expected {expected}); make the array contiguous first (e.g. cupy.ascontiguousarray), which copies it")
    if (pixel, len(spatial)) in keys:
        image_type = itk.CudaImage[pixel, len(spatial)]
    else:
        dimensions = sorted(d for p, d in keys if p == pixel)
        if not dimensions:
            raise ValueError(f"typestr: pixels of {components} x {typestr!r} are not available")
        raise ValueError(f"dimension {len(spatial)} is not available for pixel type {pixel}: expected one of "
                         f"{tuple(dimensions)}")
    try:
        _extension().DeviceOfPointer(pointer)
    except RuntimeError as error:  # not device memory (the C++ std::invalid_argument)
        raise ValueError(str(error)) from None
    image = image_type.New()
    image.SetRegions([int(n) for n in (spatial if keep_axes else reversed(spatial))])
    nbytes = itemsize
    for n in shape:
        nbytes *= n
    image.GetCudaDataManager()._AdoptGPUBuffer(pointer, nbytes, owner, stream)
    return image


def _int_tuple(value, field, allow_negative=False):
    if not isinstance(value, tuple) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise ValueError(f"{field}: expected a tuple of integers, got {value!r}")
    if not allow_negative and any(v < 0 for v in value):
        raise ValueError(f"{field}: negative values in {value!r}")
    if any(abs(v) >= 2**63 for v in value):
        raise ValueError(f"{field}: values out of range in {value!r}")
    return value


def _from_cuda_array_interface(array, keep_axes, is_vector):
    interface = array.__cuda_array_interface__
    if not isinstance(interface, dict):
        raise TypeError(f"__cuda_array_interface__: expected a dict, got {type(interface).__name__}")
    for field in ("shape", "typestr", "data", "version"):
        if field not in interface:
            raise ValueError(f"{field}: missing from __cuda_array_interface__")
    version = interface["version"]
    if not isinstance(version, int) or not 0 <= version <= 3:
        raise ValueError(f"version: expected 0 to 3, got {version!r}")
    shape = _int_tuple(interface["shape"], "shape")
    typestr = interface["typestr"]
    _normalize_typestr(typestr)
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
        _int_tuple(strides, "strides", allow_negative=True)
        if len(strides) != len(shape):
            raise ValueError(f"strides: {len(strides)} values for {len(shape)} axes")
    stream = interface.get("stream")
    if stream is not None and (not isinstance(stream, int) or isinstance(stream, bool) or not 0 < stream < 2**64):
        raise ValueError(f"stream: expected None or a non-zero stream handle, got {stream!r}")
    if not shape:
        raise ValueError("shape: a 0-d array has no image axes")
    return _view(data[0], shape, typestr, strides, keep_axes, is_vector, array, stream or 0)


def _from_dlpack(array, keep_axes, is_vector):
    device_type, _ = array.__dlpack_device__()
    if device_type not in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):  # e.g. a NumPy array (1: host memory)
        raise TypeError(f"expected device memory, got a {type(array).__name__} on DLPack device type {device_type} "
                        "(itk.cuda_image_from_image copies host arrays)")
    try:  # stream 1: the legacy default stream, on which CudaCommon works
        capsule = array.__dlpack__(stream=1, max_version=(1, 0))
    except TypeError:  # producers that predate max_version
        capsule = array.__dlpack__(stream=1)
    pointer, device_type, _, shape, strides, typestr, read_only, owner = _extension().ConsumeDLPackCapsule(capsule)
    if device_type not in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
        raise ValueError(f"device: DLPack device type {device_type} is not CUDA memory")
    if read_only:
        raise ValueError("data: the tensor is read-only, but CudaImage device buffers are written by filters")
    if strides is not None:
        itemsize = int(_normalize_typestr(typestr)[2:])
        strides = tuple(s * itemsize for s in strides)
    return _view(pointer, shape, typestr, strides, keep_axes, is_vector, owner)


def cuda_image_from_cuda_array(array, keep_axes=False, is_vector=False):
    """An itk.CudaImage whose GPU copy is `array`'s memory, without a copy;
    the image keeps `array` alive.

    `array` has __cuda_array_interface__ (CuPy, Numba, PyTorch) or __dlpack__
    (PyTorch, JAX, CuPy). keep_axes=False (the default) reads C-order data as
    ITK does: shape (z, y, x) is image size (x, y, z); keep_axes=True keeps
    the axis order, which needs Fortran-ordered data. is_vector=True takes the
    last axis as the components of itk.Vector pixels. When the array names a
    stream, the image's work on the memory waits for the producer's work on
    it. Raises ValueError for another layout (copy the array to a contiguous
    one first), a pixel type or dimension CudaImage does not wrap, an empty or
    read-only array or an invalid stream, and TypeError for an object with
    neither interface. A CudaImage given as `array` keeps its pixel type.
    """
    if hasattr(array, "_HeldCudaArrayInterface"):  # an itk.CudaImage
        is_vector = array.GetNumberOfComponentsPerPixel() > 1
    # A C-contiguous device array of a wrapped type, in one C++ call; None for
    # anything else, checked and explained below.
    image = _extension()._itkCudaImagePython._FastImageFromCudaArray(array, bool(keep_axes), bool(is_vector))
    if image is not None:
        return image
    if hasattr(array, "__cuda_array_interface__"):
        return _from_cuda_array_interface(array, keep_axes, is_vector)
    if hasattr(array, "__dlpack__") and hasattr(array, "__dlpack_device__"):
        return _from_dlpack(array, keep_axes, is_vector)
    raise TypeError(f"expected an object with __cuda_array_interface__ or __dlpack__ (CuPy, PyTorch, JAX), "
                    f"got {type(array).__name__}")
