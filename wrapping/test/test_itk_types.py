# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""itk.CudaImage is an itk.Image of the wheel: ITK's helpers and filters take it. Runs on CPU."""

import os
import subprocess
import sys

import itk
import numpy as np
import pytest

import itk_cudacommon as icc
from conftest import make_image as make
from conftest import needs_itk_module


def ramp():
    image = make()
    values = np.arange(6 * 5 * 4, dtype=np.float32).reshape(6, 5, 4)
    np.asarray(image)[...] = values
    return image, values


def test_is_an_itk_image():
    image = make()
    assert isinstance(image, itk.Image[itk.F, 3])
    assert isinstance(image, itk.CudaImage[itk.F, 3])
    assert itk.template(image) == (itk.CudaImage, (itk.F, 3))
    assert itk.template(type(image)) == (itk.CudaImage, (itk.F, 3))
    assert type(itk.down_cast(image)) is itk.CudaImage[itk.F, 3]


def test_numpy_and_itk_helpers():
    image, values = ramp()
    image.SetPixel([3, 4, 5], -1.0)
    values[5, 4, 3] = -1.0
    assert tuple(itk.size(image)) == (4, 5, 6)
    view = itk.array_view_from_image(image)
    np.testing.assert_array_equal(view, values)
    np.testing.assert_array_equal(itk.GetArrayFromImage(image), values)
    np.testing.assert_array_equal(np.asarray(image), values)
    assert np.asarray(image).dtype == np.float32
    copied = itk.GetArrayFromImage(image)
    copied[0, 0, 0] = 99.0
    assert image.GetPixel([0, 0, 0]) == 0.0


def test_minimum_maximum_calculator():
    image, values = ramp()
    calculator = itk.MinimumMaximumImageCalculator[type(image)].New()
    calculator.SetImage(image)
    calculator.Compute()
    assert calculator.GetMinimum() == values.min()
    assert calculator.GetMaximum() == values.max()


def test_cast_image_filter_class_and_snake_case():
    image, values = ramp()
    cast = itk.CastImageFilter[type(image), itk.Image[itk.UC, 3]].New(image)
    cast.Update()
    assert type(cast.GetOutput()) is itk.Image[itk.UC, 3]
    np.testing.assert_array_equal(itk.array_view_from_image(cast.GetOutput()), values.astype(np.uint8))
    result = itk.cast_image_filter(image, ttype=(type(image), itk.Image[itk.D, 3]))
    np.testing.assert_array_equal(itk.array_view_from_image(result), values.astype(np.float64))
    same = itk.cast_image_filter(image)
    np.testing.assert_array_equal(itk.array_view_from_image(same), values)


def test_extract_image_filter():
    needs_itk_module("ITKImageGrid")
    image, values = ramp()
    region = itk.ImageRegion[3]()
    region.SetIndex([1, 2, 3])
    region.SetSize([2, 3, 0])
    extract = itk.ExtractImageFilter[type(image), itk.Image[itk.F, 2]].New(image)
    extract.SetExtractionRegion(region)
    extract.SetDirectionCollapseToSubmatrix()
    extract.Update()
    np.testing.assert_array_equal(itk.array_view_from_image(extract.GetOutput()), values[3, 2:5, 1:3])


def test_cuda_filter_in_an_itk_pipeline():
    values = np.arange(6 * 5 * 4, dtype=np.float32).reshape(6, 5, 4) - 50
    source = itk.image_from_array(values)
    before = itk.CastImageFilter[itk.Image[itk.F, 3], itk.Image[itk.F, 3]].New(source)  # an ITK filter
    to_cuda = itk.CudaImageFromImageFilter[itk.Image[itk.F, 3]].New()
    to_cuda.SetInput(before.GetOutput())
    square = itk.CudaSquareImageFilter[itk.CudaImage[itk.F, 3]].New()
    square.SetGPUEnabled(False)
    square.SetInput(to_cuda.GetOutput())
    after = itk.CastImageFilter[itk.CudaImage[itk.F, 3], itk.Image[itk.D, 3]].New()
    after.SetInput(square.GetOutput())
    after.Update()  # one Update runs the whole pipeline
    np.testing.assert_array_equal(itk.array_view_from_image(after.GetOutput()), (values * values).astype(np.float64))
    assert type(to_cuda.GetOutput()) is itk.CudaImage[itk.F, 3]
    calculator = itk.MinimumMaximumImageCalculator[itk.CudaImage[itk.F, 3]].New()
    calculator.SetImage(square.GetOutput())
    calculator.Compute()
    assert calculator.GetMaximum() == (values * values).max()


