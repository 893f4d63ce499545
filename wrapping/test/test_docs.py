# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""Runs the Python examples of cuda_array_interface.md, so the document stays true.

Each ```python block runs in a fresh namespace. A block whose first line is
`# needs: cupy` (or torch, jax, itk) runs only where that library (and, for
the GPU libraries, a device) is present, and is reported as skipped elsewhere.
"""

import pathlib
import re

import itk  # noqa: F401  (the examples use the itk package)
import pytest

import itk_cudacommon as icc

DOCUMENT = pathlib.Path(__file__).parents[2] / "cuda_array_interface.md"
GPU_LIBRARIES = {"cupy", "torch", "jax"}
BLOCKS = re.findall(r"```python\n(.*?)```", DOCUMENT.read_text(), flags=re.S)


def test_the_document_has_examples():
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("number", range(len(BLOCKS)))
def test_example(number):
    code = BLOCKS[number]
    needs = re.match(r"# needs: ([\w, ]+)\n", code)
    if needs:
        modules = [module.strip() for module in needs.group(1).split(",")]
        if set(modules) & GPU_LIBRARIES and not icc.IsCudaAvailable():
            pytest.skip(f"example {number} needs a CUDA device: {icc.CudaUnavailableReason()}")
        for module in modules:
            pytest.importorskip(module)
    exec(compile(code, f"{DOCUMENT.name}[{number}]", "exec"), {"__name__": f"example{number}"})
