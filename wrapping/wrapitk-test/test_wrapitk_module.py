# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""CudaCommon wrapped by ITK's own machinery: the classes, names and functions
of ITKCudaCommon 2.x's Python module, on ITK's itk-core wheel, with no import
of ours."""

import gc
import os
import pathlib
import re
import subprocess
import sys
import tarfile

import numpy as np
import pytest

import itk

ORIGINAL = pathlib.Path(os.environ.get(
    "CUDACOMMON_ORIGINAL_TARBALL",
    pathlib.Path(__file__).resolve().parents[3] / "shared/deps/itkcudacommon-2.1.0.tar.xz"))


def ramp(pixel=itk.F, size=(5, 4, 3)):
    image = itk.CudaImage[pixel, len(size)].New()
    image.SetRegions(list(size))
    image.Allocate()
    array = itk.array_view_from_image(image, ttype=itk.Image[pixel, len(size)])
    array[...] = (np.arange(array.size).reshape(array.shape) % 11) - 5
    image.Modified()
    return image


def test_cuda_image_is_an_itk_image_of_the_wheel():
    image_type = itk.CudaImage[itk.F, 3]
    assert issubclass(image_type, itk.Image[itk.F, 3])
    image = image_type.New()
    assert isinstance(image, itk.Image[itk.F, 3])
    assert itk.template(image) == (itk.CudaImage, (itk.F, 3))
    assert type(image).__name__ == "itkCudaImageF3"


@pytest.mark.parametrize("name", [
    "itkCudaImageUC2", "itkCudaImageUL4", "itkCudaImageD3", "itkCudaImageVF33", "itkCudaImageCVF24",
    "itkCudaDataManager", "itkCudaImageDataManagerCIF3",
    "itkImageSourceCIF3", "itkImageToImageFilterIF3CIF3", "itkImageToImageFilterCIF3IF3",
    "itkImageToImageFilterCIF3CIF3", "itkInPlaceImageFilterCIF3CIF3",
    "itkCudaImageToImageFilterCIF3CIF3", "itkCudaImageToImageFilterCIF3CIF3IPF",
    "itkCudaInPlaceImageFilterCIF3", "itkCudaInPlaceImageFilterCIF3CIF3",
    "itkCudaImageFromImageFilterF3", "itkCudaSquareImageFilterCIF3", "itkCudaSquareImageFilterCISS2",
    "itkCudaAbsImageFilterCIF2", "itkCudaAddImageFilterCIUC3",
])
def test_swig_names_of_the_original(name):
    itk.CudaImage  # loads the modules: their submodules are itk.itk<Submodule>Python
    itk.CudaSquareImageFilter
    holders = [key for key, module in list(sys.modules.items())
               if key.startswith("itk.itk") and key.endswith("Python") and hasattr(module, name)]
    assert holders, f"{name} is in none of the loaded SWIG modules"
    assert "itk.CudaCommonPython" in sys.modules


def run_fresh(script):
    """Runs `script` in a fresh Python process (ITK's lazy loading starts from
    nothing there); it prints "ok" at its end."""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and result.stdout.strip().endswith("ok"), result.stdout + result.stderr


def test_cuda_image_loads_without_the_filters():
    """ITK's lazy loading loads a WrapITK module whole: the CUDA filters are a
    module of their own (CudaCommonFilters), loaded at the first use of one of
    them, not with itk.CudaImage; their CudaImages are CudaCommon's, and
    itk.CudaCommon still has their names (as the 2.x module had its filter)."""
    script = (
        "import sys, itk\n"
        "image_type = itk.CudaImage[itk.F, 3]\n"
        "assert 'itk.CudaCommonPython' in sys.modules\n"
        "assert 'itk.CudaCommonFiltersPython' not in sys.modules, 'itk.CudaImage loaded the filters'\n"
        "assert 'itk.itkCudaSquareImageFilterPython' not in sys.modules\n"
        "square_type = itk.CudaCommon.CudaSquareImageFilter  # 2.x's module name still finds it\n"
        "assert 'itk.CudaCommonFiltersPython' in sys.modules\n"
        "assert square_type is itk.CudaSquareImageFilter is itk.CudaCommonFilters.CudaSquareImageFilter\n"
        "assert itk.CudaCommon.cuda_add_image_filter is itk.cuda_add_image_filter\n"
        "square = itk.CudaSquareImageFilter[image_type].New()\n"
        "assert isinstance(square, itk.ImageToImageFilter[image_type, image_type])\n"
        "assert itk.CudaCommonFilters.CudaAddImageFilter is itk.CudaAddImageFilter\n"
        "try:\n"
        "    itk.CudaCommon.MedianImageFilter\n"
        "    raise SystemExit('itk.CudaCommon has a name of neither module')\n"
        "except AttributeError:\n"
        "    pass\n"
        "print('ok')\n")
    run_fresh(script)


def test_loading_compares_no_template_with_itself():
    """ITK's loader checks every class it registers against the namespace's
    template of that name, nearly always the template itself; as a Mapping an
    itkTemplate compared every instantiation on both sides (more than half of
    the load of CudaCommon's classes). With __init_cudacommon__.py's identity
    test no load reads a template's items for it, and equality between
    different templates is the Mapping's still."""
    script = (
        "import itk\n"
        "from itk.support.template_class import itkTemplate\n"
        "calls = []\n"
        "items = itkTemplate.items\n"
        "itkTemplate.items = lambda self: calls.append(self) or items(self)\n"
        "itk.CudaImage[itk.F, 3]\n"
        "itk.CudaSquareImageFilter\n"
        "assert not calls, f'{len(calls)} comparisons of templates read all their items'\n"
        "assert itk.CudaImage == itk.CudaImage and not (itk.CudaImage != itk.CudaImage)\n"
        "assert itk.CudaImage != itk.Image and not (itk.CudaImage == itk.Image) and calls\n"
        "print('ok')\n")
    run_fresh(script)


def test_version_and_type_strings():
    assert re.fullmatch(r"\d+\.\d+\.\d+", itk.CudaCommon.__version__)
    itk.CudaImage
    assert itk.CudaCommon.get_itk_type("<f4") == "F"
    assert itk.CudaCommon.get_itk_type("|u1") == "UC"
    assert itk.CudaCommon.get_itk_type("<u8") == "UL"
    with pytest.raises(KeyError):
        itk.CudaCommon.get_itk_type("<c8")


@pytest.mark.parametrize("pixel", [itk.F, itk.SS, itk.UC])
def test_host_pixels_and_itk_filters(pixel):
    image = ramp(pixel)
    expected = itk.array_from_image(image, ttype=itk.Image[pixel, 3])
    index = itk.Index[3]([4, 3, 2])
    assert image.GetPixel(index) == expected[2, 3, 4]
    image.FillBuffer(7)
    assert (itk.array_view_from_image(image, ttype=itk.Image[pixel, 3]) == 7).all()
    duplicate = itk.ImageDuplicator[itk.Image[pixel, 3]].New()
    duplicate.SetInputImage(image)
    duplicate.Update()
    assert (itk.array_from_image(duplicate.GetOutput()) == 7).all()


@pytest.mark.parametrize("pixel", [itk.F, itk.SS])
def test_square_abs_add_against_numpy(pixel):
    image = ramp(pixel)
    values = itk.array_from_image(image, ttype=itk.Image[pixel, 3]).astype(np.float64)
    square = itk.CudaSquareImageFilter[itk.CudaImage[pixel, 3]].New()
    square.SetInput(image)
    square.InPlaceOff()
    square.Update()
    np.testing.assert_array_equal(
        itk.array_from_image(square.GetOutput(), ttype=itk.Image[pixel, 3]), values**2)
    absolute = itk.CudaAbsImageFilter[itk.CudaImage[pixel, 3]].New()
    absolute.SetInput(image)
    absolute.Update()
    np.testing.assert_array_equal(
        itk.array_from_image(absolute.GetOutput(), ttype=itk.Image[pixel, 3]), np.abs(values))
    add = itk.CudaAddImageFilter[itk.CudaImage[pixel, 3]].New()
    add.SetInput1(image)
    add.SetInput2(absolute.GetOutput())
    add.Update()
    np.testing.assert_array_equal(
        itk.array_from_image(add.GetOutput(), ttype=itk.Image[pixel, 3]), values + np.abs(values))


def test_snake_case_filter():
    image = ramp()
    expected = itk.array_from_image(image, ttype=itk.Image[itk.F, 3]) ** 2
    squared = itk.cuda_square_image_filter(image)  # in place: the output takes the input's buffer
    assert isinstance(squared, itk.CudaImage[itk.F, 3])
    np.testing.assert_array_equal(itk.array_from_image(squared, ttype=itk.Image[itk.F, 3]), expected)


def test_cuda_image_from_image_shares_the_pixels():
    image = itk.Image[itk.F, 2].New()
    image.SetRegions([8, 6])
    image.Allocate()
    image.FillBuffer(2.5)
    cuda = itk.cuda_image_from_image(image)
    assert isinstance(cuda, itk.CudaImage)
    assert isinstance(cuda, itk.CudaImage[itk.F, 2])
    assert (itk.array_from_image(cuda, ttype=itk.Image[itk.F, 2]) == 2.5).all()


def test_data_manager_of_a_host_image():
    image = ramp()
    manager = image.GetCudaDataManager()
    assert isinstance(manager, itk.CudaDataManager)
    assert manager.GetBufferSize() == 5 * 4 * 3 * 4
    assert not manager.IsCPUBufferDirty()


def test_cuda_array_interface_without_a_device_names_the_reason():
    from conftest import _device_count

    if _device_count():
        pytest.skip("a CUDA device is present")
    image = ramp()
    with pytest.raises(RuntimeError, match="cannot make the GPU copy current: no CUDA device"):
        image.__cuda_array_interface__
    # Nothing was lost: the CPU copy is still the current one.
    assert not image.GetCudaDataManager().IsCPUBufferDirty()
    assert image.GetPixel([1, 1, 1]) == itk.array_from_image(image, ttype=itk.Image[itk.F, 3])[1, 1, 1]


def test_cuda_array_interface_is_a_view(cupy):
    image = ramp(size=(6, 5, 4))
    expected = itk.array_from_image(image, ttype=itk.Image[itk.F, 3])
    interface = image.__cuda_array_interface__
    assert interface["shape"] == (4, 5, 6)
    assert interface["typestr"] == "<f4"
    assert interface["version"] == 3
    view = cupy.asarray(image)
    np.testing.assert_array_equal(cupy.asnumpy(view), expected)
    view += 1
    np.testing.assert_array_equal(itk.array_from_image(image, ttype=itk.Image[itk.F, 3]), expected + 1)


def test_python_reads_keep_the_gpu_copy(cupy):
    # GetPixel and itk.array_from_image read: as C++ GetPixel() const, they
    # bring the CPU copy up to date and leave the GPU copy current, so the
    # next GPU use uploads nothing.
    image = ramp(size=(6, 5, 4))
    expected = itk.array_from_image(image, ttype=itk.Image[itk.F, 3])
    cupy.asarray(image)[...] *= 2  # written on the GPU: the CPU copy is stale
    manager = image.GetCudaDataManager()
    assert manager.IsCPUBufferDirty()
    before = image.GetTransferStatistics()
    assert image.GetPixel([1, 2, 3]) == expected[3, 2, 1] * 2
    copied = itk.array_from_image(image)
    np.testing.assert_array_equal(copied, expected * 2)
    assert copied.dtype == np.float32 and copied.flags.writeable and copied.base is None
    # keep_axes as ITK gives it for an itk.Image: the buffer in ITK's axis
    # order (x first), reshaped, not transposed.
    np.testing.assert_array_equal(itk.array_from_image(image, keep_axes=True),
                                  itk.array_from_image(itk.image_from_array(expected * 2), keep_axes=True))
    assert not manager.IsGPUBufferDirty() and not manager.IsCPUBufferDirty()
    cupy.asarray(image)  # the GPU copy is still current: no upload
    after = image.GetTransferStatistics()
    assert after["DeviceToHostCount"] == before["DeviceToHostCount"] + 1
    assert after["HostToDeviceCount"] == before["HostToDeviceCount"]
    # A view may be written: it still makes the GPU copy stale.
    itk.array_view_from_image(image)
    assert manager.IsGPUBufferDirty()


def test_array_from_image_of_a_vector_cuda_image_is_itks():
    image = itk.CudaImage[itk.Vector[itk.F, 3], 2].New()
    image.SetRegions([4, 2])
    image.Allocate()
    image.FillBuffer(itk.Vector[itk.F, 3]([1, 2, 3]))
    plain = itk.Image[itk.Vector[itk.F, 3], 2].New()
    plain.SetRegions([4, 2])
    plain.Allocate()
    plain.FillBuffer(itk.Vector[itk.F, 3]([1, 2, 3]))
    for keep_axes in (False, True):
        ours = itk.array_from_image(image, keep_axes=keep_axes)
        theirs = itk.array_from_image(plain, keep_axes=keep_axes)
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)
    assert itk.array_from_image(itk.CudaImage[itk.F, 2].New()) is None


