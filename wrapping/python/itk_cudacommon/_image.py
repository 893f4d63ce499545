# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""CudaImage[pixel, dimension]: ITK-style images mirrored on the GPU."""

from . import core
from ._types import COMPONENTS, TYPESTR, check_dimension, pixel_code

# DLPack device types (dlpack.h): kDLCUDA.
DLPACK_CUDA = 2


class ImageRegion:
    """An index and a size, as itk.ImageRegion holds them."""

    def __init__(self, index, size):
        self._index = tuple(int(i) for i in index)
        self._size = tuple(int(s) for s in size)
        if len(self._index) != len(self._size):
            raise ValueError(f"index {self._index} and size {self._size} differ in dimension")

    def GetIndex(self):
        return self._index

    def GetSize(self):
        return self._size

    def GetImageDimension(self):
        return len(self._size)

    def GetNumberOfPixels(self):
        n = 1
        for s in self._size:
            n *= s
        return n

    def __eq__(self, other):
        return isinstance(other, ImageRegion) and (self._index, self._size) == (other._index, other._size)

    def __repr__(self):
        return f"ImageRegion(index={self._index}, size={self._size})"


def _ints(values, what, dimension, minimum=None):
    try:
        result = [int(v) for v in values]
    except TypeError:
        raise TypeError(f"{what}: expected a sequence of {dimension} integers, got {values!r}") from None
    if len(result) != dimension:
        raise ValueError(f"{what}: expected {dimension} values, got {len(result)}")
    if minimum is not None and any(v < minimum for v in result):
        raise ValueError(f"{what}: values must be >= {minimum}, got {result}")
    return result


def _region(region, dimension):
    """(index, size) from a size sequence, an ImageRegion or an itk.ImageRegion."""
    if hasattr(region, "GetIndex") and hasattr(region, "GetSize"):
        index = _ints(region.GetIndex(), "index", dimension)
        size = _ints(region.GetSize(), "size", dimension, minimum=0)
        return index, size
    return [0] * dimension, _ints(region, "size", dimension, minimum=0)


def _floats(values, what, dimension):
    try:
        result = [float(v) for v in values]
    except TypeError:
        raise TypeError(f"{what}: expected a sequence of {dimension} numbers, got {values!r}") from None
    if len(result) != dimension:
        raise ValueError(f"{what}: expected {dimension} values, got {len(result)}")
    return result


class CudaDataManager:
    """The data manager of a CudaImage: dirty flags, transfers and raw pointers."""

    def __init__(self, handle, image):
        self._handle = handle
        self._image = image  # the manager lives as long as the image does

    def SetCPUDirtyFlag(self, dirty):
        self._handle.SetCPUDirtyFlag(bool(dirty))

    def SetGPUDirtyFlag(self, dirty):
        self._handle.SetGPUDirtyFlag(bool(dirty))

    def IsCPUBufferDirty(self):
        return self._handle.IsCPUBufferDirty()

    def IsGPUBufferDirty(self):
        return self._handle.IsGPUBufferDirty()

    def SetCPUBufferDirty(self):
        self._handle.SetCPUBufferDirty()

    def SetGPUBufferDirty(self):
        self._handle.SetGPUBufferDirty()

    def UpdateCPUBuffer(self):
        self._handle.UpdateCPUBuffer()

    def UpdateGPUBuffer(self):
        self._handle.UpdateGPUBuffer()

    def Update(self):
        return self._handle.Update()

    def GetBufferSize(self):
        return self._handle.GetBufferSize()

    def GetGPUBufferSize(self):
        return self._handle.GetGPUBufferSize()

    def GetGPUBufferPointer(self):
        """Device address (int); GPU copy current, CPU copy then stale."""
        return self._handle.GetGPUBufferPointer()

    def GetConstGPUBufferPointer(self):
        return self._handle.GetConstGPUBufferPointer()

    def GetCPUBufferPointer(self):
        return self._handle.GetCPUBufferPointer()

    def GetConstCPUBufferPointer(self):
        return self._handle.GetConstCPUBufferPointer()

    def GetReleaseDirtyGPUBuffer(self):
        return self._handle.GetReleaseDirtyGPUBuffer()

    def SetReleaseDirtyGPUBuffer(self, release):
        self._handle.SetReleaseDirtyGPUBuffer(bool(release))

    def GetConstCPUAccessReadOnly(self):
        return self._handle.GetConstCPUAccessReadOnly()

    def SetConstCPUAccessReadOnly(self, read_only):
        """Trust const CPU access to be read-only (see the C++ documentation:
        cheaper GPU -> CPU read -> GPU, but writes through ITK iterators then
        need Modified()). Shared by grafted images."""
        self._handle.SetConstCPUAccessReadOnly(bool(read_only))

    def IsGPUBufferExported(self):
        """True while a view (CUDA Array Interface, DLPack, a borrowing image)
        holds the device buffer: it is then never freed, released or moved."""
        return self._handle.IsGPUBufferExported()

    def GetTransferStatistics(self):
        """Copies made so far: a dict of counts and bytes, host to device,
        device to host and device to device (peer, when the image moved)."""
        s = self._handle.GetTransferStatistics()
        return {
            "host_to_device_count": s.HostToDeviceCount,
            "host_to_device_bytes": s.HostToDeviceBytes,
            "device_to_host_count": s.DeviceToHostCount,
            "device_to_host_bytes": s.DeviceToHostBytes,
            "peer_count": s.PeerCount,
            "peer_bytes": s.PeerBytes,
        }

    def ResetTransferStatistics(self):
        self._handle.ResetTransferStatistics()


