# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""CudaAbsImageFilter, CudaAddImageFilter, CudaSubtractImageFilter,
CudaMultiplyImageFilter, CudaMaximumImageFilter and CudaMinimumImageFilter
from Python, against ITK's filters from the wheel (on the GPU with a device,
through the CPU parent with GPUEnabled off: the same pixels either way), and
the progress events every CUDA filter fires."""

import itk
import numpy as np
import pytest

import itk_cudacommon as icc
from conftest import make_image
from test_filters import ITK_TYPES, SCALARS, random_image


def itk_reference(filter_name, *arrays, **kwargs):
    """ITK's own filter from the wheel on plain itk.Images, or None when the
    wheel's module for it is not installed (the GPU host's trimmed copy)."""
    try:
        function = getattr(itk, filter_name)
    except AttributeError:
        return None
    images = [itk.image_from_array(np.ascontiguousarray(a)) for a in arrays]
    try:
        return np.asarray(function(*images, **kwargs))
    except (AttributeError, ModuleNotFoundError, KeyError):
        return None


@pytest.mark.parametrize("code", list(SCALARS))
@pytest.mark.parametrize("gpu_enabled", [True, False])
def test_abs_every_type(code, gpu_enabled):
    if gpu_enabled and not icc.IsCudaAvailable():
        pytest.skip(f"no CUDA device: {icc.CudaUnavailableReason()}")
    image, values = random_image(code, 3, seed=4)
    result = itk.cuda_abs_image_filter(image, GPUEnabled=gpu_enabled)
    assert type(result) is itk.CudaImage[ITK_TYPES[code], 3]
    expected = np.abs(values) if np.issubdtype(values.dtype, np.signedinteger) or values.dtype.kind == "f" else values
    np.testing.assert_array_equal(np.asarray(result), expected.astype(values.dtype))
    reference = itk_reference("abs_image_filter", values)
    if reference is not None:
        np.testing.assert_array_equal(np.asarray(result), reference)


@pytest.mark.parametrize("code", list(SCALARS))
@pytest.mark.parametrize("gpu_enabled", [True, False])
def test_add_every_type(code, gpu_enabled):
    if gpu_enabled and not icc.IsCudaAvailable():
        pytest.skip(f"no CUDA device: {icc.CudaUnavailableReason()}")
    first, a = random_image(code, 3, seed=5)
    second, b = random_image(code, 3, seed=6)
    add = itk.CudaAddImageFilter[type(first)].New(first, second, GPUEnabled=gpu_enabled)
    add.Update()
    expected = (a + b).astype(a.dtype)  # NumPy wraps integers as C++ does
    np.testing.assert_array_equal(np.asarray(add.GetOutput()), expected)
    reference = itk_reference("add_image_filter", a, b)
    if reference is not None:
        np.testing.assert_array_equal(np.asarray(add.GetOutput()), reference)
    # A constant second input, then a constant first one.
    constant = a.flat[7].item()
    add.SetConstant2(constant)
    add.Update()
    np.testing.assert_array_equal(np.asarray(add.GetOutput()), (a + a.dtype.type(constant)).astype(a.dtype))
    assert add.GetConstant2() == constant
    add.SetConstant1(constant)
    add.SetInput2(second)
    add.Update()
    np.testing.assert_array_equal(np.asarray(add.GetOutput()), (a.dtype.type(constant) + b).astype(a.dtype))


_BINARY = {"subtract": (np.subtract, "CudaSubtractImageFilter"),
           "multiply": (np.multiply, "CudaMultiplyImageFilter"),
           "maximum": (np.maximum, "CudaMaximumImageFilter"),
           "minimum": (np.minimum, "CudaMinimumImageFilter")}


@pytest.mark.parametrize("operation", list(_BINARY))
@pytest.mark.parametrize("code", list(SCALARS))
@pytest.mark.parametrize("gpu_enabled", [True, False])
def test_binary_filters_every_type(operation, code, gpu_enabled):
    if gpu_enabled and not icc.IsCudaAvailable():
        pytest.skip(f"no CUDA device: {icc.CudaUnavailableReason()}")
    first, a = random_image(code, 3, seed=12)
    second, b = random_image(code, 3, seed=13)
    compute, name = _BINARY[operation]
    filter_ = getattr(itk, name)[type(first)].New(first, second, GPUEnabled=gpu_enabled)
    filter_.Update()
    with np.errstate(over="ignore", invalid="ignore"):
        expected = compute(a, b).astype(a.dtype)  # NumPy wraps integers as C++ does
        np.testing.assert_array_equal(np.asarray(filter_.GetOutput()), expected)
        reference = itk_reference(f"{operation}_image_filter", a, b)
        if reference is not None:
            np.testing.assert_array_equal(np.asarray(filter_.GetOutput()), reference)
        constant = a.flat[7].item()
        filter_.SetConstant2(constant)
        filter_.Update()
        np.testing.assert_array_equal(np.asarray(filter_.GetOutput()),
                                      compute(a, a.dtype.type(constant)).astype(a.dtype))
    assert getattr(itk, f"cuda_{operation}_image_filter") is getattr(itk.CudaCommon, f"cuda_{operation}_image_filter")


def test_functional_forms_chain_on_the_device(gpu):
    image, values = random_image("F", 3, seed=8)
    other, more = random_image("F", 3, seed=9)
    total = itk.cuda_add_image_filter(itk.cuda_abs_image_filter(image), other)
    np.testing.assert_array_equal(np.asarray(total), np.abs(values) + more)
    assert itk.CudaCommon.cuda_add_image_filter is itk.cuda_add_image_filter
    assert icc.CudaAbsImageFilter is itk.CudaAbsImageFilter


def test_add_with_a_constant_keyword():
    image, values = random_image("SS", 2, seed=10)
    result = itk.cuda_add_image_filter(image, Constant2=3, GPUEnabled=icc.IsCudaAvailable())
    np.testing.assert_array_equal(np.asarray(result), (values + np.int16(3)).astype(np.int16))


@pytest.mark.parametrize("gpu_enabled", [True, False])
def test_progress_events_like_itks_filters(gpu_enabled):
    if gpu_enabled and not icc.IsCudaAvailable():
        pytest.skip(f"no CUDA device: {icc.CudaUnavailableReason()}")
    image, values = random_image("F", 3, seed=11)
    square = itk.CudaSquareImageFilter[type(image)].New(image, GPUEnabled=gpu_enabled, InPlace=False)
    seen = []
    square.AddObserver(itk.StartEvent(), lambda: seen.append("start"))
    square.AddObserver(itk.ProgressEvent(), lambda: seen.append(square.GetProgress()))
    square.AddObserver(itk.EndEvent(), lambda: seen.append("end"))
    square.Update()
    assert seen[0] == "start" and seen[-1] == "end"
    progress = seen[1:-1]
    assert progress[0] == 0.0 and progress[-1] == 1.0
    if gpu_enabled:
        assert progress == [0.0, 1.0]
    np.testing.assert_array_equal(np.asarray(square.GetOutput()), values * values)


@pytest.mark.parametrize("components", [2, 3, 4])
@pytest.mark.parametrize("dimension", [2, 3])
@pytest.mark.parametrize("gpu_enabled", [True, False])
def test_add_vector_images(components, dimension, gpu_enabled):
    """Displacement fields: a sum per component, in float, as itk::Vector's."""
    if gpu_enabled and not icc.IsCudaAvailable():
        pytest.skip(f"no CUDA device: {icc.CudaUnavailableReason()}")
    rng = np.random.default_rng(components * 10 + dimension)
    shape = (3, 5, 7)[:dimension] + (components,)
    a = rng.uniform(-100, 100, size=shape).astype(np.float32)
    b = rng.uniform(-100, 100, size=shape).astype(np.float32)

    def vector_image(values):
        image = make_image(itk.Vector[itk.F, components], dimension, values.shape[-2::-1])
        np.asarray(image)[...] = values  # a writable view of the host buffer
        return image

    first = vector_image(a)
    second = vector_image(b)
    add = itk.CudaAddImageFilter[type(first)].New(first, second, GPUEnabled=gpu_enabled)
    add.Update()
    result = np.asarray(add.GetOutput())
    assert result.shape == a.shape
    np.testing.assert_array_equal(result, a + b)
    constant = itk.Vector[itk.F, components]()
    for i in range(components):
        constant[i] = i + 1.0
    shifted = itk.CudaAddImageFilter[type(first)].New(first, Constant2=constant, GPUEnabled=gpu_enabled)
    shifted.Update()
    np.testing.assert_array_equal(np.asarray(shifted.GetOutput()), a + np.arange(1, components + 1, dtype=np.float32))