def test_vector_image_interface_has_the_components_last(cupy):
    image = itk.CudaImage[itk.Vector[itk.F, 3], 2].New()
    image.SetRegions([4, 2])
    image.Allocate()
    image.FillBuffer(itk.Vector[itk.F, 3]([1, 2, 3]))
    view = cupy.asarray(image)
    assert view.shape == (2, 4, 3)
    np.testing.assert_array_equal(cupy.asnumpy(view)[1, 3], [1, 2, 3])


def test_image_from_cuda_array_keeps_the_array_alive(cupy):
    array = cupy.arange(24, dtype=cupy.float32).reshape(2, 3, 4)
    image = itk.cuda_image_from_cuda_array(array)
    assert tuple(image.GetBufferedRegion().GetSize()) == (4, 3, 2)
    del array
    gc.collect()
    cupy.get_default_memory_pool().free_all_blocks()
    filler = cupy.full((1 << 20,), -1, dtype=cupy.float32)  # would reuse a freed block
    np.testing.assert_array_equal(
        itk.array_from_image(image, ttype=itk.Image[itk.F, 3]).ravel(), np.arange(24, dtype=np.float32))
    del filler


class _Interface:
    """An object with a CUDA Array Interface and no device memory behind it:
    what cuda_image_from_cuda_array must refuse before touching the pointer."""

    def __init__(self, **fields):
        self.__cuda_array_interface__ = {
            "shape": (2, 3), "typestr": "<f4", "data": (4096, False), "version": 3, "strides": None, **fields}