class _CudaImageTemplate(type):
    """Makes CudaImage[pixel, dimension] return the class of that image type."""

    _classes = {}

    def __getitem__(cls, key):
        if not isinstance(key, tuple) or len(key) != 2:
            raise TypeError("CudaImage takes two template arguments: CudaImage[pixel, dimension]")
        code = pixel_code(key[0])
        dimension = check_dimension(code, key[1])
        klass = _CudaImageTemplate._classes.get((code, dimension))
        if klass is None:
            klass = _CudaImageTemplate(f"CudaImage{code}{dimension}", (CudaImage,),
                                       {"_code": code, "_dimension": dimension, "__module__": cls.__module__})
            _CudaImageTemplate._classes[(code, dimension)] = klass
        return klass

    def __repr__(cls):
        if cls._code is None:
            return "<template itk_cudacommon.CudaImage[pixel, dimension]>"
        return f"<class itk_cudacommon.CudaImage[{cls._code!r}, {cls._dimension}]>"


class CudaImage(metaclass=_CudaImageTemplate):
    """An itk::CudaImage<pixel, dimension>: instantiate with CudaImage['F', 3].New()."""

    _code = None
    _dimension = None

    def __init__(self, _handle=None):
        if type(self)._code is None:
            raise TypeError("CudaImage is a template: use CudaImage[pixel, dimension].New()")
        self._handle = _handle if _handle is not None else core.CudaImageHandle(self._code, self._dimension)

    @classmethod
    def New(cls):
        return cls()

    # --- type
    def GetImageDimension(self):
        return self._dimension

    def GetNumberOfComponentsPerPixel(self):
        return COMPONENTS[self._code]

    @classmethod
    def GetPixelCode(cls):
        return cls._code

    @property
    def typestr(self):
        """Array-interface type string of one component, e.g. '<f4'."""
        return TYPESTR[self._code]

    @property
    def shape(self):
        """C-order shape: the buffered size reversed, then the components of vector pixels."""
        shape = tuple(reversed(self._handle.GetBufferedRegionSize()))
        components = COMPONENTS[self._code]
        return shape + (components,) if components > 1 else shape

    # --- geometry
    def SetRegions(self, region):
        index, size = _region(region, self._dimension)
        self._handle.SetRegions(index, size)

    def GetBufferedRegion(self):
        return ImageRegion(self._handle.GetBufferedRegionIndex(), self._handle.GetBufferedRegionSize())

    def GetLargestPossibleRegion(self):
        return ImageRegion(self._handle.GetLargestPossibleRegionIndex(), self._handle.GetLargestPossibleRegionSize())

    def GetRequestedRegion(self):
        return ImageRegion(self._handle.GetRequestedRegionIndex(), self._handle.GetRequestedRegionSize())

    def GetSpacing(self):
        return tuple(self._handle.GetSpacing())

    def SetSpacing(self, spacing):
        if isinstance(spacing, (int, float)):
            spacing = [spacing] * self._dimension
        self._handle.SetSpacing(_floats(spacing, "spacing", self._dimension))

    def GetOrigin(self):
        return tuple(self._handle.GetOrigin())

    def SetOrigin(self, origin):
        self._handle.SetOrigin(_floats(origin, "origin", self._dimension))

    def GetDirection(self):
        """The direction cosines as a dimension x dimension NumPy array."""
        import numpy

        return numpy.array(self._handle.GetDirection(), dtype=float).reshape(self._dimension, self._dimension)

    def SetDirection(self, direction):
        import numpy

        if hasattr(direction, "GetVnlMatrix"):  # itk.Matrix
            import itk

            direction = itk.array_from_matrix(direction)
        matrix = numpy.asarray(direction, dtype=float)
        if matrix.shape != (self._dimension, self._dimension):
            raise ValueError(f"direction: expected a {self._dimension}x{self._dimension} matrix, got shape {matrix.shape}")
        self._handle.SetDirection([float(v) for v in matrix.ravel()])

    # --- pixels
    def Allocate(self, initialize=False):
        self._handle.Allocate(bool(initialize))

    def _value(self, value):
        components = COMPONENTS[self._code]
        if components == 1:
            return [float(value)]
        return _floats(value, "pixel value", components)

    def _pixel(self, values):
        return values[0] if COMPONENTS[self._code] == 1 else tuple(values)

    def FillBuffer(self, value):
        self._handle.FillBuffer(self._value(value))

    def GetPixel(self, index):
        return self._pixel(self._handle.GetPixel(_ints(index, "index", self._dimension)))

    def SetPixel(self, index, value):
        self._handle.SetPixel(_ints(index, "index", self._dimension), self._value(value))

    def UpdateBuffers(self):
        self._handle.UpdateBuffers()

    def Modified(self):
        self._handle.Modified()

    def GetCudaDataManager(self):
        return CudaDataManager(self._handle.GetCudaDataManager(), self)

    def GetTransferStatistics(self):
        return self.GetCudaDataManager().GetTransferStatistics()

    def _is_empty(self):
        return self._handle.GetBufferSize() == 0

    # --- zero-copy interfaces
    @property
    def __cuda_array_interface__(self):
        """Version 3. Makes the GPU copy current; the CPU copy is then stale, since
        the consumer may write. 'stream' is the image's stream, on which its
        copies and kernels are queued: consumers on other streams wait for it.
        The consumer keeps this image alive, and this image holds the device
        buffer for as long as it lives: it is never freed, released or moved
        to another device (SetDevice() raises), whatever any image grafted to
        this one does, so views stay valid and see the image's data."""
        pointer = 0
        stream = 1
        if not self._is_empty():
            pointer = self._handle.ExportGPUBuffer(True)
            stream = self._handle.GetStream()
        return {
            "shape": self.shape,
            "typestr": TYPESTR[self._code],
            "data": (pointer, False),
            "version": 3,
            "strides": None,
            "stream": stream,
        }

    @property
    def __array_interface__(self):
        """Version 3, host memory. Makes the CPU copy current; the GPU copy is then
        stale, since the consumer may write."""
        pointer = 0 if self._is_empty() else self._handle.GetCPUBufferPointer(True)
        return {
            "shape": self.shape,
            "typestr": TYPESTR[self._code],
            "data": (pointer, False),
            "version": 3,
            "strides": None,
        }

    def __dlpack_device__(self):
        return (DLPACK_CUDA, self._handle.GetDevice())

    def GetDevice(self):
        """The CUDA device of the GPU copy (the default device until chosen)."""
        return self._handle.GetDevice()

    def SetDevice(self, device):
        """Move the image to another device (a current GPU copy is copied device to
        device). Raises RuntimeError while a view holds the device buffer."""
        self._handle.SetDevice(int(device))

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of the device buffer (versioned when the consumer's
        max_version allows 1.x). The consumer's `stream` (None: the legacy
        default stream) is made to wait for the work queued on the image's
        stream; -1 skips that."""
        if copy:
            raise BufferError("copy=True: CudaImage exports its device buffer without copying")
        if self._is_empty():
            raise BufferError("the image has no pixels (allocate it or set its regions first)")
        device = self.__dlpack_device__()
        if dl_device is not None and tuple(dl_device) != device:
            raise BufferError(f"dl_device {tuple(dl_device)} requested; the image is on {device}")
        if stream is None:
            stream = 1
        if stream != -1 and (not isinstance(stream, int) or stream == 0):
            raise ValueError(f"stream: expected None, -1, 1, 2 or a CUDA stream handle, got {stream!r}")
        versioned = max_version is not None and tuple(max_version)[0] >= 1
        # The capsule holds the device buffer until the consumer releases the tensor.
        capsule = self._handle.MakeDLPackCapsule(list(self.shape), TYPESTR[self._code], versioned, self)
        if stream != -1:
            core.StreamWaitFor(stream, self._handle.GetStream())
        return capsule

    def __repr__(self):
        region = self.GetBufferedRegion()
        return f"<CudaImage[{self._code!r}, {self._dimension}] size={region.GetSize()}>"

    def GetDescription(self):
        """ITK's Print() of the image and its data manager."""
        return self._handle.ToString()
