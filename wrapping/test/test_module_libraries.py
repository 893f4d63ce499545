# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""The module loads no ITK, CudaCommon or CUDA runtime library of its own: ITK
and CudaCommon are linked in statically (as in ITK's wheels) and so is the
CUDA runtime (no libcudart needed where it runs). ITKCudaCommon 2.1.0's own
Python tests and examples run, unchanged, in wrapping/wrapitk-test."""

import pathlib
import re
import shutil
import subprocess

import itk
import pytest


def test_module_loads_no_itk_or_cudart_library():
    ldd = shutil.which("ldd")
    if ldd is None:
        pytest.skip("ldd is not installed")
    folder = pathlib.Path(itk.__file__).parent
    for name in ("CudaCommon", "CudaCommonFilters"):  # the image and bases; the CUDA filters
        modules = list(folder.glob(f"_{name}Python*.so"))
        assert len(modules) == 1, (name, modules)
        done = subprocess.run([ldd, str(modules[0])], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "not found" not in done.stdout, done.stdout
        bad = [line for line in done.stdout.splitlines() if re.search(r"libITK|libitk|libcudart|libCudaCommon", line)]
        assert not bad, "\n".join(bad)
