"""Run by `import itk` (ITK's module loader runs itk/__init_<module>__.py):
adds CudaCommon's functions to itk, and its version and device queries to
itk.CudaCommon; makes itk.CudaImage[P, D] a key wherever itk.Image[P, D] is
one (below)."""

import atexit
import importlib
import itertools
import sys

_itk = sys.modules["itk"]
_itk.CudaCommon.__version__ = importlib.import_module("itk.CudaCommonVersion").CUDACOMMON_GLOBAL_VERSION_STRING

for _name in ("itk.itkCudaImageFromCudaArray", "itk.itkCudaImageFromImage"):
    _module = importlib.import_module(_name)
    for _function in _module.__all__:
        setattr(_itk, _function, getattr(_module, _function))


def _module_function(name, doc):
    def function(*args):
        _itk.CudaImage  # loads CudaCommon's classes (itk loads modules lazily)
        return getattr(sys.modules["itk.itkCudaImagePython"], name)(*args)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


for _name, _doc in (
    ("IsCudaAvailable", "True when a usable CUDA device exists (never raises)."),
    ("CudaUnavailableReason", "Why IsCudaAvailable() is False ('' when it is True)."),
    ("DeviceCount", "How many CUDA devices are visible (0 without a device or driver)."),
    ("DefaultDevice", "The device new images' GPU copies go to."),
    ("CurrentDevice", "The calling thread's current CUDA device."),
    ("SetCurrentDevice", "SetCurrentDevice(device): make `device` the calling thread's current device."),
    ("DeviceOfPointer", "The device of a device pointer; ValueError for host memory."),
    ("LegacyStreamWaitFor", "LegacyStreamWaitFor(stream): CudaCommon's work (on the legacy default stream) "
                            "waits for the work queued so far on `stream` (array-interface values)."),
    ("StreamWaitFor", "StreamWaitFor(waiter, producer): stream `waiter` waits for `producer`'s work so far."),
    ("CudaMemoryPoolIsEnabled", "True when device buffers come from CudaCommon's stream-ordered memory pools "
                                "(the default; ITK_CUDA_MEMORY_POOL=0 turns them off)."),
    ("CudaTrimMemoryPools", "CudaTrimMemoryPools(keep_bytes=0): give the devices the memory the pools keep "
                            "(all but keep_bytes per device), after the device work queued so far."),
    ("CudaSetMemoryPoolReleaseThreshold", "CudaSetMemoryPoolReleaseThreshold(nbytes): bytes of freed memory "
                                          "each pool keeps for later allocations."),
    ("CudaGetMemoryPoolReleaseThreshold", "CudaGetMemoryPoolReleaseThreshold(device): the release threshold "
                                          "of `device`'s pool, in bytes."),
    ("GetITKVersion", "The ITK release the module was compiled with."),
):
    setattr(_itk.CudaCommon, _name, _module_function(_name, _doc))


def _cuda_filters_in_cudacommon(name):
    """itk.CudaCommon.<name> for the names of the CUDA filters' module
    (itk.CudaCommon.CudaSquareImageFilter, itk.CudaCommon.cuda_add_image_filter),
    as when they were CudaCommon's (ITKCudaCommon 2.x wrapped
    CudaSquareImageFilter in it): they are the module CudaCommonFilters's,
    loaded by it at first use. The module's __getattr__ (PEP 562): only
    names itk.CudaCommon lacks come here."""
    filters = getattr(_itk, "CudaCommonFilters", None)
    if filters is not None and name in filters.itk_base_global_lazy_attributes:
        return getattr(filters, name)
    raise AttributeError(f"module 'CudaCommon' has no attribute {name!r}")


_itk.CudaCommon.__getattr__ = _cuda_filters_in_cudacommon


def CudaMemoryProbe():
    """A new itk::CudaMemoryProbe: Start()/Stop() sample the device memory in
    use (kB); GetMean(), GetTotal(), GetNumberOfStops() as ITK's probes."""
    _itk.CudaImage  # loads CudaCommon's classes
    return sys.modules["itk.itkCudaImagePython"].itkCudaMemoryProbe()


_itk.CudaMemoryProbe = _itk.CudaCommon.CudaMemoryProbe = CudaMemoryProbe


def _trim_pools_at_exit():
    """At exit, the pools give back what they keep (for tools such as
    compute-sanitizer, which report memory still held at exit)."""
    module = sys.modules.get("itk.itkCudaImagePython")
    if module is not None and module.IsCudaAvailable():
        module.CudaTrimMemoryPools(0)


atexit.register(_trim_pools_at_exit)