@pytest.mark.parametrize("fields, message", [
    ({"stream": 0}, "stream: expected None or a non-zero stream handle"),
    ({"stream": -5}, "stream: expected None or a non-zero stream handle"),
    ({"strides": (4, 8)}, "is not a contiguous C"),
    ({"typestr": "<c8"}, "has no CudaImage pixel type"),
    ({"shape": (0, 3)}, "has no elements"),
    ({"data": (0, False)}, "is not a device address"),
])
def test_image_from_cuda_array_refuses_bad_interfaces(fields, message):
    with pytest.raises(ValueError, match=message):
        itk.cuda_image_from_cuda_array(_Interface(**fields))


def test_image_from_cuda_array_follows_the_producer_stream(cupy):
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        array = cupy.zeros((64, 64, 64), dtype=cupy.float32)
        for _ in range(20):  # queued work on the producer's stream, not finished yet
            array += 1
        assert array.__cuda_array_interface__["stream"] == stream.ptr
        image = itk.cuda_image_from_cuda_array(array)
    values = itk.array_from_image(image, ttype=itk.Image[itk.F, 3])
    assert (values == 20).all()


def test_image_from_cuda_array_refuses_other_layouts(cupy):
    with pytest.raises(ValueError, match="contiguous"):
        itk.cuda_image_from_cuda_array(cupy.zeros((4, 6), dtype=cupy.float32)[:, ::2])
    with pytest.raises(ValueError, match="has no CudaImage pixel type"):
        itk.cuda_image_from_cuda_array(cupy.zeros((4, 6), dtype=cupy.complex64))
    with pytest.raises(TypeError):
        itk.cuda_image_from_cuda_array(np.zeros((4, 6), dtype=np.float32))


