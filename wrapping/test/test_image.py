# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""CudaImage's ITK-style API; runs without a GPU."""

import pathlib
import re

import numpy as np
import pytest

import itk_cudacommon as icc


def make(code="F", dimension=3, size=(4, 5, 6)):
    image = icc.CudaImage[code, dimension].New()
    image.SetRegions(size)
    image.Allocate()
    return image


def test_version_matches_the_cpp_library():
    cmake = (pathlib.Path(__file__).parents[2] / "CMakeLists.txt").read_text()
    version = re.search(r"project\(CudaCommon VERSION ([0-9.]+)", cmake).group(1)
    assert icc.__version__ == version
    assert icc.core.GetVersion() == version


@pytest.mark.parametrize("key, code", [
    ("F", "F"), ("float", "F"), (np.float32, "F"), ("UC", "UC"), (np.uint8, "UC"), ("SS", "SS"),
    ("US", "US"), ("SI", "SI"), ("UI", "UI"), ("UL", "UL"), ("D", "D"), (np.float64, "D"), ("VF2", "VF2"),
])
def test_template_keys(key, code):
    assert icc.CudaImage[key, 2].GetPixelCode() == code
    assert icc.CudaImage[key, 2] is icc.CudaImage[code, 2]


def test_itk_type_keys():
    itk = pytest.importorskip("itk")
    assert icc.CudaImage[itk.F, 3] is icc.CudaImage["F", 3]
    assert icc.CudaImage[itk.UC, 2] is icc.CudaImage["UC", 2]
    assert icc.CudaImage[itk.Vector[itk.F, 3], 3] is icc.CudaImage["VF3", 3]
    assert itk.CudaImage is icc.CudaImage  # registered on import
    assert itk.cuda_image_from_cuda_array is icc.cuda_image_from_cuda_array
    assert itk.cuda_image_from_image is icc.cuda_image_from_image
    assert itk.CudaSquareImageFilter is icc.CudaSquareImageFilter


@pytest.mark.parametrize("key, message", [
    (("Q", 3), "unknown pixel type 'Q'"),
    (("F", 5), "dimension 5 is not available for pixel type F"),
    (("VF3", 4), "dimension 4 is not available for pixel type VF3"),
    (("F",), "two template arguments"),
])
def test_bad_template_keys(key, message):
    with pytest.raises((ValueError, TypeError), match=re.escape(message)):
        icc.CudaImage[key]


def test_template_itself_cannot_be_instantiated():
    with pytest.raises(TypeError, match="template"):
        icc.CudaImage()


@pytest.mark.parametrize("code, dimension", [(c, d) for c in ("UC", "SS", "US", "SI", "UI", "UL", "F", "D")
                                            for d in (2, 3, 4)] + [("VF2", 2), ("VF2", 3), ("VF3", 2), ("VF3", 3)])
def test_every_type_allocates_fills_and_reads(code, dimension):
    size = (3, 4, 2, 2)[:dimension]
    image = make(code, dimension, size)
    components = image.GetNumberOfComponentsPerPixel()
    value = 7 if components == 1 else tuple(range(1, components + 1))
    image.FillBuffer(value)
    array = np.asarray(image)
    expected_shape = tuple(reversed(size)) + ((components,) if components > 1 else ())
    assert array.shape == expected_shape == image.shape
    assert array.dtype == np.dtype(image.typestr)
    assert np.all(array == (np.array(value) if components > 1 else value))
    index = [s - 1 for s in size]
    other = 5 if components == 1 else tuple(range(5, 5 + components))
    image.SetPixel(index, other)
    assert image.GetPixel(index) == other


def test_regions_from_sequences_and_region_objects():
    image = icc.CudaImage["F", 2].New()
    image.SetRegions(icc.ImageRegion((2, 3), (5, 7)))
    assert image.GetLargestPossibleRegion() == icc.ImageRegion((2, 3), (5, 7))
    image.Allocate()
    assert image.GetBufferedRegion().GetNumberOfPixels() == 35
    image.SetPixel((2, 3), 1.0)  # the region's first index
    with pytest.raises(IndexError, match="outside the buffered region"):
        image.GetPixel((0, 0))
    image.SetRegions([8, 9])
    assert image.GetLargestPossibleRegion().GetIndex() == (0, 0)


def test_regions_from_itk_objects():
    itk = pytest.importorskip("itk")
    image = icc.CudaImage["F", 3].New()
    size = itk.Size[3]()
    size.Fill(4)
    image.SetRegions(size)
    assert image.GetLargestPossibleRegion().GetSize() == (4, 4, 4)
    region = itk.ImageRegion[3]()
    region.SetIndex([1, 2, 3])
    region.SetSize([2, 2, 2])
    image.SetRegions(region)
    assert image.GetLargestPossibleRegion() == icc.ImageRegion((1, 2, 3), (2, 2, 2))