class _CudaImageKeys:
    """itk.CudaImage[P, D] as a template key wherever itk.Image[P, D] is one.

    ITK's Python helpers look templates up by an object's exact class:
    itk.PyBuffer for itk.array_view_from_image, a filter's New(image) and the
    snake_case forms (itk.median_image_filter(image)). A CudaImage is an
    itk.Image (its class derives from the wheel's), so each instantiation for
    an itk.Image[P, D] is also found under itk.CudaImage[P, D]: for the
    templates loaded when CudaCommon's classes are, and for those ITK's lazy
    loading adds later (through itkTemplate.__add__, which registers every
    wrapped class)."""

    def __init__(self):
        self.cuda_of = {}  # the wheel's image class -> its CudaImage class
        self.keys_with = None  # a class -> [(template, key)], made at the first CudaImage
        self.made = {}  # template -> the alias keys set in it (a class wrapped for one replaces it)

    def aliases(self, key):
        if len(key) == 1:  # most keys: one image type
            cuda = self.cuda_of.get(key[0])
            return [] if cuda is None else [(cuda,)]
        options = [(p, self.cuda_of[p]) if p in self.cuda_of else (p,) for p in key]
        return [k for k in itertools.product(*options) if k != key]

    def alias(self, template, key):
        if template.__name__ == "itk::CudaImage":
            return
        cls = template.__template__[key]
        for alias in self.aliases(key):
            if alias not in template.__template__:
                template.__template__[alias] = cls
                self.made.setdefault(template, set()).add(alias)

    def before_add(self, template, parameters):
        """A class wrapped for an alias key replaces the alias (no warning).
        An alias key holds a CudaImage class, so a C++ parameter string
        without "CudaImage" names none of them: it is not parsed here (the
        template parses it once more to add the class)."""
        made = self.made.get(template)
        if made and (not isinstance(parameters, str) or "CudaImage" in parameters):
            key = tuple(template.__find_param__(parameters))
            if key in made:
                made.discard(key)
                del template.__template__[key]

    def index(self, template, key):
        for parameter in key:
            try:
                self.keys_with.setdefault(parameter, []).append((template, key))
            except TypeError:  # an unhashable parameter names no image class
                pass

    def added(self, template, key, cls):
        """itkTemplate.__add__ registered `cls` as template[key]."""
        from itk.support.template_class import itkTemplateBase

        if not isinstance(key, tuple):
            return
        if template.__name__ == "itk::PyBuffer":
            _copying_reads_keep_gpu_copy(cls)
        if template.__name__ != "itk::CudaImage":
            if self.keys_with is not None:
                self.index(template, key)
            if any(p in self.cuda_of for p in key):
                self.alias(template, key)
            return
        registered = itkTemplateBase.__template_instantiations_object_to_name__
        base = next((b for b in cls.__mro__[1:] if registered.get(b, (None,))[0] is not None
                     and registered[b][0].__name__ == "itk::Image"), None)
        if base is None:
            return
        if self.keys_with is None:
            self.keys_with = {}
            for other in list(itkTemplateBase.__named_template_registry__.values()):
                for other_key in list(other.__template__):
                    if isinstance(other_key, tuple):
                        self.index(other, other_key)
        self.cuda_of[base] = cls
        for other, other_key in self.keys_with.get(base, ()):
            self.alias(other, other_key)


def _copying_reads_keep_gpu_copy(pybuffer):
    """itk.PyBuffer[...].GetArrayFromImage, behind itk.array_from_image,
    itk.GetArrayFromImage and np.asarray(image), copies a CudaImage through
    its _CopyHostArray(): a read, which keeps a current GPU copy current as
    C++ GetPixel() const does (ITK's own takes the non-const buffer pointer,
    which tells the image the host may write). Any other image takes ITK's
    path, unchanged."""
    original = getattr(pybuffer, "GetArrayFromImage", None)
    if original is None or hasattr(original, "__wrapped__"):
        return

    def GetArrayFromImage(image, keep_axes=False, update=True):
        copy = getattr(image, "_CopyHostArray", None)
        if copy is None:
            return original(image, keep_axes, update)
        return copy(keep_axes, update)

    GetArrayFromImage.__doc__ = original.__doc__
    GetArrayFromImage.__wrapped__ = original
    pybuffer.GetArrayFromImage = staticmethod(GetArrayFromImage)


def _hook_template_additions(keys):
    from itk.support.template_class import itkTemplate, itkTemplateBase

    loaded = itkTemplateBase.__named_template_registry__.get("itk::PyBuffer")
    for pybuffer in (loaded.__template__.values() if loaded is not None else ()):
        _copying_reads_keep_gpu_copy(pybuffer)  # PyBuffer loaded before CudaCommon

    original = itkTemplate.__add__

    def __add__(self, paramSetString, cl):
        keys.before_add(self, paramSetString)
        original(self, paramSetString, cl)
        entry = itkTemplateBase.__template_instantiations_object_to_name__.get(cl)
        if entry is not None and entry[0] is self:
            keys.added(self, entry[1], cl)

    __add__.__doc__ = original.__doc__
    __add__.__wrapped__ = original
    itkTemplate.__add__ = __add__


_hook_template_additions(_CudaImageKeys())


def _hook_template_equality():
    """itk.<Template> == itself without comparing its instantiations.

    ITK's loader (itk.support.base.itk_load_swig_module) checks each class
    it registers against the namespace's value of the same name
    (`current_value != template_container`), which is nearly always the
    template itself; an itkTemplate is a Mapping, whose equality builds a dict
    of every instantiation on both sides. Loading a module so costs the sum
    of its templates' sizes over its classes, and CudaCommon's templates are
    large (every pixel type and dimension, and the CudaImage keys added to
    ITK's templates above): more than half of the load of CudaCommon's
    classes. A template is a singleton per C++ name, so the identity test
    gives the answer the comparison gives; other comparisons are the
    Mapping's, unchanged."""
    from itk.support.template_class import itkTemplate

    mapping_eq = itkTemplate.__eq__

    def __eq__(self, other):
        return True if self is other else mapping_eq(self, other)

    __eq__.__wrapped__ = mapping_eq
    itkTemplate.__eq__ = __eq__


_hook_template_equality()