def test_square_on_the_gpu_result_is_current_on_the_device(cupy):
    image = ramp()
    expected = itk.array_from_image(image, ttype=itk.Image[itk.F, 3]) ** 2
    squared = itk.cuda_square_image_filter(image)
    assert not squared.GetCudaDataManager().IsGPUBufferDirty()
    np.testing.assert_array_equal(cupy.asnumpy(cupy.asarray(squared)), expected)


def test_array_interface_property_is_the_modules_function():
    # One C call per read (no Python method in between), for CudaCommon's
    # types; RTK's types keep CudaImage.i's property.
    prop = itk.CudaImage[itk.F, 3].__dict__["__cuda_array_interface__"]
    assert type(prop.fget).__name__ == "builtin_function_or_method"
    assert prop.fget.__name__ == "itkCudaImageF3__HeldCudaArrayInterface"
    assert "__dlpack__" in itk.CudaImage[itk.UC, 2].__dict__
    assert "__dlpack_device__" in itk.CudaImage[itk.Vector[itk.F, 3], 3].__dict__


def test_fast_path_declines_what_it_does_not_take():
    fast = sys.modules["itk.itkCudaImagePython"]._FastImageFromCudaArray
    assert fast(object(), False, False) is None
    assert fast(_Interface(), True, False) is None  # keep_axes: the Python function's
    assert fast(_Interface(typestr="<c8"), False, False) is None
    assert fast(_Interface(strides=(4, 8)), False, False) is None
    assert fast(_Interface(stream=0), False, False) is None


