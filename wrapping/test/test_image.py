# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""itk.CudaImage: the wheel's itk.Image API plus the CUDA additions; runs without a GPU."""

import pathlib
import re
import sys

import itk
import numpy as np
import pytest

import itk_cudacommon as icc
from conftest import make_image as make
from conftest import needs_template_type_errors

NO_TRANSFERS = {"HostToDeviceCount": 0, "HostToDeviceBytes": 0, "DeviceToHostCount": 0, "DeviceToHostBytes": 0,
                "PeerCount": 0, "PeerBytes": 0}


def test_version_matches_the_cpp_library():
    cmake = (pathlib.Path(__file__).parents[2] / "CMakeLists.txt").read_text()
    version = re.search(r"project\(CudaCommon VERSION ([0-9.]+)", cmake).group(1)
    assert icc.__version__ == version
    assert icc.core.GetVersion() == version
    assert icc.core.GetITKVersion() == itk.Version.GetITKVersion()


def test_registered_in_itk():
    assert itk.CudaImage is icc.CudaImage
    assert itk.CudaSquareImageFilter is icc.CudaSquareImageFilter
    assert itk.CudaImageFromImageFilter is icc.CudaImageFromImageFilter
    assert itk.CudaDataManager is icc.core.itkCudaDataManager
    assert type(itk.CudaMemoryProbe()).__name__ == "itkCudaMemoryProbe"
    assert itk.cuda_image_from_cuda_array is icc.cuda_image_from_cuda_array
    assert itk.cuda_image_from_image is icc.cuda_image_from_image
    assert itk.image_from_cuda_image is icc.image_from_cuda_image
    assert itk.CudaCommon.CudaImage is itk.CudaImage
    assert callable(itk.cuda_square_image_filter) and callable(itk.cuda_image_from_image_filter)


@pytest.mark.parametrize("pixel, name", [
    (itk.F, "itkCudaImageF2"), (itk.UC, "itkCudaImageUC2"), (itk.SS, "itkCudaImageSS2"), (itk.US, "itkCudaImageUS2"),
    (itk.SI, "itkCudaImageSI2"), (itk.UI, "itkCudaImageUI2"), (itk.UL, "itkCudaImageUL2"), (itk.D, "itkCudaImageD2"),
    (itk.Vector[itk.F, 2], "itkCudaImageVF22"), (itk.CovariantVector[itk.F, 3], "itkCudaImageCVF32"),
])
def test_template_keys(pixel, name):
    cls = itk.CudaImage[pixel, 2]
    assert cls.__name__ == name
    assert cls is getattr(sys.modules["itk.itkCudaImagePython"], name)
    assert issubclass(cls, itk.Image[pixel, 2])


@pytest.mark.parametrize("key", [(itk.F, 5), (itk.Vector[itk.F, 3], 5), ("F", 3), (itk.F,)])
def test_bad_template_keys(key):
    needs_template_type_errors()
    # String keys ('F', 3) of the old API are gone; ITK's templates raise
    # itk.TemplateTypeError (a TypeError) for a key they do not have.
    with pytest.raises(itk.TemplateTypeError):
        itk.CudaImage[key]


def test_regions_from_sequences_and_region_objects():
    image = itk.CudaImage[itk.F, 2].New()
    region = itk.ImageRegion[2]()
    region.SetIndex([2, 3])
    region.SetSize([5, 7])
    image.SetRegions(region)
    assert image.GetLargestPossibleRegion() == region
    image.Allocate()
    assert image.GetBufferedRegion().GetNumberOfPixels() == 35
    image.SetPixel([2, 3], 1.0)  # the region's first index
    assert image.GetPixel([2, 3]) == 1.0
    image.SetRegions([8, 9])
    assert tuple(image.GetLargestPossibleRegion().GetIndex()) == (0, 0)
    assert tuple(image.GetLargestPossibleRegion().GetSize()) == (8, 9)


def test_regions_from_itk_size():
    image = itk.CudaImage[itk.F, 3].New()
    size = itk.Size[3]()
    size.Fill(4)
    image.SetRegions(size)
    assert tuple(image.GetLargestPossibleRegion().GetSize()) == (4, 4, 4)