def test_functional_forms():
    image, values = ramp()
    result = itk.cuda_square_image_filter(image, GPUEnabled=False, InPlace=False)
    np.testing.assert_array_equal(np.asarray(result), values * values)
    converted = itk.cuda_image_from_image_filter(itk.image_from_array(values))
    assert type(converted) is itk.CudaImage[itk.F, 3]
    np.testing.assert_array_equal(np.asarray(converted), values)


@pytest.mark.parametrize("pixel", [itk.Vector[itk.F, 3], itk.CovariantVector[itk.F, 3]])
def test_vector_pixels(pixel):
    image = make(pixel, 3, (4, 5, 6))
    value = pixel()
    value.SetElement(0, 1.0)
    value.SetElement(1, 2.0)
    value.SetElement(2, 3.0)
    image.FillBuffer(value)
    assert tuple(image.GetPixel([1, 2, 3])) == (1.0, 2.0, 3.0)
    assert image.GetNumberOfComponentsPerPixel() == 3
    array = np.asarray(image)
    assert array.shape == (6, 5, 4, 3)
    assert np.all(array == np.array([1.0, 2.0, 3.0], dtype=np.float32))
    assert isinstance(image, itk.Image[pixel, 3])


def test_every_key_is_a_class_of_the_original_names():
    keys = set(itk.CudaImage.keys())
    assert len(keys) >= 8 * 3  # the eight scalars, in ITK_WRAP_IMAGE_DIMS (2 to 4)
    for pixel, dimension in keys:
        mangled = itk.CudaImage[pixel, dimension].__name__
        assert mangled.startswith("itkCudaImage") and mangled.endswith(str(dimension))


@pytest.mark.parametrize("key", sorted(itk.CudaImage.keys(), key=str), ids=str)
def test_every_wrapped_type_round_trips(key):
    pixel, dimension = key
    cls = itk.CudaImage[pixel, dimension]
    assert issubclass(cls, itk.Image[pixel, dimension])
    image = cls.New()
    size = [3, 4, 2, 2][:dimension]
    image.SetRegions(size)
    image.Allocate()
    components = image.GetNumberOfComponentsPerPixel()
    if components == 1:
        value = 7
    else:
        value = pixel()
        for i in range(components):
            value.SetElement(i, i + 1.0)
    image.FillBuffer(value)
    assert isinstance(image, itk.Image[pixel, dimension])
    assert itk.template(image) == (itk.CudaImage, (pixel, dimension))
    index = [s - 1 for s in size]
    read = image.GetPixel(index)
    if components == 1:
        assert read == 7
    else:
        assert tuple(read) == tuple(float(i + 1) for i in range(components))
    array = np.asarray(image)
    assert array.shape == tuple(reversed(size)) + ((components,) if components > 1 else ())
    assert np.all(array == (np.arange(1, components + 1) if components > 1 else 7))


def test_get_itk_type():
    assert itk.CudaCommon.get_itk_type("<f4") == "F"
    assert getattr(itk, itk.CudaCommon.get_itk_type("<u2")) is itk.US


def _run(code):
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


def test_import_accepts_its_itk_version():
    done = _run("import itk, itk_cudacommon\nprint(itk.CudaImage[itk.F, 3].__name__)\n")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "itkCudaImageF3"


def test_itk_filters_read_the_gpu_result_and_writes_reach_the_gpu(gpu):
    """On a device: a CUDA filter's result (GPU copy current, CPU copy stale)
    is what ITK's CPU filters read; a write through NumPy reaches the next
    CUDA filter."""
    image, values = ramp()
    square = itk.CudaSquareImageFilter.New(image, InPlace=False)
    square.Update()
    result = square.GetOutput()
    manager = result.GetCudaDataManager()
    assert manager.IsCPUBufferDirty() and not manager.IsGPUBufferDirty()  # computed on the GPU
    calculator = itk.MinimumMaximumImageCalculator[itk.Image[itk.F, 3]].New()
    calculator.SetImage(result)
    calculator.Compute()
    assert calculator.GetMaximum() == (values * values).max()
    cast = itk.cast_image_filter(result, ttype=(type(result), itk.Image[itk.D, 3]))
    np.testing.assert_array_equal(itk.array_view_from_image(cast), (values * values).astype(np.float64))
    assert result.GetTransferStatistics()["DeviceToHostCount"] == 1
    np.asarray(result)[...] = 2.0  # a CPU write: the GPU copy is stale now
    assert manager.IsGPUBufferDirty()
    again = itk.cuda_square_image_filter(result, InPlace=False)
    assert again.GetCudaDataManager().IsCPUBufferDirty()
    assert again.GetPixel([1, 2, 3]) == 4.0
