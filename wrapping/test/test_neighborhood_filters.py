# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""CudaDiscreteGaussianImageFilter, CudaMeanImageFilter, CudaBoxMeanImageFilter,
CudaGradientMagnitudeImageFilter, CudaLaplacianImageFilter and
CudaGradientImageFilter from Python: their class and snake_case forms, on the
GPU with a device and through the CPU parent (ITK's own code) with GPUEnabled
off, against that code, NumPy's box means and differences and, where the
wheel has it, ITK's filter from the wheel."""

import gc

import itk
import numpy as np
import pytest

from test_filters import ITK_TYPES, random_image
from test_functor_filters import itk_reference
from test_intensity_filters import PATHS, cuda_image, skip_without_gpu


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


@pytest.mark.parametrize("condition", ["ZeroFluxNeumannBoundaryCondition", "ConstantBoundaryCondition",
                                       "PeriodicBoundaryCondition", "CudaMirrorBoundaryCondition"])
@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_gaussian_boundary_conditions(condition, gpu_enabled):
    """ITK's boundary conditions and CudaCommon's mirror, for the CudaImage
    (SetInputBoundaryCondition) and ITK's real image of the Gaussian's
    intermediate passes (SetRealBoundaryCondition), made and set from Python:
    the GPU path takes each (its output is made on the device, so reading it
    downloads it once) and equals ITK's code given the same conditions. The
    image is larger than the kernel's radius along every axis: ITK's
    PeriodicBoundaryCondition wraps once, and its CPU code reads outside the
    buffer for offsets past one period (the kernels wrap any number of times)."""
    skip_without_gpu(gpu_enabled)
    values = np.random.default_rng(45).uniform(-100, 100, size=(12, 13, 14)).astype(np.float32)
    image = cuda_image(values)
    image_type = type(image)

    def gaussian(gpu):
        conditions = [getattr(itk, condition)[t]() for t in (image_type, itk.Image[itk.F, 3])]
        if condition == "ConstantBoundaryCondition":
            for c in conditions:
                c.SetConstant(0.25)
        g = itk.CudaDiscreteGaussianImageFilter[image_type, image_type].New(image, GPUEnabled=gpu)
        g.SetVariance(4.0)
        g.SetUseImageSpacing(False)
        g.SetInputBoundaryCondition(conditions[0])
        g.SetRealBoundaryCondition(conditions[1])
        g.Update()
        output = g.GetOutput()
        values = np.array(output)
        return values, output.GetTransferStatistics()["DeviceToHostCount"]

    values, downloads = gaussian(gpu_enabled)
    reference, _ = gaussian(False)
    assert downloads == (1 if gpu_enabled else 0)
    assert_near(values, reference, "F")


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


def differences(values, spacing, mode="edge"):
    """Per axis (NumPy's order, z first), the central difference divided by
    the spacing, and the second difference divided by its square, the edges
    extended by their nearest pixel (ITK's ZeroFluxNeumann; mode="wrap":
    ITK's Periodic), in float64."""
    padded = np.pad(values.astype(np.float64), 1, mode=mode)
    first, second = [], []
    for axis in range(values.ndim):
        ahead = tuple(slice(2, None) if a == axis else slice(1, -1) for a in range(values.ndim))
        behind = tuple(slice(None, -2) if a == axis else slice(1, -1) for a in range(values.ndim))
        middle = padded[(slice(1, -1),) * values.ndim]
        h = spacing[values.ndim - 1 - axis]
        first.append((padded[ahead] - padded[behind]) * 0.5 / h)
        second.append((padded[ahead] - 2.0 * middle + padded[behind]) / (h * h))
    return first, second


def anisotropic(image):
    spacing = (0.5, 1.25, 2.0)
    image.SetSpacing(spacing)
    return spacing


@pytest.mark.parametrize("code", ["F", "D"])
@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_gradient_magnitude_and_laplacian(code, gpu_enabled):
    skip_without_gpu(gpu_enabled)
    image, values = random_image(code, 3, seed=43)
    spacing = anisotropic(image)
    first, second = differences(values, spacing)
    magnitude = itk.cuda_gradient_magnitude_image_filter(image, GPUEnabled=gpu_enabled)
    assert type(magnitude) is itk.CudaImage[ITK_TYPES[code], 3]
    assert_near(magnitude, np.sqrt(sum(d * d for d in first)), code)
    itk_code = itk.cuda_gradient_magnitude_image_filter(image, GPUEnabled=False)
    np.testing.assert_array_equal(np.asarray(magnitude), np.asarray(itk_code))  # ITK's to the bit
    laplacian = itk.cuda_laplacian_image_filter(image, GPUEnabled=gpu_enabled)
    assert_near(laplacian, sum(second), code)
    np.testing.assert_array_equal(np.asarray(laplacian), np.asarray(itk.cuda_laplacian_image_filter(image, GPUEnabled=False)))
    # The class forms, ITK's UseImageSpacing.
    for name, expected in (("GradientMagnitude", np.sqrt(sum(d * d for d in differences(values, (1, 1, 1))[0]))),
                           ("Laplacian", sum(differences(values, (1, 1, 1))[1]))):
        f = getattr(itk, f"Cuda{name}ImageFilter")[type(image), type(image)].New(image, GPUEnabled=gpu_enabled)
        f.SetUseImageSpacing(False)
        f.Update()
        assert not f.GetUseImageSpacing()
        assert_near(f.GetOutput(), expected, code)


@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_gradient(gpu_enabled):
    skip_without_gpu(gpu_enabled)
    image, values = random_image("F", 3, seed=44)
    spacing = anisotropic(image)
    first, _ = differences(values, spacing)
    gradient = itk.cuda_gradient_image_filter(image, GPUEnabled=gpu_enabled)
    assert type(gradient) is itk.CudaImage[itk.CovariantVector[itk.F, 3], 3]
    array = np.asarray(gradient)  # (z, y, x, component x, y, z)
    assert array.shape == values.shape + (3,)
    for component in range(3):
        assert_near(array[..., component], first[2 - component], "F")
    itk_code = itk.cuda_gradient_image_filter(image, GPUEnabled=False)
    np.testing.assert_array_equal(array, np.asarray(itk_code))
    # The class form: ITK's UseImageDirection with a rotated direction.
    direction = np.eye(3)
    direction[0, 0] = direction[1, 1] = np.cos(0.3)
    direction[0, 1], direction[1, 0] = -np.sin(0.3), np.sin(0.3)
    image.SetDirection(itk.matrix_from_array(direction))
    f = itk.CudaGradientImageFilter[type(image), itk.F, itk.F].New(image, GPUEnabled=gpu_enabled)
    f.Update()
    rotated = np.asarray(f.GetOutput())
    local = np.stack([first[2], first[1], first[0]], axis=-1)
    assert_near(rotated, local @ direction.T, "F")


@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_gradient_owns_its_boundary_condition(gpu_enabled):
    """OverrideBoundaryCondition(): the filter owns the condition, as ITK's
    C++ does (it deletes it when replaced and with the filter), so the Python
    object gives up its ownership; the periodic condition's differences wrap
    around the edges, and nothing is deleted twice."""
    skip_without_gpu(gpu_enabled)
    image, values = random_image("F", 3, seed=45)
    spacing = anisotropic(image)
    f = itk.CudaGradientImageFilter[type(image), itk.F, itk.F].New(image, GPUEnabled=gpu_enabled)
    condition = itk.PeriodicBoundaryCondition[type(image)]()
    f.OverrideBoundaryCondition(condition)
    assert not condition.thisown
    f.Update()
    wrapped, _ = differences(values, spacing, mode="wrap")
    array = np.asarray(f.GetOutput())
    for component in range(3):
        assert_near(array[..., component], wrapped[2 - component], "F")
    del condition
    gc.collect()
    # A new condition (a temporary here) replaces the first, which ITK deletes.
    f.OverrideBoundaryCondition(itk.ZeroFluxNeumannBoundaryCondition[type(image)]())
    gc.collect()
    f.Update()
    edge, _ = differences(values, spacing)
    array = np.asarray(f.GetOutput())
    for component in range(3):
        assert_near(array[..., component], edge[2 - component], "F")
    del f, array
    gc.collect()


@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_split_into_slabs_is_the_whole_image(gpu_enabled):
    """SetSplitDevices() of the neighborhood filters: slabs of the last axis,
    a device named as often as it computes a slab, each slab read with its
    halo, give what one device gives (with one GPU the second and third slabs
    go through the scratch and copies another device's would); the choice is
    checked; the CPU parent ignores it."""
    skip_without_gpu(gpu_enabled)
    rng = np.random.default_rng(46)
    values = rng.uniform(-100, 100, size=(23, 19, 17)).astype(np.float32)
    image = cuda_image(values)
    results = {}
    for name, make in [("gaussian", lambda: itk.CudaDiscreteGaussianImageFilter[type(image), type(image)].New()),
                       ("mean", lambda: itk.CudaMeanImageFilter[type(image), type(image)].New()),
                       ("gradient", lambda: itk.CudaGradientImageFilter[type(image), itk.F, itk.F].New())]:
        for split in (False, True):
            f = make()
            f.SetInput(image)
            f.SetGPUEnabled(gpu_enabled)
            if name == "gaussian":
                f.SetVariance(4.0)
            if name == "mean":
                f.SetRadius(2)
            if split:
                assert tuple(f.GetSplitDevices()) == ()
                f.SetSplitDevices([0, 0, 0], [1, 2, 1])
                assert tuple(f.GetSplitDevices()) == (0, 0, 0)
                assert tuple(f.GetSplitWeights()) == (1.0, 2.0, 1.0)
            f.Update()
            results[name, split] = np.asarray(f.GetOutput()).copy()
        np.testing.assert_array_equal(results[name, True], results[name, False], err_msg=name)
    with pytest.raises(RuntimeError, match="negative index -1"):
        f.SetSplitDevices([0, -1])
    f.SetSplitAcrossAllDevices(True)
    assert f.GetSplitAcrossAllDevices() is True
    assert tuple(f.GetSplitDevices()) == ()
