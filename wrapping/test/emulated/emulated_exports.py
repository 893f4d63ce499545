# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""The export paths of a CudaImage (__cuda_array_interface__, DLPack) on the
emulated device backend, where "device" buffers are host memory: they run on
any machine. Run by test_emulated_device.py in a process of its own (the
backend is switched for the whole process)."""

import itk
import numpy as np
import pytest

import itk_cudacommon as icc

icc.core._UseEmulatedDeviceMemoryForTests()


def image(pixel=itk.F, size=(4, 5, 6), value=2.0):
    result = itk.CudaImage[pixel, len(size)].New()
    result.SetRegions(list(size))
    result.Allocate()
    result.FillBuffer(value)
    return result


def test_interface_makes_the_gpu_copy_current_and_holds_the_buffer():
    img = image()
    manager = img.GetCudaDataManager()
    interface = img.__cuda_array_interface__
    assert interface["shape"] == (6, 5, 4)
    assert interface["typestr"] == "<f4" and interface["descr"] == [("", "<f4")]
    assert interface["version"] == 3 and interface["strides"] is None
    assert interface["stream"] == manager.GetStream()
    pointer, read_only = interface["data"]
    assert pointer == int(manager.GetConstGPUBufferPointer()) != 0 and read_only is False
    assert manager.IsCPUBufferDirty() and not manager.IsGPUBufferDirty()  # the consumer may write
    assert manager.IsGPUBufferExported()
    assert img.GetTransferStatistics()["HostToDeviceCount"] == 1
    again = img.__cuda_array_interface__
    assert again == interface and again is not interface
    assert img.GetTransferStatistics()["HostToDeviceCount"] == 1  # nothing to copy the second time


def test_a_new_allocation_gets_a_hold_of_its_own_and_the_old_one_stays():
    img = image()
    first = img.__cuda_array_interface__["data"][0]
    img.SetRegions([8, 8, 8])
    img.Allocate()
    img.FillBuffer(1.0)
    second = img.__cuda_array_interface__["data"][0]
    assert second != first
    # The first buffer is still allocated (a view of it stays valid) while the image's object lives.
    assert icc.core.DeviceOfPointer(first) == img.GetDevice()
    del img
    import gc

    gc.collect()
    with pytest.raises(ValueError, match="not CUDA device memory"):
        icc.core.DeviceOfPointer(first)
    with pytest.raises(ValueError, match="not CUDA device memory"):
        icc.core.DeviceOfPointer(second)


def test_a_cpu_write_through_numpy_is_uploaded_at_the_next_export():
    img = image()
    img.__cuda_array_interface__
    np.asarray(img)[...] = 5.0  # a host view may write: the GPU copy is stale
    assert img.GetCudaDataManager().IsGPUBufferDirty()
    img.__cuda_array_interface__
    assert img.GetTransferStatistics()["HostToDeviceCount"] == 2
    assert img.GetPixel([1, 2, 3]) == 5.0


def test_python_reads_keep_the_gpu_copy_current():
    img = image()
    img.__cuda_array_interface__  # the consumer may write: the CPU copy is stale
    manager = img.GetCudaDataManager()
    assert manager.IsCPUBufferDirty()
    assert img.GetPixel([1, 2, 3]) == 2.0  # one download
    np.testing.assert_array_equal(itk.array_from_image(img), np.full((6, 5, 4), 2.0, np.float32))
    assert not manager.IsGPUBufferDirty() and not manager.IsCPUBufferDirty()
    img.__cuda_array_interface__  # still current on the device: nothing goes up
    statistics = img.GetTransferStatistics()
    assert (statistics["HostToDeviceCount"], statistics["DeviceToHostCount"]) == (1, 1)


@pytest.mark.parametrize("pixel", [itk.UC, itk.US, itk.SS, itk.UI, itk.SI, itk.UL, itk.F, itk.D])
def test_typestr_matches_numpy(pixel):
    img = image(pixel, (3, 2), 1)
    assert img.__cuda_array_interface__["typestr"] == np.asarray(img).dtype.str


def test_vector_pixels_have_a_component_axis_last():
    img = image(itk.Vector[itk.F, 3], (4, 2), [1, 2, 3])
    interface = img.__cuda_array_interface__
    assert interface["shape"] == (2, 4, 3) and interface["typestr"] == "<f4"


def test_an_empty_image_has_a_null_interface():
    img = itk.CudaImage[itk.F, 2].New()
    interface = img.__cuda_array_interface__
    assert interface["data"] == (0, False) and interface["shape"] == (0, 0) and interface["stream"] is None


@pytest.mark.parametrize("max_version, name", [(None, "dltensor"), ((1, 0), "dltensor_versioned")])
def test_dlpack_capsules_describe_the_device_buffer(max_version, name):
    img = image()
    capsule = img.__dlpack__(max_version=max_version)
    assert f'"{name}"' in repr(capsule)
    pointer, device_type, device, shape, strides, typestr, read_only, owner = icc.core.ConsumeDLPackCapsule(capsule)
    assert pointer == int(img.GetCudaDataManager().GetConstGPUBufferPointer())
    assert (device_type, device) == img.__dlpack_device__() == (2, img.GetDevice())
    assert shape == (6, 5, 4) and strides == (20, 4, 1) and typestr == "<f4" and read_only is False
    assert img.GetCudaDataManager().IsGPUBufferExported()
    del owner  # the consumer releases the tensor


def test_dlpack_argument_errors():
    img = image()
    with pytest.raises(BufferError, match="copy=True"):
        img.__dlpack__(copy=True)
    with pytest.raises(BufferError, match="dl_device"):
        img.__dlpack__(dl_device=(2, 7))
    with pytest.raises(ValueError, match="stream"):
        img.__dlpack__(stream=0)
    with pytest.raises(BufferError, match="no pixels"):
        itk.CudaImage[itk.F, 2].New().__dlpack__()


class Interface:
    """An object with a given __cuda_array_interface__ (and the image it views, kept alive)."""

    def __init__(self, owner, **changes):
        self.owner = owner
        self.__cuda_array_interface__ = dict(owner.__cuda_array_interface__, **changes)


def test_an_image_from_an_interface_views_its_memory():
    source = image(size=(4, 5, 6), value=3.0)
    view = itk.cuda_image_from_cuda_array(source)
    assert type(view) is itk.CudaImage[itk.F, 3]
    assert tuple(view.GetBufferedRegion().GetSize()) == (4, 5, 6)
    pointer = int(source.GetCudaDataManager().GetConstGPUBufferPointer())
    assert int(view.GetCudaDataManager().GetConstGPUBufferPointer()) == pointer
    assert view.GetPixel([1, 2, 3]) == 3.0  # downloaded from the shared buffer
    other = itk.cuda_image_from_cuda_array(Interface(source, strides=(80, 16, 4)))  # C order given explicitly
    assert int(other.GetCudaDataManager().GetConstGPUBufferPointer()) == pointer
    del source
    assert other.GetPixel([3, 4, 5]) == 3.0  # the interface's owner is kept alive


def test_vector_images_from_an_interface():
    source = image(itk.Vector[itk.F, 3], (4, 2), [1, 2, 3])
    view = itk.cuda_image_from_cuda_array(source)  # a CudaImage keeps its pixel type
    assert type(view) is itk.CudaImage[itk.Vector[itk.F, 3], 2]
    assert tuple(view.GetPixel([3, 1])) == (1.0, 2.0, 3.0)
    assert type(itk.cuda_image_from_cuda_array(Interface(source), is_vector=True)) is type(view)


@pytest.mark.parametrize("changes, error, match", [
    ({"strides": (4, 20, 80)}, ValueError, "strides"),
    ({"data": (1, False)}, ValueError, "not CUDA device memory"),
    ({"shape": (1, 1, 1, 1, 120)}, ValueError, "dimension 5"),
    ({"typestr": "<c8"}, ValueError, "typestr"),
    ({"mask": object()}, ValueError, "mask"),
])
def test_an_unusual_interface_gets_the_checks_error(changes, error, match):
    source = image()
    with pytest.raises(error, match=match):
        itk.cuda_image_from_cuda_array(Interface(source, **changes))


def test_a_read_only_interface_is_refused():
    source = image()
    pointer = source.__cuda_array_interface__["data"][0]
    with pytest.raises(ValueError, match="read-only"):
        itk.cuda_image_from_cuda_array(Interface(source, data=(pointer, True)))


def test_keep_axes_takes_fortran_order():
    source = image(size=(4, 5, 6))
    view = itk.cuda_image_from_cuda_array(Interface(source, shape=(4, 5, 6), strides=(4, 16, 80)), keep_axes=True)
    assert tuple(view.GetBufferedRegion().GetSize()) == (4, 5, 6)
