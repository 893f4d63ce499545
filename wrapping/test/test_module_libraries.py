# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""ITKCudaCommon 2.1.0's own Python tests and examples, run against this package.

They are taken, at run time, from the release tarball next to the repository
(../shared/deps/itkcudacommon-2.1.0.tar.xz, or CUDACOMMON_ORIGINAL_TARBALL), unchanged but for an
`import itk_cudacommon` line after `import itk`, and run in subprocesses.
"""

import importlib.util
import os
import pathlib
import re
import subprocess
import sys
import tarfile

import pytest

import itk_cudacommon as icc

TARBALL = pathlib.Path(os.environ.get(
    "CUDACOMMON_ORIGINAL_TARBALL",
    pathlib.Path(__file__).resolve().parents[3] / "shared/deps/itkcudacommon-2.1.0.tar.xz"))


@pytest.fixture
def original(tmp_path):
    if not TARBALL.is_file():
        pytest.skip(f"ITKCudaCommon 2.1.0's sources are not at {TARBALL}")
    with tarfile.open(TARBALL) as archive:
        archive.extractall(tmp_path, filter="data")
    return tmp_path


def prepared(root, relative):
    path = root / relative
    assert path.is_file(), f"{relative} is missing from {TARBALL.name}"
    text = path.read_text()
    patched, count = re.subn(r"^import itk$", "import itk\nimport itk_cudacommon", text, count=1, flags=re.M)
    assert count == 1, f"no 'import itk' line in {relative}"
    path.write_text(patched)
    return path


def needs(*modules):
    if not icc.IsCudaAvailable():
        pytest.skip(f"needs a CUDA device: {icc.CudaUnavailableReason()}")
    for module in modules:
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"needs {module}")
    if "torch" in modules:
        import torch

        if not torch.cuda.is_available():
            pytest.skip("PyTorch sees no CUDA device")


def run(arguments, cwd):
    return subprocess.run([sys.executable, *arguments], cwd=cwd, capture_output=True, text=True, timeout=300)


def run_pytest(path, expected_passed):
    done = run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(path.parent), str(path)], path.parent)
    report = done.stdout[-4000:] + done.stderr[-4000:]
    assert done.returncode == 0, report
    match = re.search(r"(\d+) passed", done.stdout)
    assert match and int(match.group(1)) == expected_passed, report
    assert not re.search(r"\d+ (failed|skipped|error)", done.stdout), report


def test_cuda_image_from_image_test(original):
    run_pytest(prepared(original, "test/itkCudaImageFromImageTest.py"), 1)  # no GPU needed


def test_cuda_array_interface_test(original):
    needs("cupy", "torch")
    run_pytest(prepared(original, "test/itkCudaArrayInterfaceTest.py"), 6)


@pytest.mark.parametrize("example, module", [
    ("examples/itkCudaArrayInterfaceCupyExample.py", "cupy"),
    ("examples/itkCudaArrayInterfaceTorchExample.py", "torch"),
])
def test_example(original, example, module):
    needs(module)
    path = prepared(original, example)
    done = run([str(path)], path.parent)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]


def test_extension_loads_no_itk_or_cudart_library():
    import shutil

    ldd = shutil.which("ldd")
    if ldd is None:
        pytest.skip("ldd is not installed")
    extension = pathlib.Path(icc.CudaCommonPython._CudaCommonPython.__file__)
    assert extension.name.startswith("_CudaCommonPython") and extension.suffix == ".so"
    done = subprocess.run([ldd, str(extension)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    bad = [line for line in done.stdout.splitlines() if re.search(r"libITK|libitk|libcudart|libCudaCommon", line)]
    assert not bad, "\n".join(bad)
