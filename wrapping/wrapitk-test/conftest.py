# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""Tests of CudaCommon's WrapITK module (itk.CudaCommonPython), installed into
an itk package beside ITK's itk-core 5.4.7 (scripts/test-wrapitk.sh). GPU
tests skip, visibly, where there is no device, CuPy or PyTorch."""

import pytest


def _device_count():
    try:
        import cupy
    except ImportError:
        return 0
    try:
        return cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError:
        return 0


@pytest.fixture
def gpu():
    if _device_count() == 0:
        pytest.skip("no CUDA device (or no CuPy to ask)")


@pytest.fixture
def cupy(gpu):
    return pytest.importorskip("cupy")


@pytest.fixture
def torch(gpu):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    return torch
