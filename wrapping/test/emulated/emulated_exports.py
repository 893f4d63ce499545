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
    assert pointer == manager.GetConstGPUBufferPointer() != 0 and read_only is False
    assert manager.IsCPUBufferDirty() and not manager.IsGPUBufferDirty()  # the consumer may write
    assert manager.IsGPUBufferExported()
    assert img.GetTransferStatistics()["HostToDeviceCount"] == 1
    again = img.__cuda_array_interface__
    assert again == interface and again is not interface
    assert img.GetTransferStatistics()["HostToDeviceCount"] == 1  # nothing to copy the second time
    assert len(img._cuda_exports) == 1  # one hold per allocation


def test_a_new_allocation_gets_a_hold_of_its_own_and_the_old_one_stays():
    img = image()
    first = img.__cuda_array_interface__["data"][0]
    img.SetRegions([8, 8, 8])
    img.Allocate()
    img.FillBuffer(1.0)
    second = img.__cuda_array_interface__["data"][0]
    assert second != first
    assert len(img._cuda_exports) == 2


def test_a_cpu_write_through_numpy_is_uploaded_at_the_next_export():
    img = image()
    img.__cuda_array_interface__
    np.asarray(img)[...] = 5.0  # a host view may write: the GPU copy is stale
    assert img.GetCudaDataManager().IsGPUBufferDirty()
    img.__cuda_array_interface__
    assert img.GetTransferStatistics()["HostToDeviceCount"] == 2
    assert img.GetPixel([1, 2, 3]) == 5.0


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
    assert pointer == img.GetCudaDataManager().GetConstGPUBufferPointer()
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