def test_geometry():
    image = make()
    image.SetSpacing((0.5, 1.0, 2.0))
    image.SetOrigin((1.0, -2.0, 3.0))
    direction = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    image.SetDirection(itk.matrix_from_array(direction))
    assert tuple(image.GetSpacing()) == (0.5, 1.0, 2.0)
    assert tuple(image.GetOrigin()) == (1.0, -2.0, 3.0)
    assert np.array_equal(itk.array_from_matrix(image.GetDirection()), direction)
    with pytest.raises(RuntimeError, match="Zero-valued spacing"):  # ITK's check
        image.SetSpacing((0.0, 1.0, 1.0))
    with pytest.raises(TypeError):
        image.SetSpacing((1.0, 1.0))


def test_geometry_from_itk_types():
    image = make()
    spacing = itk.Vector[itk.D, 3]()
    spacing.Fill(0.25)
    image.SetSpacing(spacing)
    assert tuple(image.GetSpacing()) == (0.25, 0.25, 0.25)
    image.SetDirection(itk.matrix_from_array(np.diag([1.0, -1.0, 1.0])))
    assert np.array_equal(itk.array_from_matrix(image.GetDirection()), np.diag([1.0, -1.0, 1.0]))


def test_pixel_value_errors():
    image = make()
    with pytest.raises(TypeError, match="itkIndex3"):
        image.GetPixel((0, 0))
    vector = make(itk.Vector[itk.F, 3], 2, (2, 2))
    with pytest.raises(TypeError, match="itkVectorF3"):
        vector.SetPixel((0, 0), (1.0, 2.0))


def test_numpy_view_is_writable_and_marks_the_gpu_copy_stale():
    image = make()
    image.FillBuffer(1.0)
    array = np.asarray(image)
    array[0, 0, 0] = 42.0
    assert image.GetPixel((0, 0, 0)) == 42.0
    manager = image.GetCudaDataManager()
    assert manager.IsGPUBufferDirty()
    assert not manager.IsCPUBufferDirty()
    assert manager.GetBufferSize() == 4 * 5 * 6 * 4
    assert image.GetDataManager().GetBufferSize() == manager.GetBufferSize()


def test_data_manager_flags_and_statistics():
    image = make()
    manager = image.GetCudaDataManager()
    assert isinstance(manager, itk.CudaDataManager)
    assert manager.GetTransferStatistics() == NO_TRANSFERS
    assert image.GetTransferStatistics() == NO_TRANSFERS
    manager.SetGPUDirtyFlag(False)
    assert not manager.IsGPUBufferDirty()
    manager.SetGPUDirtyFlag(True)
    assert manager.IsGPUBufferDirty()
    manager.SetCPUDirtyFlag(False)
    assert not manager.IsCPUBufferDirty()
    assert manager.GetReleaseDirtyGPUBuffer() in (True, False)
    manager.SetReleaseDirtyGPUBuffer(False)
    assert manager.GetReleaseDirtyGPUBuffer() is False
    manager.ResetTransferStatistics()
    assert manager.GetTransferStatistics() == NO_TRANSFERS


def test_host_allocation_on_first_use_flag():
    image = itk.CudaImage[itk.F, 2].New()
    initial = image.GetHostAllocationOnFirstUse()
    assert initial in (True, False)
    image.SetHostAllocationOnFirstUse(not initial)
    assert image.GetHostAllocationOnFirstUse() is (not initial)


def test_cpu_buffer_pointer_is_the_numpy_view():
    image = make()
    image.FillBuffer(1.0)
    manager = image.GetCudaDataManager()
    assert int(manager.GetConstCPUBufferPointer()) == np.asarray(image).ctypes.data
    assert int(manager.GetCPUBufferPointer()) == np.asarray(image).ctypes.data


