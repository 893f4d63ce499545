# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""Several devices: the current device need not be the image's, and images
move between devices device to device. The two-GPU tests skip elsewhere."""

import itk
import numpy as np
import pytest

import itk_cudacommon as icc


@pytest.fixture
def two_gpus(gpu):
    if icc.core.DeviceCount() < 2:
        pytest.skip(f"needs two CUDA devices, found {icc.core.DeviceCount()}")


def test_device_helpers(gpu):
    count = icc.core.DeviceCount()
    assert count >= 1
    assert 0 <= icc.core.DefaultDevice() < count
    with pytest.raises(ValueError, match=f"invalid CUDA device {count}"):
        icc.core.SetCurrentDevice(count)
    icc.core.SetCurrentDevice(count - 1)
    assert icc.core.CurrentDevice() == count - 1


def test_device_helpers_without_a_device():
    if icc.IsCudaAvailable():
        pytest.skip("a CUDA device is present; this covers machines without one")
    assert icc.core.DeviceCount() == 0
    with pytest.raises(ValueError, match="invalid CUDA device 0"):
        icc.core.SetCurrentDevice(0)


def make_image(value):
    image = itk.CudaImage[itk.F, 3].New()
    image.SetRegions([33, 17, 9])
    image.Allocate()
    image.FillBuffer(value)
    return image


def test_consumers_on_another_current_device(two_gpus, torch, cupy):
    image = make_image(1.5)
    image.SetDevice(0)
    icc.core.SetCurrentDevice(1)  # as JAX leaves it, say
    tensor = torch.from_dlpack(image)  # with a stream of device 0 while device 1 is current
    assert tensor.device == torch.device("cuda", 0)
    assert tensor.data_ptr() == int(image.GetCudaDataManager().GetConstGPUBufferPointer())
    tensor.mul_(2.0)
    torch.cuda.synchronize(0)
    assert image.GetPixel((32, 16, 8)) == 3.0
    view = cupy.asarray(image)
    assert float(view.sum()) == 3.0 * 33 * 17 * 9
    assert icc.core.CurrentDevice() == 1


def test_an_image_moves_device_to_device(two_gpus, cupy, collect):
    image = make_image(0.0)
    image.SetDevice(0)
    with cupy.cuda.Device(0):
        view = cupy.from_dlpack(image)
        view[...] = cupy.arange(view.size, dtype=cupy.float32).reshape(view.shape)
        cupy.cuda.runtime.deviceSynchronize()
    with pytest.raises(RuntimeError, match="a view holds its device buffer"):
        image.SetDevice(1)  # the view would be left behind
    del view
    collect()
    image.GetCudaDataManager().ResetTransferStatistics()
    image.SetDevice(1)
    stats = image.GetTransferStatistics()
    assert stats["PeerCount"] == 1 and stats["PeerBytes"] == 33 * 17 * 9 * 4
    assert stats["HostToDeviceCount"] == 0 and stats["DeviceToHostCount"] == 0
    assert image.__dlpack_device__() == (2, 1)
    np.testing.assert_array_equal(np.asarray(image).ravel(), np.arange(33 * 17 * 9, dtype=np.float32))
