# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""How the classes of CudaCommonPython become ITK types of the itk package.

- Each class is added to its itkTemplate (itk.CudaImage[itk.F, 3], ...), so
  itk.template(), itk.down_cast() and the functional filter forms know it.
- ITK's helpers look templates up by an object's exact class (PyBuffer for
  itk.array_view_from_image, a filter's New(image), ...). Every template
  instantiated for an itk.Image[P, D] is therefore also found under the
  matching itk.CudaImage[P, D], now and for templates ITK loads later (its
  lazy loading adds them through itkTemplate.__add__).
- The wheel's FillBuffer, SetPixel, GetPixel and GetPixelContainer reach the
  pixel buffer without the virtual GetBufferPointer(); a CudaImage's versions
  first bring the CPU copy up to date (and mark the GPU copy stale when they
  write), then call the wheel's.
"""

import itertools

from . import _wrapped

_READ, _WRITE, _OVERWRITE = 0, 1, 2


def check_itk_version():
    """ImportError unless the itk package is the release this package was built against."""
    try:
        import itk
    except ImportError as error:
        raise ImportError(
            f"itk_cudacommon needs ITK's Python package: pip install itk-core=={_wrapped.ITK_VERSION}") from error
    found = itk.Version.GetITKVersion()
    if found != _wrapped.ITK_VERSION:
        raise ImportError(
            f"itk_cudacommon was compiled against ITK {_wrapped.ITK_VERSION} and runs only with that release of "
            f"ITK's wheels (their classes must match byte for byte); this environment has itk {found}. "
            f"Install pip install itk-core=={_wrapped.ITK_VERSION}, or build itk_cudacommon against ITK {found}.")


def check_swig_runtime(core):
    """ImportError unless the wheel's methods take our objects (one SWIG type table)."""
    import itk.ITKCommonBasePython as wheel_base
    import itk.itkImagePython as wheel_images

    probe = core.itkCudaImageUC2.New()
    try:
        wheel_images.itkImageBase2.GetBufferedRegion(probe)
        wheel_base.itkLightObject.GetNameOfClass(probe)
    except TypeError as error:
        raise ImportError(
            "itk_cudacommon's SWIG module does not share SWIG's type table with ITK's wheels (it was generated "
            "by a SWIG with another runtime version than theirs, 4.x with 'swig_runtime_data4'); rebuild it "
            "with SWIG 4.2 or 4.3") from error


def _new_with_inputs(cls):
    """ITK's New(*args, **kwargs): set inputs and attributes (itk.set_inputs)."""
    new_object = cls.New
    from itk.support import template_class

    def New(*args, **kwargs):
        instance = new_object()
        template_class.New(instance, *args, **kwargs)
        return instance

    New.__doc__ = f"A new {cls.__name__}; arguments set its inputs and attributes, as for ITK's classes."
    cls.__New_orig__ = staticmethod(new_object)
    cls.New = staticmethod(New)


def _image_methods(cls, base):
    """What a CudaImage class adds to the wheel's image class `base`."""
    from . import core

    dlpack_of = core._CudaCommonPython._DLPackOf  # the extension's function itself: one call

    def FillBuffer(self, value):
        self._PrepareHostAccess(_OVERWRITE)
        base.FillBuffer(self, value)

    def SetPixel(self, index, value):
        self._PrepareHostAccess(_WRITE)
        base.SetPixel(self, index, value)

    def GetPixel(self, *args):
        self._PrepareHostAccess(_READ)
        return base.GetPixel(self, *args)

    def GetPixelContainer(self, *args):
        self._PrepareHostAccess(_WRITE)
        return base.GetPixelContainer(self, *args)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of the device buffer (versioned when the consumer's
        max_version allows 1.x). GPU copy made current, CPU copy stale. The
        consumer's `stream` (None: the legacy default stream) waits for the
        work queued on the image's stream; -1 skips that. The capsule holds
        the image and its device buffer until the consumer releases it."""
        return dlpack_of(self, stream, max_version, dl_device, copy)

    def GetDevice(self):
        """The CUDA device of the GPU copy (the default device until chosen)."""
        return self.GetCudaDataManager().GetDevice()

    def SetDevice(self, device):
        """Move the image to another device (see CudaDataManager::SetDevice())."""
        self.GetCudaDataManager().SetDevice(int(device))

    def GetTransferStatistics(self):
        """The data manager's copy counts and bytes, as a dict."""
        return self.GetCudaDataManager().GetTransferStatistics()

    for function in (FillBuffer, SetPixel, GetPixel, GetPixelContainer):
        function.__doc__ = (f"{base.__name__}.{function.__name__}, after the CPU copy is brought up to date "
                            "(and the GPU copy marked stale when it writes).")
    for function in (FillBuffer, SetPixel, GetPixel, GetPixelContainer, __dlpack__, GetDevice, SetDevice,
                     GetTransferStatistics):
        setattr(cls, function.__name__, function)
    cls.__dlpack_device__ = cls.__dict__["_DLPackDevice"]  # the method wrapper, which binds
    # The property calls the module's function itself (no method wrapper in between).
    cls.__cuda_array_interface__ = property(
        getattr(core._CudaCommonPython, f"{cls.__name__}__CudaArrayInterface"),
        doc="CUDA Array Interface, version 3: GPU copy made current, CPU copy stale (the consumer may write). "
            "'stream' is the image's, on which its copies and kernels are queued. The image's Python object "
            "holds the device buffer: it is never freed, released or moved while the object lives, and the "
            "consumer keeps the object.")


class _Aliases:
    """itk.CudaImage[P, D] as a key wherever itk.Image[P, D] is one."""

    def __init__(self):
        self.by_image = {}  # the wheel's image class -> our CudaImage class
        self.skipped = set()  # templates of our own image types

    def keys_for(self, key):
        options = [(p, self.by_image[p]) if p in self.by_image else (p,) for p in key]
        if all(len(o) == 1 for o in options):
            return []
        return [k for k in itertools.product(*options) if k != key]

    def add(self, template, key, cls):
        if template.__name__ in self.skipped:
            return
        for alias in self.keys_for(key):
            template.__template__.setdefault(alias, cls)

    def add_all(self, template):
        for key, cls in list(template.__template__.items()):
            if isinstance(key, tuple):
                self.add(template, key, cls)


def _hook_template_additions(aliases):
    from itk.support.template_class import itkTemplate, itkTemplateBase

    if getattr(itkTemplate.__add__, "_cudacommon", False):
        return
    original = itkTemplate.__add__

    def __add__(self, paramSetString, cl):
        original(self, paramSetString, cl)
        entry = itkTemplateBase.__template_instantiations_object_to_name__.get(cl)
        if entry is not None and entry[0] is self:
            aliases.add(self, entry[1], cl)

    __add__._cudacommon = True
    __add__.__doc__ = original.__doc__
    itkTemplate.__add__ = __add__


def _functional_form(template_name):
    """itk.cuda_square_image_filter(image, **kwargs), as ITK's snake_case forms."""
    import itk
    from itk.support.helpers import camel_to_snake_case

    short = template_name.split("::")[-1]

    def function(*args, **kwargs):
        instance = getattr(itk, short).New(*args, **kwargs)
        return instance.__internal_call__()

    function.__name__ = camel_to_snake_case(short)
    function.__qualname__ = function.__name__
    function.__doc__ = f"Functional interface for {short}: New(*args, **kwargs), update, return the output."
    return function


def register(package_name, *functions):
    """Register the module's classes in itk (CudaImage, the CUDA filters and
    their functional forms); returns the templates CudaImage,
    CudaSquareImageFilter and CudaImageFromImageFilter."""
    import sys

    import itk
    from itk.support.template_class import itkTemplate, itkTemplateBase

    from . import core

    # The templates our arguments name must be loaded (itk is lazy).
    itk.Image, itk.Vector, itk.CovariantVector, itk.ImageSource, itk.ImageToImageFilter  # noqa: B018
    itk.InPlaceImageFilter  # noqa: B018
    import itk.itkImagePython as wheel_images

    aliases = _Aliases()
    images = itkTemplate("itk::CudaImage")
    aliases.skipped.add(images.__name__)
    for name, arguments, base_name in _wrapped.IMAGES:
        cls = getattr(core, name)
        base = getattr(wheel_images, base_name)
        _image_methods(cls, base)
        _new_with_inputs(cls)
        if cls not in itkTemplateBase.__template_instantiations_object_to_name__:
            images.__add__(arguments, cls)
        aliases.by_image[base] = cls
    templates = {}
    for name, template_name, arguments in _wrapped.CLASSES:
        cls = getattr(core, name)
        _new_with_inputs(cls)
        template = itkTemplate(template_name)
        if cls not in itkTemplateBase.__template_instantiations_object_to_name__:
            template.__add__(arguments, cls)
        templates[template_name] = template

    _hook_template_additions(aliases)
    for template in list(itkTemplateBase.__named_template_registry__.values()):
        aliases.add_all(template)

    # itkTemplate looks its lazily loaded modules up by name (for a missing key
    # or attribute); ours are loaded already.
    from itk.support import base

    for template in [images, *templates.values()]:
        base.itk_base_global_lazy_attributes.setdefault(template.__name__.split("::")[-1], set())

    square = templates["itk::CudaSquareImageFilter"]
    from_image = templates["itk::CudaImageFromImageFilter"]
    names = {
        "CudaImage": images,
        "CudaDataManager": core.itkCudaDataManager,
        "CudaMemoryProbe": core.itkCudaMemoryProbe,
    }
    # Each filter template as itk.<Name>, and its functional form.
    for template_name in (
        "itk::CudaSquareImageFilter",
        "itk::CudaAbsImageFilter",
        "itk::CudaAddImageFilter",
        "itk::CudaImageFromImageFilter",
    ):
        template = templates[template_name]
        short = template_name.split("::")[-1]
        form = _functional_form(template.__name__)
        names[short] = template
        names[form.__name__] = form
    names.update({f.__name__: f for f in functions})
    # itk.CudaCommon, as ITKCudaCommon's wheels name their module.
    package = sys.modules[package_name]
    for key, value in names.items():
        setattr(itk, key, value)
        setattr(package, key, value)
    itk.CudaCommon = package
    return images, square, from_image
