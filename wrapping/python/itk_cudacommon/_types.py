# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""Pixel types: ITK codes, NumPy type strings and the keys users may write."""

PIXEL_CODES = ("UC", "SS", "US", "SI", "UI", "UL", "F", "D", "VF2", "VF3")
SCALAR_CODES = PIXEL_CODES[:8]

# Dimensions each pixel type is available in.
DIMENSIONS = {code: (2, 3, 4) for code in SCALAR_CODES}
DIMENSIONS.update({"VF2": (2, 3), "VF3": (2, 3)})

# Type string of one (component) value, in the array interface's notation.
TYPESTR = {
    "UC": "|u1",
    "SS": "<i2",
    "US": "<u2",
    "SI": "<i4",
    "UI": "<u4",
    "UL": "<u8",
    "F": "<f4",
    "D": "<f8",
    "VF2": "<f4",
    "VF3": "<f4",
}
COMPONENTS = {code: 1 for code in SCALAR_CODES}
COMPONENTS.update({"VF2": 2, "VF3": 3})

# Scalar codes by type string; '=' and native-order spellings map too.
_SCALAR_BY_TYPESTR = {TYPESTR[code]: code for code in SCALAR_CODES}

_ALIASES = {
    "unsigned char": "UC",
    "uint8": "UC",
    "short": "SS",
    "int16": "SS",
    "unsigned short": "US",
    "uint16": "US",
    "int": "SI",
    "int32": "SI",
    "unsigned int": "UI",
    "uint32": "UI",
    "unsigned long": "UL",
    "uint64": "UL",
    "float": "F",
    "float32": "F",
    "double": "D",
    "float64": "D",
}


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
    if code == "F" and components in (2, 3):
        return f"VF{components}"
    raise ValueError(
        f"typestr: vector pixels of {components} x {typestr!r} are not available "
        "(vector images hold 2 or 3 float32 components)")


def pixel_code(key):
    """Normalize a pixel key: 'F', 'float', itk.F, itk.Vector[itk.F, 3], numpy.float32, ..."""
    if isinstance(key, str):
        if key in PIXEL_CODES:
            return key
        if key in _ALIASES:
            return _ALIASES[key]
        raise ValueError(f"unknown pixel type {key!r}: expected one of {', '.join(PIXEL_CODES)}")
    short = getattr(key, "short_name", None)  # itk.F, itk.UC, ... (itkCType)
    if isinstance(short, str) and short in PIXEL_CODES:
        return short
    name = getattr(key, "__name__", "")
    if name.startswith("itkVector"):  # itk.Vector[itk.F, 3] is class itkVectorF3
        code = "V" + name[len("itkVector"):]
        if code in PIXEL_CODES:
            return code
    try:  # NumPy scalar types and dtypes
        import numpy

        dtype = numpy.dtype(key)
        return code_from_typestr(dtype.str)
    except (TypeError, ValueError, ImportError):
        pass
    raise ValueError(f"unknown pixel type {key!r}: expected one of {', '.join(PIXEL_CODES)} or an itk type")


def check_dimension(code, dimension):
    if not isinstance(dimension, int) or isinstance(dimension, bool):
        raise TypeError(f"dimension: expected an int, got {dimension!r}")
    if dimension not in DIMENSIONS[code]:
        raise ValueError(
            f"dimension {dimension} is not available for pixel type {code}: expected one of {DIMENSIONS[code]}")
    return dimension
