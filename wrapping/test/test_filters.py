# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""CudaSquareImageFilter and CudaMemoryProbe from Python (GPU path with a
device, ITK's CPU path without: the same pixels either way)."""

import itk
import numpy as np
import pytest

import itk_cudacommon as icc
from conftest import needs_template_type_errors

ITK_TYPES = {"UC": itk.UC, "SS": itk.SS, "US": itk.US, "SI": itk.SI, "UI": itk.UI, "UL": itk.UL, "F": itk.F, "D": itk.D}
SCALARS = {"UC": np.uint8, "SS": np.int16, "US": np.uint16, "SI": np.int32, "UI": np.uint32, "UL": np.uint64,
           "F": np.float32, "D": np.float64}


def random_image(code, dimension, seed=0):
    rng = np.random.default_rng(seed)
    shape = (3, 5, 7, 9)[:dimension]
    dtype = SCALARS[code]
    limit = 11 if np.issubdtype(dtype, np.integer) and np.dtype(dtype).itemsize == 1 else 100
    low = -limit if np.issubdtype(dtype, np.signedinteger) or np.issubdtype(dtype, np.floating) else 0
    values = rng.uniform(low, limit, size=shape).astype(dtype)
    # Through an itk.Image: itk.cuda_image_from_image(numpy_array) shares the
    # array's memory (see test_interop.py), which a temporary would not outlive.
    return icc.cuda_image_from_image(itk.image_from_array(values)), values


@pytest.mark.parametrize("code", list(SCALARS))
@pytest.mark.parametrize("dimension", [2, 3, 4])
@pytest.mark.parametrize("in_place", [True, False])
def test_square_every_type(code, dimension, in_place):
    image, values = random_image(code, dimension, seed=dimension)
    square = itk.CudaSquareImageFilter[type(image)].New()
    square.SetInPlace(in_place)
    assert square.GetInPlace() == in_place
    square.SetInput(image)
    square.Update()
    result = np.asarray(square.GetOutput())
    expected = (values.astype(np.float64) * values).astype(values.dtype)
    assert result.dtype == values.dtype
    np.testing.assert_array_equal(result, expected)
    assert type(square.GetOutput()) is itk.CudaImage[ITK_TYPES[code], dimension]
    if icc.IsCudaAvailable():
        stats = square.GetOutput().GetTransferStatistics()
        assert stats["DeviceToHostCount"] == 1


def test_square_cpu_path_when_gpu_disabled():
    image, values = random_image("F", 3)
    square = itk.CudaSquareImageFilter[itk.CudaImage[itk.F, 3]].New()
    square.GPUEnabledOff()
    assert square.GetGPUEnabled() is False
    square.InPlaceOff()
    square.SetInput(image)
    square.Update()
    np.testing.assert_array_equal(np.asarray(square.GetOutput()), values * values)
    assert square.GetOutput().GetTransferStatistics()["HostToDeviceCount"] == 0


def test_square_filter_type_checks():
    needs_template_type_errors()
    # ITK's templates: a missing instantiation is an itk.TemplateTypeError, a wrong input a TypeError.
    with pytest.raises(itk.TemplateTypeError):
        itk.CudaSquareImageFilter[itk.CudaImage[itk.Vector[itk.F, 3], 3]]
    with pytest.raises(itk.TemplateTypeError):
        itk.CudaSquareImageFilter[itk.CudaImage[itk.F, 3], itk.CudaImage[itk.F, 2]]
    square = itk.CudaSquareImageFilter[itk.CudaImage[itk.F, 2]].New()
    with pytest.raises(TypeError, match="SetInput"):
        square.SetInput(itk.CudaImage[itk.F, 3].New())
    with pytest.raises(RuntimeError, match="Input Primary is required"):
        square.Update()