def test_without_gpu_device_access_is_a_clear_error():
    if icc.IsCudaAvailable():
        pytest.skip("a CUDA device is present; this covers machines without one")
    assert icc.CudaUnavailableReason() != ""
    image = make()
    image.FillBuffer(2.0)
    with pytest.raises(RuntimeError, match="no CUDA device is available"):
        image.GetCudaDataManager().GetGPUBufferPointer()
    with pytest.raises(RuntimeError, match="no CUDA device is available"):
        image.GetCudaDataManager().GetConstGPUBufferPointer()
    with pytest.raises(RuntimeError, match="no CUDA device is available"):
        image.__cuda_array_interface__
    with pytest.raises(RuntimeError, match="no CUDA device is available"):
        image.__dlpack__()
    assert image.UpdateBuffers() is None  # nothing to synchronise with
    assert np.asarray(image).shape == (6, 5, 4)
    assert np.all(np.asarray(image) == 2.0)


def test_empty_image_interfaces():
    image = itk.CudaImage[itk.F, 2].New()
    interface = image.__cuda_array_interface__
    assert interface["shape"] == (0, 0)
    assert interface["data"] == (0, False)
    assert interface["typestr"] == "<f4" and interface["version"] == 3
    with pytest.raises(BufferError, match="no pixels"):
        image.__dlpack__()


def test_dlpack_argument_errors():
    image = make()
    image.FillBuffer(1.0)
    with pytest.raises(BufferError, match="copy=True"):
        image.__dlpack__(copy=True)
    with pytest.raises(BufferError, match="dl_device"):
        image.__dlpack__(dl_device=(1, 0))
    with pytest.raises(ValueError, match="stream"):
        image.__dlpack__(stream=0)
    with pytest.raises(ValueError, match="stream"):
        image.__dlpack__(stream="s")


def test_print_shows_the_data_manager():
    assert "CudaImageDataManager" in str(make().GetCudaDataManager())
    assert "CudaImage" in str(make())


def test_device_choice():
    image = make(itk.F, 2, (4, 4))
    assert image.GetDevice() >= 0
    assert image.__dlpack_device__() == (2, image.GetDevice())
    with pytest.raises(RuntimeError, match="invalid CUDA device 99"):
        image.SetDevice(99)
    square = itk.CudaSquareImageFilter[type(image)].New()
    assert square.GetDevice() == -1
    square.SetDevice(0)
    assert square.GetDevice() == 0


def test_device_choice_on_a_gpu(gpu):
    image = make(itk.F, 2, (4, 4))
    image.FillBuffer(3.0)
    image.SetDevice(0)
    assert image.GetDevice() == 0
    assert image.__dlpack_device__() == (2, 0)
    square = itk.CudaSquareImageFilter[type(image)].New()
    square.SetDevice(0)
    square.SetInput(image)
    square.Update()
    assert square.GetOutput().GetPixel((3, 3)) == 9.0


def test_cuda_array_interface_on_a_gpu(gpu):
    image = make()
    image.FillBuffer(1.0)
    manager = image.GetCudaDataManager()
    interface = image.__cuda_array_interface__
    assert interface["shape"] == (6, 5, 4)
    assert interface["typestr"] == "<f4"
    assert interface["version"] == 3
    assert interface["data"] == (int(manager.GetConstGPUBufferPointer()), False)
    # The buffer's work is handed to the legacy default stream (1), which the
    # consumer orders its work after.
    assert interface["stream"] == 1
    assert manager.IsCPUBufferDirty()  # the consumer may write on the GPU
    assert manager.IsGPUBufferExported()
    assert icc.core.DeviceOfPointer(interface["data"][0]) == image.GetDevice()
    stats = image.GetTransferStatistics()
    assert stats["HostToDeviceCount"] == 1 and stats["HostToDeviceBytes"] == 4 * 5 * 6 * 4
    assert image.GetPixel((0, 0, 0)) == 1.0
    assert image.GetTransferStatistics()["DeviceToHostCount"] == 1


def test_update_buffers_on_a_gpu(gpu):
    image = make()
    image.FillBuffer(1.0)
    manager = image.GetCudaDataManager()
    manager.UpdateGPUBuffer()
    assert not manager.IsGPUBufferDirty()
    assert manager.GetGPUBufferSize() == 4 * 5 * 6 * 4
    manager.SetCPUBufferDirty()
    manager.UpdateCPUBuffer()
    assert not manager.IsCPUBufferDirty()
    assert image.GetTransferStatistics()["DeviceToHostCount"] == 1
