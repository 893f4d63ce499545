# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""Runs emulated/emulated_exports.py (the export paths on the emulated device
backend) in a process of its own: it switches the backend for the process."""

import pathlib
import re
import subprocess
import sys

import pytest

import itk_cudacommon as icc


def test_exports_on_the_emulated_device():
    if not icc.core._HasEmulatedDeviceMemoryForTests():
        pytest.skip("this build has no test backend (scripts/test-wrapitk.sh builds one: "
                    "-DCudaCommon_PYTHON_TEST_BACKEND=ON)")
    path = pathlib.Path(__file__).parent / "emulated" / "emulated_exports.py"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
                          capture_output=True, text=True, timeout=300)
    report = done.stdout[-6000:] + done.stderr[-3000:]
    assert done.returncode == 0, report
    passed = re.search(r"(\d+) passed", done.stdout)
    assert passed and int(passed.group(1)) == 26, report
    assert not re.search(r"\d+ (failed|skipped|error)", done.stdout), report
