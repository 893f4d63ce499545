# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""Pixel types of the wrapped CudaImage classes and their array type strings."""

from . import _wrapped

# Type string of one (component) value, in the array interfaces' notation.
SCALAR_TYPESTR = {
    "UC": "|u1",
    "SS": "<i2",
    "US": "<u2",
    "SI": "<i4",
    "UI": "<u4",
    "UL": "<u8",
    "F": "<f4",
    "D": "<f8",
}
_SCALAR_BY_TYPESTR = {typestr: code for code, typestr in SCALAR_TYPESTR.items()}


def _pixel_code(class_name):
    """'VF3' for itkCudaImageVF32 (pixel code, then the dimension's digit)."""
    return class_name[len("itkCudaImage"):-1]


# (pixel code, dimension) -> class name, for every wrapped image type.
IMAGE_CLASSES = {(_pixel_code(name), int(name[-1])): name for name, _, _ in _wrapped.IMAGES}


def normalize_typestr(typestr):
    """'<f4' for '<f4', '=f4' or 'f4' (little-endian only); ValueError otherwise."""
    if not isinstance(typestr, str) or len(typestr) < 2:
        raise ValueError(f"typestr: expected a string such as '<f4', got {typestr!r}")
    if typestr[0] in "<>|=":
        order, body = typestr[0], typestr[1:]
    else:
        order, body = "=", typestr
    if order == ">" and body not in ("u1", "i1"):
        raise ValueError(f"typestr: big-endian data ({typestr!r}) is not supported")
    if body in ("u1", "i1"):
        return "|" + body
    return "<" + body


def code_from_typestr(typestr, components=1):
    """The pixel code of images whose values have this type string."""
    normalized = normalize_typestr(typestr)
    code = _SCALAR_BY_TYPESTR.get(normalized)
    if code is None:
        known = ", ".join(sorted(_SCALAR_BY_TYPESTR))
        raise ValueError(f"typestr: {typestr!r} has no CudaImage pixel type (known: {known})")
    if components == 1:
        return code
    if code == "F" and (f"VF{components}", 2) in IMAGE_CLASSES:
        return f"VF{components}"
    raise ValueError(
        f"typestr: vector pixels of {components} x {typestr!r} are not available "
        "(vector images hold 2 to 4 float32 components)")


def image_class_name(code, dimension):
    """The CudaImage class for a pixel code and a dimension; ValueError if not wrapped."""
    name = IMAGE_CLASSES.get((code, dimension))
    if name is None:
        dimensions = sorted(d for c, d in IMAGE_CLASSES if c == code)
        raise ValueError(f"dimension {dimension} is not available for pixel type {code}: expected one of "
                         f"{tuple(dimensions)}")
    return name