def test_geometry():
    image = make()
    image.SetSpacing((0.5, 1.0, 2.0))
    image.SetOrigin((1.0, -2.0, 3.0))
    direction = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    image.SetDirection(direction)
    assert image.GetSpacing() == (0.5, 1.0, 2.0)
    assert image.GetOrigin() == (1.0, -2.0, 3.0)
    assert np.array_equal(image.GetDirection(), direction)
    with pytest.raises(ValueError, match="spacing must be positive"):
        image.SetSpacing((0.0, 1.0, 1.0))
    with pytest.raises(ValueError, match="spacing: expected 3 values, got 2"):
        image.SetSpacing((1.0, 1.0))
    with pytest.raises(ValueError, match="invertible"):
        image.SetDirection(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="3x3"):
        image.SetDirection(np.eye(2))


def test_geometry_from_itk_types():
    itk = pytest.importorskip("itk")
    image = make()
    spacing = itk.Vector[itk.D, 3]()
    spacing.Fill(0.25)
    image.SetSpacing(spacing)
    assert image.GetSpacing() == (0.25, 0.25, 0.25)
    matrix = itk.matrix_from_array(np.diag([1.0, -1.0, 1.0]))
    image.SetDirection(matrix)
    assert np.array_equal(image.GetDirection(), np.diag([1.0, -1.0, 1.0]))


def test_pixel_value_errors():
    image = make()
    with pytest.raises(ValueError, match="index: expected 3 values, got 2"):
        image.GetPixel((0, 0))
    with pytest.raises(TypeError, match="index"):
        image.GetPixel(3)
    vector = make("VF3", 2, (2, 2))
    with pytest.raises(ValueError, match="pixel value: expected 3 values, got 2"):
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


def test_data_manager_flags_and_statistics():
    image = make()
    manager = image.GetCudaDataManager()
    assert manager.GetTransferStatistics() == {
        "host_to_device_count": 0, "host_to_device_bytes": 0, "device_to_host_count": 0, "device_to_host_bytes": 0,
        "peer_count": 0, "peer_bytes": 0}
    manager.SetGPUDirtyFlag(False)
    assert not manager.IsGPUBufferDirty()
    manager.SetGPUDirtyFlag(True)
    assert manager.GetReleaseDirtyGPUBuffer() in (True, False)
    manager.SetReleaseDirtyGPUBuffer(False)
    assert manager.GetReleaseDirtyGPUBuffer() is False


def test_without_gpu_device_access_is_a_clear_error():
    if icc.IsCudaAvailable():
        pytest.skip("a CUDA device is present; this covers machines without one")
    image = make()
    with pytest.raises(RuntimeError, match="no CUDA device is available"):
        image.GetCudaDataManager().GetGPUBufferPointer()
    with pytest.raises(RuntimeError, match="no CUDA device is available"):
        image.__cuda_array_interface__
    with pytest.raises(RuntimeError, match="no CUDA device is available"):
        image.__dlpack__()
    assert image.UpdateBuffers() is None  # nothing to synchronise with
    assert np.asarray(image).shape == (6, 5, 4)


def test_empty_image_interfaces():
    image = icc.CudaImage["F", 2].New()
    interface = image.__array_interface__
    assert interface["shape"] == (0, 0)
    assert interface["data"] == (0, False)
    with pytest.raises(BufferError, match="no pixels"):
        image.__dlpack__()


def test_repr():
    assert repr(make()) == "<CudaImage['F', 3] size=(4, 5, 6)>"
    assert "CudaImageDataManager" in make().GetDescription()


def test_device_choice():
    image = icc.CudaImage["F", 2].New()
    image.SetRegions((4, 4))
    image.Allocate()
    assert image.GetDevice() == 0 or image.GetDevice() > 0
    with pytest.raises(RuntimeError, match="invalid CUDA device 99"):
        image.SetDevice(99)
    square = icc.CudaSquareImageFilter[type(image)].New()
    assert square.GetDevice() == -1
    square.SetDevice(0)
    assert square.GetDevice() == 0


def test_device_choice_on_a_gpu(gpu):
    image = icc.CudaImage["F", 2].New()
    image.SetRegions((4, 4))
    image.Allocate()
    image.FillBuffer(3.0)
    image.SetDevice(0)
    assert image.__dlpack_device__() == (2, 0)
    square = icc.CudaSquareImageFilter[type(image)].New()
    square.SetDevice(0)
    square.SetInput(image)
    square.Update()
    assert square.GetOutput().GetPixel((3, 3)) == 9.0
