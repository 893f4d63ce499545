# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""CudaDiscreteGaussianImageFilter, CudaMeanImageFilter and
CudaBoxMeanImageFilter from Python: their class and snake_case forms, on the
GPU with a device and through the CPU parent (ITK's own code) with GPUEnabled
off, against that code, NumPy's box means and, where the wheel has it, ITK's
filter from the wheel."""

import itk
import numpy as np
import pytest

from test_filters import ITK_TYPES, random_image
from test_functor_filters import itk_reference
from test_intensity_filters import PATHS, skip_without_gpu


def assert_near(actual, expected, code):
    """Within a few float units in the last place of the largest value (float),
    or 1e-12 of it (double)."""
    expected = np.asarray(expected, dtype=np.float64)
    tolerance = (1e-6 if code == "F" else 1e-12) * max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), expected, rtol=0, atol=tolerance)


def box_mean(values, radius, crop):
    """The mean over a box of 2 radius + 1 pixels per axis: the edges extended
    by their nearest pixel (MeanImageFilter) or the box cropped to the image
    (BoxMeanImageFilter)."""
    size = (2 * radius + 1,) * values.ndim
    axes = tuple(range(values.ndim, 2 * values.ndim))
    padded = np.pad(values.astype(np.float64), radius, mode="constant" if crop else "edge")
    sums = np.lib.stride_tricks.sliding_window_view(padded, size).sum(axis=axes)
    if not crop:
        return sums / np.prod(size)
    inside = np.pad(np.ones(values.shape), radius, mode="constant")
    return sums / np.lib.stride_tricks.sliding_window_view(inside, size).sum(axis=axes)


@pytest.mark.parametrize("code", ["F", "D"])
@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_discrete_gaussian(code, gpu_enabled):
    skip_without_gpu(gpu_enabled)
    image, values = random_image(code, 3, seed=41)
    result = itk.cuda_discrete_gaussian_image_filter(image, variance=2.0, use_image_spacing=False,
                                                     GPUEnabled=gpu_enabled)
    assert type(result) is itk.CudaImage[ITK_TYPES[code], 3]
    itk_code = itk.cuda_discrete_gaussian_image_filter(image, variance=2.0, use_image_spacing=False,
                                                       GPUEnabled=False)
    assert_near(result, itk_code, code)
    reference = itk_reference("discrete_gaussian_image_filter", values, variance=2.0, use_image_spacing=False)
    if reference is not None:
        assert_near(result, reference, code)
    # The class form, its ITK parameters.
    gaussian = itk.CudaDiscreteGaussianImageFilter[type(image), type(image)].New(image, GPUEnabled=gpu_enabled)
    gaussian.SetVariance(0.5)
    gaussian.SetMaximumKernelWidth(5)
    gaussian.Update()
    assert gaussian.GetMaximumKernelWidth() == 5
    cpu = itk.CudaDiscreteGaussianImageFilter[type(image), type(image)].New(image, GPUEnabled=False)
    cpu.SetVariance(0.5)
    cpu.SetMaximumKernelWidth(5)
    cpu.Update()
    assert_near(gaussian.GetOutput(), cpu.GetOutput(), code)


@pytest.mark.parametrize("name,crop", [("mean", False), ("box_mean", True)])
@pytest.mark.parametrize("code", ["F", "D"])
@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_means(name, crop, code, gpu_enabled):
    skip_without_gpu(gpu_enabled)
    image, values = random_image(code, 3, seed=42)
    result = getattr(itk, f"cuda_{name}_image_filter")(image, radius=1, GPUEnabled=gpu_enabled)
    assert type(result) is itk.CudaImage[ITK_TYPES[code], 3]
    assert_near(result, box_mean(values, 1, crop), code)
    reference = itk_reference(f"{name}_image_filter", values, radius=1)
    if reference is not None:
        assert_near(result, reference, code)
    # The class form; a radius larger than the image (3 x 5 x 7).
    cls = getattr(itk, "Cuda" + "".join(part.capitalize() for part in name.split("_")) + "ImageFilter")
    mean = cls[type(image), type(image)].New(image, GPUEnabled=gpu_enabled)
    mean.SetRadius(4)
    mean.Update()
    assert tuple(mean.GetRadius()) == (4, 4, 4)
    assert_near(mean.GetOutput(), box_mean(values, 4, crop), code)
