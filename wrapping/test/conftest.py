# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""Fixtures: GPU tests skip, visibly, where there is no device or no library."""

import gc

import pytest

import itk_cudacommon as icc


@pytest.fixture(autouse=True)
def default_device_current():
    """Each test starts with the default device current: CuPy and the memory
    probe follow the current device, and JAX, for one, leaves another device
    current after setting up all of them (test_devices.py covers that case)."""
    if icc.IsCudaAvailable():
        icc.core.SetCurrentDevice(icc.core.DefaultDevice())


@pytest.fixture
def gpu():
    if not icc.IsCudaAvailable():
        pytest.skip(f"no CUDA device: {icc.CudaUnavailableReason()}")


@pytest.fixture
def cupy(gpu):
    return pytest.importorskip("cupy")


@pytest.fixture
def torch(gpu):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    return torch


@pytest.fixture
def jax(gpu):
    jax = pytest.importorskip("jax")
    try:
        jax.devices("gpu")
    except RuntimeError:
        pytest.skip("JAX has no GPU backend")
    return jax


@pytest.fixture
def collect():
    """Drop every unreachable Python object now."""
    def run():
        for _ in range(3):
            gc.collect()
    return run



def needs_itk_module(name):
    """Skip unless the itk wheel has the compiled module `name` (the GPU hosts
    get a pruned itk-core, see scripts/stage-gpu-build.sh)."""
    import pathlib

    import itk

    if not list(pathlib.Path(itk.__file__).parent.glob(f"_{name}Python.*")):
        pytest.skip(f"the itk package here has no {name} module")


def needs_template_type_errors():
    """itk.TemplateTypeError's message lists the reader templates, which
    loads ITK's IO modules: skip where the pruned itk-core lacks them."""
    needs_itk_module("ITKIOImageBase")
    needs_itk_module("ITKIOMeshBase")


def make_image(pixel=None, dimension=3, size=(4, 5, 6)):
    """A new, allocated itk.CudaImage[pixel (default itk.F), dimension] of `size`."""
    import itk

    image = itk.CudaImage[itk.F if pixel is None else pixel, dimension].New()
    image.SetRegions(list(size))
    image.Allocate()
    return image
