# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""CudaDivideImageFilter, CudaDivideOrZeroOutImageFilter, CudaSqrtImageFilter,
CudaExpImageFilter, CudaLogImageFilter, CudaThresholdImageFilter,
CudaBinaryThresholdImageFilter, CudaShiftScaleImageFilter, CudaCastImageFilter,
CudaExtractImageFilter, CudaCropImageFilter, CudaConstantPadImageFilter,
CudaPasteImageFilter, CudaStatisticsImageFilter and
CudaMinimumMaximumImageCalculator from Python: their
class (and for the image filters snake_case) forms, against NumPy and ITK's
filters from the wheel, on the GPU with a device and through the CPU parent
with GPUEnabled off."""

import itk
import numpy as np
import pytest

import itk_cudacommon as icc
from test_filters import ITK_TYPES, random_image
from test_functor_filters import itk_reference

PATHS = [True, False]


def skip_without_gpu(gpu_enabled):
    if gpu_enabled and not icc.IsCudaAvailable():
        pytest.skip(f"no CUDA device: {icc.CudaUnavailableReason()}")


def cuda_image(values):
    """A CudaImage of `values` (through an itk.Image, as random_image makes them)."""
    return icc.cuda_image_from_image(itk.image_from_array(np.ascontiguousarray(values)))


def with_zeros(values):
    """Some exact zeros among the values (a divisor's)."""
    values = values.copy()
    values.flat[::7] = 0
    return values


@pytest.mark.parametrize("code", ["F", "D"])
@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_divide(code, gpu_enabled):
    skip_without_gpu(gpu_enabled)
    first, a = random_image(code, 3, seed=21)
    _, b = random_image(code, 3, seed=22)
    b = with_zeros(b)
    second = cuda_image(b)
    result = itk.cuda_divide_image_filter(first, second, GPUEnabled=gpu_enabled)
    assert type(result) is itk.CudaImage[ITK_TYPES[code], 3]
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.where(b != 0, a / np.where(b != 0, b, 1), np.finfo(a.dtype).max).astype(a.dtype)
    np.testing.assert_array_equal(np.asarray(result), expected)
    reference = itk_reference("divide_image_filter", a, b)
    if reference is not None:
        np.testing.assert_array_equal(np.asarray(result), reference)
    # A constant divisor; a zero one is refused as ITK refuses it.
    divide = itk.CudaDivideImageFilter[type(first)].New(first, GPUEnabled=gpu_enabled)
    divide.SetConstant2(4.0)
    divide.Update()
    np.testing.assert_array_equal(np.asarray(divide.GetOutput()), (a / a.dtype.type(4)).astype(a.dtype))
    divide.SetConstant2(0.0)
    with pytest.raises(RuntimeError, match="denominator should not be set to zero"):
        divide.Update()


@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_divide_or_zero_out(gpu_enabled):
    skip_without_gpu(gpu_enabled)
    first, a = random_image("F", 3, seed=23)
    second, b = random_image("F", 3, seed=24)
    divide = itk.CudaDivideOrZeroOutImageFilter[type(first)].New(first, second, GPUEnabled=gpu_enabled)
    divide.SetThreshold(5.0)
    divide.SetConstant(-1.0)
    divide.Update()
    expected = np.where(b < 5.0, np.float32(-1.0), a / np.where(b < 5.0, 1, b)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(divide.GetOutput()), expected)
    assert divide.GetThreshold() == 5.0 and divide.GetConstant() == -1.0


@pytest.mark.parametrize("name,function", [("sqrt", np.sqrt), ("exp", np.exp), ("log", np.log)])
@pytest.mark.parametrize("code", ["F", "D"])
@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_elementary_functions(name, function, code, gpu_enabled):
    skip_without_gpu(gpu_enabled)
    _, values = random_image(code, 2, seed=25)
    if name != "exp":
        values = np.abs(values)
    image = cuda_image(values)
    result = getattr(itk, f"cuda_{name}_image_filter")(image, GPUEnabled=gpu_enabled)
    assert type(result) is itk.CudaImage[ITK_TYPES[code], 2]
    # In double, converted: within an ulp of the output type (exp and log of
    # the device's libm).
    with np.errstate(divide="ignore", over="ignore"):
        expected = function(values.astype(np.float64)).astype(values.dtype)
    np.testing.assert_array_max_ulp(np.asarray(result), expected, maxulp=1)
    assert getattr(itk, f"cuda_{name}_image_filter") is getattr(itk.CudaCommon, f"cuda_{name}_image_filter")


@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_binary_threshold_into_unsigned_char(gpu_enabled):
    skip_without_gpu(gpu_enabled)
    image, values = random_image("F", 3, seed=26)
    threshold = itk.CudaBinaryThresholdImageFilter[type(image), itk.CudaImage[itk.UC, 3]].New(
        image, LowerThreshold=-10.0, UpperThreshold=20.0, InsideValue=255, OutsideValue=3, GPUEnabled=gpu_enabled)
    threshold.Update()
    expected = np.where((values >= -10) & (values <= 20), 255, 3).astype(np.uint8)
    np.testing.assert_array_equal(np.asarray(threshold.GetOutput()), expected)
    threshold.SetLowerThreshold(30.0)
    with pytest.raises(RuntimeError, match="Lower threshold cannot be greater than upper threshold"):
        threshold.Update()


@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_threshold(gpu_enabled):
    skip_without_gpu(gpu_enabled)
    image, values = random_image("D", 3, seed=27)
    result = itk.cuda_threshold_image_filter(image, Lower=-5.0, Upper=40.0, OutsideValue=-99.0, GPUEnabled=gpu_enabled)
    expected = np.where((values >= -5) & (values <= 40), values, -99.0)
    np.testing.assert_array_equal(np.asarray(result), expected)


@pytest.mark.parametrize("pair", [("F", "D"), ("D", "F"), ("F", "UC"), ("UC", "F"), ("F", "F")])
@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_cast(pair, gpu_enabled):
    skip_without_gpu(gpu_enabled)
    source, target = pair
    _, values = random_image(source, 3, seed=28)
    if target == "UC":
        values = np.abs(values)  # values unsigned char holds
    image = cuda_image(values)
    output_type = itk.CudaImage[ITK_TYPES[target], 3]
    cast = itk.CudaCastImageFilter[type(image), output_type].New(image, GPUEnabled=gpu_enabled)
    cast.Update()
    result = np.asarray(cast.GetOutput())
    assert result.dtype == np.dtype({"F": np.float32, "D": np.float64, "UC": np.uint8}[target])
    np.testing.assert_array_equal(result, values.astype(result.dtype))


@pytest.mark.parametrize("pair", [("F", "F"), ("D", "D"), ("F", "UC"), ("D", "UC")])
@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_shift_scale(pair, gpu_enabled):
    """CudaShiftScaleImageFilter: (x + Shift) * Scale in double, clamped to
    the output's range, with ITK's counts of the clamped pixels."""
    skip_without_gpu(gpu_enabled)
    source, target = pair
    image, values = random_image(source, 3, seed=35)  # -100 to 100
    output_type = itk.CudaImage[ITK_TYPES[target], 3]
    # Out of the output type's range on both sides (for double, to infinity).
    scale = {"F": 1e38, "D": 1e307, "UC": 2.0}[target]
    shift_scale = itk.CudaShiftScaleImageFilter[type(image), output_type].New(
        image, Shift=10.0, Scale=scale, GPUEnabled=gpu_enabled)
    shift_scale.Update()
    result = np.asarray(shift_scale.GetOutput())
    real = (values.astype(np.float64) + 10.0) * scale
    dtype = result.dtype
    info = np.finfo(dtype) if np.issubdtype(dtype, np.floating) else np.iinfo(dtype)
    low = -info.max if np.issubdtype(dtype, np.floating) else info.min
    expected = np.clip(real, low, info.max).astype(dtype)
    np.testing.assert_array_equal(result, expected)
    assert shift_scale.GetUnderflowCount() == np.count_nonzero(real < low)
    assert shift_scale.GetOverflowCount() == np.count_nonzero(real > info.max)
    assert shift_scale.GetUnderflowCount() + shift_scale.GetOverflowCount() > 0


@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_extract_a_slice_and_a_region(gpu_enabled):
    """CudaExtractImageFilter: a region of the image's dimension and a slice
    (one dimension fewer), as ITK's ExtractImageFilter takes them."""
    skip_without_gpu(gpu_enabled)
    _, values = random_image("F", 3, seed=29)  # NumPy order: z, y, x = 3, 5, 7
    image = cuda_image(values)
    region = itk.ImageRegion[3]([1, 2, 0], [5, 3, 2])
    extract = itk.CudaExtractImageFilter[type(image), type(image)].New(
        image, ExtractionRegion=region, GPUEnabled=gpu_enabled)
    extract.SetDirectionCollapseToSubmatrix()
    extract.Update()
    np.testing.assert_array_equal(np.asarray(extract.GetOutput()), values[0:2, 2:5, 1:6])
    slice_type = itk.CudaImage[itk.F, 2]
    extract = itk.CudaExtractImageFilter[type(image), slice_type].New(
        image, ExtractionRegion=itk.ImageRegion[3]([0, 0, 1], [7, 5, 0]), GPUEnabled=gpu_enabled)
    extract.SetDirectionCollapseToSubmatrix()
    extract.Update()
    assert type(extract.GetOutput()) is slice_type
    np.testing.assert_array_equal(np.asarray(extract.GetOutput()), values[1])


@pytest.mark.parametrize("code", ["F", "D"])
@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_crop_and_constant_pad(code, gpu_enabled):
    """CudaCropImageFilter and CudaConstantPadImageFilter, class and
    snake_case forms (sizes in ITK's x, y, z order), against NumPy's slicing
    and np.pad; the padded image's region starts below the input's."""
    skip_without_gpu(gpu_enabled)
    _, values = random_image(code, 3, seed=37)  # NumPy order: z, y, x = 3, 5, 7
    image = cuda_image(values)
    crop = itk.CudaCropImageFilter[type(image), type(image)].New(
        image, LowerBoundaryCropSize=[1, 2, 0], UpperBoundaryCropSize=[2, 0, 1], GPUEnabled=gpu_enabled)
    crop.Update()
    np.testing.assert_array_equal(np.asarray(crop.GetOutput()), values[0:2, 2:5, 1:5])
    cropped = itk.cuda_crop_image_filter(image, BoundaryCropSize=[1, 1, 1], GPUEnabled=gpu_enabled)
    np.testing.assert_array_equal(np.asarray(cropped), values[1:2, 1:4, 1:6])
    padded = itk.cuda_constant_pad_image_filter(
        image, PadLowerBound=[2, 0, 1], PadUpperBound=[0, 3, 1], Constant=2.5, GPUEnabled=gpu_enabled)
    expected = np.pad(values, ((1, 1), (0, 3), (2, 0)), constant_values=2.5)
    np.testing.assert_array_equal(np.asarray(padded), expected)
    assert tuple(padded.GetLargestPossibleRegion().GetIndex()) == (-2, 0, -1)


@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_paste(gpu_enabled):
    """CudaPasteImageFilter: a region of one image pasted into another (sizes
    and indices in ITK's x, y, z order), and a constant pasted, against
    NumPy."""
    skip_without_gpu(gpu_enabled)
    _, values = random_image("F", 3, seed=41)  # z, y, x = 3, 5, 7
    _, other = random_image("F", 3, seed=43)
    destination, source = cuda_image(values), cuda_image(other)
    paste = itk.CudaPasteImageFilter[type(destination)].New(
        destination, SourceImage=source, SourceRegion=itk.ImageRegion[3]([1, 0, 0], [3, 2, 2]),
        DestinationIndex=[0, 1, 1], GPUEnabled=gpu_enabled)
    paste.Update()
    expected = values.copy()
    expected[1:3, 1:3, 0:3] = other[0:2, 0:2, 1:4]
    np.testing.assert_array_equal(np.asarray(paste.GetOutput()), expected)
    filled = itk.CudaPasteImageFilter[type(destination)].New(
        destination, Constant=-7.0, SourceRegion=itk.ImageRegion[3]([0, 0, 0], [2, 5, 1]),
        DestinationIndex=[5, 0, 2], GPUEnabled=gpu_enabled)
    filled.Update()
    expected = values.copy()
    expected[2:3, 0:5, 5:7] = -7.0
    np.testing.assert_array_equal(np.asarray(filled.GetOutput()), expected)


@pytest.mark.parametrize("code", ["F", "D", "UC", "SS"])
@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_statistics(code, gpu_enabled):
    """CudaStatisticsImageFilter: ITK's StatisticsImageFilter's outputs (sums
    in double; the variance with n - 1), on the GPU or by ITK's code."""
    skip_without_gpu(gpu_enabled)
    image, values = random_image(code, 3, seed=31)
    statistics = itk.CudaStatisticsImageFilter[type(image)].New(image, GPUEnabled=gpu_enabled)
    statistics.Update()
    assert statistics.GetComputedOnGPU() == gpu_enabled
    real = values.astype(np.float64)
    assert statistics.GetMinimum() == values.min()
    assert statistics.GetMaximum() == values.max()
    np.testing.assert_allclose(statistics.GetSum(), real.sum(), rtol=1e-12)
    np.testing.assert_allclose(statistics.GetSumOfSquares(), (real * real).sum(), rtol=1e-12)
    np.testing.assert_allclose(statistics.GetMean(), real.mean(), rtol=1e-12)
    np.testing.assert_allclose(statistics.GetVariance(), real.var(ddof=1), rtol=1e-9)
    np.testing.assert_allclose(statistics.GetSigma(), real.std(ddof=1), rtol=1e-9)


@pytest.mark.parametrize("gpu_enabled", PATHS)
def test_minimum_maximum(gpu_enabled):
    """CudaMinimumMaximumImageCalculator: the extrema and the ITK indices
    (x first) of their first occurrences, of the image or of a region."""
    skip_without_gpu(gpu_enabled)
    _, values = random_image("F", 3, seed=33)  # NumPy order: z, y, x = 3, 5, 7
    values[2, 4, 6] = values[1, 0, 3] = values.min() - 1  # two equal minima: the first counts
    image = cuda_image(values)
    calculator = itk.CudaMinimumMaximumImageCalculator[type(image)].New(Image=image, GPUEnabled=gpu_enabled)
    calculator.Compute()
    assert calculator.GetComputedOnGPU() == gpu_enabled
    assert calculator.GetMinimum() == values.min()
    assert calculator.GetMaximum() == values.max()
    assert tuple(calculator.GetIndexOfMinimum()) == (3, 0, 1)
    z, y, x = np.unravel_index(np.argmax(values), values.shape)
    assert tuple(calculator.GetIndexOfMaximum()) == (x, y, z)
    calculator.SetRegion(itk.ImageRegion[3]([4, 1, 2], [3, 4, 1]))
    calculator.Compute()
    box = values[2:3, 1:5, 4:7]
    assert calculator.GetMinimum() == box.min()
    assert tuple(calculator.GetIndexOfMinimum()) == (6, 4, 2)