def test_square_filter_flags_and_forms():
    image, values = random_image("F", 2)
    square = itk.CudaSquareImageFilter.New(image)  # template deduced from the input
    assert type(square) is itk.CudaSquareImageFilter[type(image)]
    assert square.GetGPUEnabled() is True
    square.SetGPUEnabled(False)
    assert square.GetGPUEnabled() is False
    square.GPUEnabledOn()
    assert square.GetGPUEnabled() is True
    assert square.GetInPlace() is True  # ITK's InPlaceImageFilter default
    square.InPlaceOff()
    assert square.GetInPlace() is False
    square.InPlaceOn()
    assert square.GetInPlace() is True
    result = itk.cuda_square_image_filter(image, GPUEnabled=False, InPlace=False)
    assert type(result) is type(image)
    np.testing.assert_array_equal(np.asarray(result), values * values)


def test_memory_probe_names():
    probe = itk.CudaMemoryProbe()
    assert probe.GetType() == "Cuda memory"
    assert probe.GetUnit() == "kB"
    probe.Start()
    probe.Stop()
    assert probe.GetNumberOfStops() == 1
    if not icc.IsCudaAvailable():
        assert probe.GetTotal() == 0


def test_memory_probe_sees_a_device_allocation(gpu):
    image = itk.CudaImage[itk.F, 3].New()
    image.SetRegions([256, 256, 64])  # 16 MiB
    image.Allocate()
    image.FillBuffer(1.0)
    image.GetCudaDataManager().GetConstGPUBufferPointer()  # context and first allocation out of the way
    image.GetCudaDataManager().SetGPUBufferDirty()  # released (ReleaseDirtyGPUBuffer)
    icc.CudaTrimMemoryPools()  # and given back to the device, not kept by the pool
    probe = itk.CudaMemoryProbe()
    probe.Start()
    image.GetCudaDataManager().GetConstGPUBufferPointer()
    probe.Stop()
    # The pool takes device memory in chunks: the 16 MiB, and at most as much again.
    assert 16384 <= probe.GetTotal() <= 2 * 16384 + 4096


def test_split_devices_are_checked():
    square = itk.CudaSquareImageFilter[itk.CudaImage[itk.F, 3]].New()
    assert tuple(square.GetSplitDevices()) == ()
    square.SetSplitDevices([0, 1], [3, 1])
    assert tuple(square.GetSplitDevices()) == (0, 1)
    assert tuple(square.GetSplitWeights()) == (3.0, 1.0)
    with pytest.raises(RuntimeError, match="a second 1"):
        square.SetSplitDevices([1, 1])
    with pytest.raises(RuntimeError, match="one weight per device"):
        square.SetSplitDevices([0, 1], [1.0])
    square.SetSplitDevices([])
    assert tuple(square.GetSplitDevices()) == ()
    square.SetSplitAcrossAllDevices(True)
    assert square.GetSplitAcrossAllDevices() is True
    square.SetSplitDevices([0])
    assert square.GetSplitAcrossAllDevices() is False


def test_split_across_all_devices_uses_what_there_is(gpu):
    values = np.arange(64 * 32 * 16, dtype=np.float32).reshape(16, 32, 64) % 100
    image = icc.cuda_image_from_image(itk.image_from_array(values))
    square = itk.CudaSquareImageFilter[type(image)].New()
    square.InPlaceOff()
    square.SetSplitAcrossAllDevices(True)
    square.SetInput(image)
    square.Update()
    np.testing.assert_array_equal(np.asarray(square.GetOutput()), values * values)


def test_split_across_two_devices(cupy):
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs two CUDA devices")
    values = np.arange(101 * 67 * 45, dtype=np.float32).reshape(45, 67, 101) % 1000 - 500
    image = icc.cuda_image_from_image(itk.image_from_array(values))
    square = itk.CudaSquareImageFilter[type(image)].New()
    square.InPlaceOff()
    square.SetSplitDevices([0, 1])
    square.SetInput(image)
    square.Update()
    np.testing.assert_array_equal(np.asarray(square.GetOutput()), values * values)
    assert square.GetOutput().GetTransferStatistics()["DeviceToHostCount"] == 1
