# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""CudaSquareImageFilter and CudaMemoryProbe from Python (GPU path with a
device, ITK's CPU path without: the same pixels either way)."""

import numpy as np
import pytest

import itk_cudacommon as icc

SCALARS = {"UC": np.uint8, "SS": np.int16, "US": np.uint16, "SI": np.int32, "UI": np.uint32, "UL": np.uint64,
           "F": np.float32, "D": np.float64}


def random_image(code, dimension, seed=0):
    rng = np.random.default_rng(seed)
    shape = (3, 5, 7, 9)[:dimension]
    dtype = SCALARS[code]
    limit = 11 if np.issubdtype(dtype, np.integer) and np.dtype(dtype).itemsize == 1 else 100
    low = -limit if np.issubdtype(dtype, np.signedinteger) or np.issubdtype(dtype, np.floating) else 0
    values = rng.uniform(low, limit, size=shape).astype(dtype)
    return icc.cuda_image_from_image(values.copy()), values


@pytest.mark.parametrize("code", list(SCALARS))
@pytest.mark.parametrize("dimension", [2, 3, 4])
@pytest.mark.parametrize("in_place", [True, False])
def test_square_every_type(code, dimension, in_place):
    image, values = random_image(code, dimension, seed=dimension)
    square = icc.CudaSquareImageFilter[type(image)].New()
    square.SetInPlace(in_place)
    assert square.GetInPlace() == in_place
    square.SetInput(image)
    square.Update()
    result = np.asarray(square.GetOutput())
    expected = (values.astype(np.float64) * values).astype(values.dtype)
    assert result.dtype == values.dtype
    np.testing.assert_array_equal(result, expected)
    if icc.IsCudaAvailable():
        stats = square.GetOutput().GetTransferStatistics()
        assert stats["device_to_host_count"] == 1


def test_square_cpu_path_when_gpu_disabled():
    image, values = random_image("F", 3)
    square = icc.CudaSquareImageFilter[icc.CudaImage["F", 3]].New()
    square.GPUEnabledOff()
    assert square.GetGPUEnabled() is False
    square.InPlaceOff()
    square.SetInput(image)
    square.Update()
    np.testing.assert_array_equal(np.asarray(square.GetOutput()), values * values)
    assert square.GetOutput().GetTransferStatistics()["host_to_device_count"] == 0


def test_square_filter_type_checks():
    with pytest.raises(TypeError, match="scalar pixel types"):
        icc.CudaSquareImageFilter[icc.CudaImage["VF3", 3]]
    with pytest.raises(TypeError, match="CudaImage type"):
        icc.CudaSquareImageFilter["F"]
    square = icc.CudaSquareImageFilter["F", 2].New()
    with pytest.raises(TypeError, match="SetInput expects"):
        square.SetInput(icc.CudaImage["F", 3].New())
    with pytest.raises(TypeError, match="template"):
        icc.CudaSquareImageFilter()


def test_memory_probe_names():
    probe = icc.CudaMemoryProbe()
    assert probe.GetType() == "Cuda memory"
    assert probe.GetUnit() == "kB"
    probe.Start()
    probe.Stop()
    assert probe.GetNumberOfStops() == 1
    if not icc.IsCudaAvailable():
        assert probe.GetTotal() == 0


def test_memory_probe_sees_a_device_allocation(gpu):
    image = icc.CudaImage["F", 3].New()
    image.SetRegions((256, 256, 64))  # 16 MiB
    image.Allocate()
    image.FillBuffer(1.0)
    image.GetCudaDataManager().GetConstGPUBufferPointer()  # context and first allocation out of the way
    image.GetCudaDataManager().SetGPUBufferDirty()  # released (ReleaseDirtyGPUBuffer)
    probe = icc.CudaMemoryProbe()
    probe.Start()
    image.GetCudaDataManager().GetConstGPUBufferPointer()
    probe.Stop()
    assert 16384 <= probe.GetTotal() <= 16384 + 4096


def test_split_devices_are_checked():
    square = icc.CudaSquareImageFilter["F", 3].New()
    assert square.GetSplitDevices() == []
    square.SetSplitDevices([0, 1], [3, 1])
    assert square.GetSplitDevices() == [0, 1]
    assert square.GetSplitWeights() == [3.0, 1.0]
    with pytest.raises(RuntimeError, match="a second 1"):
        square.SetSplitDevices([1, 1])
    with pytest.raises(RuntimeError, match="one weight per device"):
        square.SetSplitDevices([0, 1], [1.0])
    square.SetSplitDevices([])
    assert square.GetSplitDevices() == []
    square.SetSplitAcrossAllDevices(True)
    assert square.GetSplitAcrossAllDevices() is True
    square.SetSplitDevices([0])
    assert square.GetSplitAcrossAllDevices() is False


def test_split_across_all_devices_uses_what_there_is(gpu):
    values = np.arange(64 * 32 * 16, dtype=np.float32).reshape(16, 32, 64) % 100
    image = icc.cuda_image_from_image(values.copy())
    square = icc.CudaSquareImageFilter[type(image)].New()
    square.InPlaceOff()
    square.SetSplitAcrossAllDevices(True)
    square.SetInput(image)
    square.Update()
    np.testing.assert_array_equal(np.asarray(square.GetOutput()), values * values)


def test_split_across_two_devices(cupy):
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs two CUDA devices")
    values = np.arange(101 * 67 * 45, dtype=np.float32).reshape(45, 67, 101) % 1000 - 500
    image = icc.cuda_image_from_image(values.copy())
    square = icc.CudaSquareImageFilter[type(image)].New()
    square.InPlaceOff()
    square.SetSplitDevices([0, 1])
    square.SetInput(image)
    square.Update()
    np.testing.assert_array_equal(np.asarray(square.GetOutput()), values * values)
    assert square.GetOutput().GetTransferStatistics()["device_to_host_count"] == 1