def test_dlpack_arguments_refused_before_the_buffer_is_touched():
    image = ramp()
    with pytest.raises(BufferError, match="copy=True"):
        image.__dlpack__(copy=True)
    with pytest.raises(ValueError, match="stream"):
        image.__dlpack__(stream=0)
    assert not image.GetCudaDataManager().IsCPUBufferDirty()


def test_dlpack_is_a_view_for_torch(torch):
    image = ramp(size=(6, 5, 4))
    expected = itk.array_from_image(image, ttype=itk.Image[itk.F, 3])
    assert image.__dlpack_device__() == (2, image.GetCudaDataManager().GetDevice())
    tensor = torch.from_dlpack(image)
    assert tuple(tensor.shape) == (4, 5, 6)
    assert tensor.dtype == torch.float32
    np.testing.assert_array_equal(tensor.cpu().numpy(), expected)
    tensor.mul_(2)
    np.testing.assert_array_equal(itk.array_from_image(image, ttype=itk.Image[itk.F, 3]), expected * 2)
    # The capsule keeps the image: the tensor outlives the Python object.
    del image
    gc.collect()
    np.testing.assert_array_equal(tensor.cpu().numpy(), expected * 2)


def test_view_keeps_its_buffer_when_the_image_reallocates(cupy):
    image = ramp(size=(64, 32, 16))
    view = cupy.asarray(image)
    before = cupy.asnumpy(view)
    image.SetRegions([8, 8, 8])
    image.Allocate()  # a new buffer; the view's stays held by the image's Python object
    image.FillBuffer(7.0)
    cupy.asarray(image)  # the new buffer on the device
    cupy.get_default_memory_pool().free_all_blocks()
    filler = cupy.full((1 << 20,), -1, dtype=cupy.float32)
    np.testing.assert_array_equal(cupy.asnumpy(view), before)
    assert (cupy.asnumpy(cupy.asarray(image)) == 7).all()
    del filler


@pytest.mark.parametrize("dtype, shape, is_vector, image_type", [
    ("float32", (3, 4, 5), False, lambda: itk.CudaImage[itk.F, 3]),
    ("int16", (4, 5), False, lambda: itk.CudaImage[itk.SS, 2]),
    ("uint8", (2, 3, 4), False, lambda: itk.CudaImage[itk.UC, 3]),
    ("float32", (4, 5, 3), True, lambda: itk.CudaImage[itk.Vector[itk.F, 3], 2]),
])
def test_fast_path_makes_the_image_over_the_array(cupy, dtype, shape, is_vector, image_type):
    array = cupy.arange(int(np.prod(shape))).astype(dtype).reshape(shape)
    fast = sys.modules["itk.itkCudaImagePython"]._FastImageFromCudaArray
    image = fast(array, False, is_vector)
    assert isinstance(image, image_type())
    assert image.__cuda_array_interface__["data"][0] == array.data.ptr
    spatial = shape[:-1] if is_vector else shape
    assert tuple(image.GetBufferedRegion().GetSize()) == tuple(reversed(spatial))
    np.testing.assert_array_equal(cupy.asnumpy(cupy.asarray(image)), cupy.asnumpy(array))
    same = itk.cuda_image_from_cuda_array(array, is_vector=is_vector)
    assert type(same) is type(image)


@pytest.fixture
def original(tmp_path):
    if not ORIGINAL.is_file():
        pytest.skip(f"ITKCudaCommon 2.1.0's sources are not at {ORIGINAL}")
    with tarfile.open(ORIGINAL) as archive:
        archive.extractall(tmp_path, filter="data")
    return tmp_path


@pytest.mark.parametrize("relative", [
    "test/itkCudaArrayInterfaceTest.py", "test/itkCudaImageFromImageTest.py"])
def test_original_tests_unchanged(original, relative, cupy, torch):
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(original / relative)],
                            cwd=original, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"\d+ passed", result.stdout), result.stdout


@pytest.mark.parametrize("relative", [
    "examples/itkCudaArrayInterfaceCupyExample.py", "examples/itkCudaArrayInterfaceTorchExample.py"])
def test_original_examples_unchanged(original, relative, cupy, torch):
    result = subprocess.run([sys.executable, str(original / relative)], cwd=original, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


def test_device_queries():
    from conftest import _device_count

    count = _device_count()
    assert itk.CudaCommon.IsCudaAvailable() == (count > 0)
    assert itk.CudaCommon.DeviceCount() == count
    if count:
        assert itk.CudaCommon.CudaUnavailableReason() == ""
        assert 0 <= itk.CudaCommon.DefaultDevice() < count
    else:
        assert itk.CudaCommon.CudaUnavailableReason() != ""
