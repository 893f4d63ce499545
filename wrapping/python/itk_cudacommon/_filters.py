# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""CudaSquareImageFilter[ImageType] and CudaMemoryProbe."""

from . import core
from ._image import CudaImage
from ._types import SCALAR_CODES


class _FilterTemplate(type):
    _classes = {}

    def __getitem__(cls, key):
        if isinstance(key, tuple):
            key = CudaImage[key]
        if not (isinstance(key, type) and issubclass(key, CudaImage) and key._code is not None):
            raise TypeError(f"{cls.__name__}[ImageType] takes a CudaImage type such as CudaImage['F', 3], got {key!r}")
        if key._code not in SCALAR_CODES:
            raise TypeError(f"{cls.__name__} takes scalar pixel types ({', '.join(SCALAR_CODES)}), got {key._code}")
        klass = _FilterTemplate._classes.get((cls, key))
        if klass is None:
            klass = _FilterTemplate(f"{cls.__name__}{key._code}{key._dimension}", (cls,),
                                    {"_image_type": key, "__module__": cls.__module__})
            _FilterTemplate._classes[(cls, key)] = klass
        return klass


class CudaSquareImageFilter(metaclass=_FilterTemplate):
    """Squares every pixel on the GPU (ITK's SquareImageFilter on the CPU
    without a device). Runs in place by default: InPlaceOff() keeps the input."""

    _image_type = None

    def __init__(self):
        if self._image_type is None:
            raise TypeError("CudaSquareImageFilter is a template: use CudaSquareImageFilter[ImageType].New()")
        self._handle = core.CudaSquareImageFilterHandle(self._image_type._code, self._image_type._dimension)
        self._input = None

    @classmethod
    def New(cls):
        return cls()

    def SetInput(self, image):
        if not isinstance(image, self._image_type):
            raise TypeError(f"SetInput expects a {self._image_type!r}, got {type(image).__name__}")
        self._handle.SetInput(image._handle)
        self._input = image

    def GetInput(self):
        return self._input

    def Update(self):
        self._handle.Update()

    def GetOutput(self):
        return self._image_type(_handle=self._handle.GetOutput())

    def SetInPlace(self, in_place):
        self._handle.SetInPlace(bool(in_place))

    def GetInPlace(self):
        return self._handle.GetInPlace()

    def InPlaceOn(self):
        self.SetInPlace(True)

    def InPlaceOff(self):
        self.SetInPlace(False)

    def SetGPUEnabled(self, enabled):
        self._handle.SetGPUEnabled(bool(enabled))

    def GetGPUEnabled(self):
        return self._handle.GetGPUEnabled()

    def SetDevice(self, device):
        """Run on `device`; -1 (default) follows the input's device."""
        self._handle.SetDevice(int(device))

    def GetDevice(self):
        return self._handle.GetDevice()

    def SetSplitDevices(self, devices, weights=None):
        """Share an update's work between `devices` (a list of indices), in
        proportion to `weights` (equal when None); [] uses the output's
        device alone. See CudaDeviceSplitter in the C++ documentation."""
        self._handle.SetSplitDevices([int(d) for d in devices], [float(w) for w in (weights or [])])

    def GetSplitDevices(self):
        return list(self._handle.GetSplitDevices())

    def GetSplitWeights(self):
        return list(self._handle.GetSplitWeights())

    def SetSplitAcrossAllDevices(self, all_devices):
        """Share an update's work between every visible device, equally (one
        GPU simply does it all); False returns to the output's device alone."""
        self._handle.SetSplitAcrossAllDevices(bool(all_devices))

    def GetSplitAcrossAllDevices(self):
        return self._handle.GetSplitAcrossAllDevices()

    def GPUEnabledOn(self):
        self.SetGPUEnabled(True)

    def GPUEnabledOff(self):
        self.SetGPUEnabled(False)


class CudaMemoryProbe:
    """Device memory in use (kB) sampled at each Start()/Stop()."""

    def __init__(self):
        self._handle = core.CudaMemoryProbeHandle()

    def Start(self):
        self._handle.Start()

    def Stop(self):
        self._handle.Stop()

    def GetMean(self):
        return self._handle.GetMean()

    def GetTotal(self):
        return self._handle.GetTotal()

    def GetNumberOfStops(self):
        return self._handle.GetNumberOfStops()

    def GetType(self):
        return self._handle.GetType()

    def GetUnit(self):
        return self._handle.GetUnit()
