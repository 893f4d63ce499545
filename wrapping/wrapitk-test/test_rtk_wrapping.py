# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""RTK 2.7.0's own wrapping files built on CudaCommon's WrapITK outputs
(scripts/test-rtk-wrapping.sh): the module RTK (its ITKCommon and CUDA
submodules, unchanged) loaded beside CudaCommon and PyPI's itk-core, as RTK's
CUDA wheels are. Skipped, visibly, where that module is not installed
(scripts/test-wrapitk.sh alone)."""

import os
import pathlib
import sys

import numpy as np
import pytest

import itk

from conftest import _device_count

if not list(pathlib.Path(itk.__file__).parent.glob("_RTKPython*")):
    pytest.skip("RTK's module is not installed (scripts/test-rtk-wrapping.sh installs it)", allow_module_level=True)

INTERFACES = pathlib.Path(os.environ.get("RTK_WRAP_INTERFACE_DIR", "/nonexistent"))
VF5 = itk.Vector[itk.F, 5]


def test_rtk_cuda_images_are_cuda_images_of_cudacommon():
    # itkCudaImageRTK.wrap wraps the 5-component vector images CudaCommon
    # does not; they join CudaCommon's itk.CudaImage template.
    image_type = itk.CudaImage[VF5, 3]
    assert "itk.RTKPython" in sys.modules
    assert issubclass(image_type, itk.Image[VF5, 3])
    assert image_type.__name__ == "itkCudaImageVF53"
    assert sys.modules[image_type.__module__].__name__ == "itk.itkCudaImageRTKPython"
    # CudaCommon's own types are still CudaCommon's.
    assert sys.modules[itk.CudaImage[itk.F, 3].__module__].__name__ == "itk.itkCudaImagePython"


def test_rtk_data_managers_derive_from_cudacommons():
    manager_type = itk.CudaImageDataManager[itk.CudaImage[VF5, 2]]
    assert issubclass(manager_type, itk.CudaDataManager)
    image = itk.CudaImage[VF5, 2].New()
    image.SetRegions([3, 2])
    image.Allocate()
    image.FillBuffer(VF5([1, 2, 3, 4, 5]))
    manager = image.GetCudaDataManager()
    assert isinstance(manager, itk.CudaDataManager)
    assert manager.GetBufferSize() == 3 * 2 * 5 * 4


@pytest.mark.skipif(not INTERFACES.is_dir(), reason="the wrapped ITK tree's typedefs (RTK_WRAP_INTERFACE_DIR) are not here")
def test_rtk_interface_files_import_cudacommons():
    # RTK's generator reads CudaCommon.mdx: its SWIG interfaces import
    # CudaCommon's (the data manager's base) rather than redeclaring them.
    text = (INTERFACES / "itkCudaImageDataManagerRTK.i").read_text()
    assert "%import itkCudaDataManager.i" in text
    rtk_cuda_image = (INTERFACES / "CudaImageRTK.i").read_text()
    # RTK's copy of CudaCommon's CudaImage.i.init and .i.in, one line per type
    # (RTK's CMake drops the semicolons of .i.in's text: it has none).
    assert "def _get_type_string" in rtk_cuda_image
    assert 'CUDACOMMON_CUDA_IMAGE_INTERFACE(itkCudaImageVF53, "F")' in rtk_cuda_image
    assert "@" + "CudaImageTypes@" not in rtk_cuda_image


def test_array_interface_type_strings_of_rtk_module():
    module = sys.modules[itk.CudaImage[VF5, 3].__module__]
    assert module._get_type_string("F") == "<f4"
    assert module.get_itk_type("<f4") == "F"


def test_rtk_filter_bases_of_cuda_images():
    # RTK's itkInPlaceImageFilterRTK and itkImageToImageFilterRTK wrap the
    # CudaImage bases of its CUDA filters; both modules' classes resolve.
    ci = itk.CudaImage[itk.F, 3]
    assert itk.ImageToImageFilter[ci, ci] is not None
    assert itk.InPlaceImageFilter[ci, ci] is not None
    assert itk.ImageSource[itk.CudaImage[VF5, 3]] is not None


def test_cuda_array_interface_of_an_rtk_type():
    # CudaImage.i's interface, configured by RTK for its own types.
    image = itk.CudaImage[VF5, 3].New()
    image.SetRegions([4, 3, 2])
    image.Allocate()
    image.FillBuffer(VF5([1, 2, 3, 4, 5]))
    if _device_count() == 0:
        with pytest.raises(RuntimeError, match="no CUDA device"):
            image.__cuda_array_interface__
        assert not image.GetCudaDataManager().IsCPUBufferDirty()
        pytest.skip("no CUDA device: the interface's refusal checked, not its view")
    import cupy

    interface = image.__cuda_array_interface__
    assert interface["shape"] == (2, 3, 4, 5)
    assert interface["typestr"] == "<f4"
    view = cupy.asarray(image)
    np.testing.assert_array_equal(cupy.asnumpy(view)[1, 2, 3], [1, 2, 3, 4, 5])
    view *= 2
    again = cupy.asarray(image)  # the GPU copy is still the current one
    assert again.data.ptr == view.data.ptr
    np.testing.assert_array_equal(cupy.asnumpy(again)[1, 2, 3], [2, 4, 6, 8, 10])
    image.GetCudaDataManager().UpdateCPUBuffer()
    np.testing.assert_array_equal(np.asarray(image.GetPixel([3, 2, 1])), [2, 4, 6, 8, 10])


# --- RTK's CUDA filter rtk::CudaConstantVolumeSource (its own .cxx and kernel,
# built into the module's library by scripts/test-rtk-wrapping.sh), from Python.

def _rtk_cuda_filter():
    if not hasattr(itk, "CudaConstantVolumeSource"):
        pytest.skip("this RTK module has no CUDA filter (scripts/test-rtk-wrapping.sh builds one)")
    return itk.CudaConstantVolumeSource


# RTK's GPUGenerateData() asks the 2.x GetGPUBufferPointer() (not
# GetGPUBufferPointerForOverwrite()) of the output Allocate() only sized (its
# pixels undefined, its host buffer not made yet): nothing goes up, as in
# ITKCudaCommon 2.1.0 (Allocate(false) left both copies dirty), and no host
# buffer is made.
_ALLOCATION_UPLOADS = 0


def _configured(source, constant):
    source.SetSize([61, 47, 33])
    source.SetSpacing([0.5, 1.25, 2.0])
    source.SetOrigin([-7.0, 3.5, 1.0])
    source.SetConstant(constant)
    return source


def test_rtk_cuda_filter_is_a_cuda_filter_over_rtks_cpu_filter():
    cuda_filter = _rtk_cuda_filter()
    ci = itk.CudaImage[itk.F, 3]
    assert issubclass(cuda_filter, itk.CudaImageToImageFilter[ci, ci, itk.ConstantImageSource[ci]])
    assert issubclass(cuda_filter, itk.ConstantImageSource[ci])
    assert cuda_filter.New().GetNameOfClass() == "CudaConstantVolumeSource"


@pytest.mark.parametrize("constant", [3.25, 0.0])  # RTK's kernel, and its memset-only path
def test_rtk_cuda_filter_from_python_equals_rtks_cpu_filter(cupy, constant):
    cuda = _configured(_rtk_cuda_filter().New(), constant)
    cpu = _configured(itk.ConstantImageSource[itk.Image[itk.F, 3]].New(), constant)
    cuda.Update()
    cpu.Update()
    result, expected = cuda.GetOutput(), cpu.GetOutput()
    assert isinstance(result, itk.CudaImage[itk.F, 3])
    # Made on the GPU by RTK's kernel: the GPU copy current, the CPU copy
    # stale, nothing brought down.
    manager = result.GetCudaDataManager()
    assert manager.IsCPUBufferDirty() and not manager.IsGPUBufferDirty()
    assert result.GetTransferStatistics()["HostToDeviceCount"] == _ALLOCATION_UPLOADS
    view = cupy.asarray(result)
    assert view.shape == (33, 47, 61)
    assert result.GetTransferStatistics()["DeviceToHostCount"] == 0
    np.testing.assert_array_equal(cupy.asnumpy(view), itk.array_view_from_image(expected))
    assert np.all(cupy.asnumpy(view) == np.float32(constant))
    for name in ("GetSpacing", "GetOrigin", "GetDirection", "GetLargestPossibleRegion"):
        assert getattr(result, name)() == getattr(expected, name)(), name
    # ITK's CPU side reads the same voxels (one copy down).
    np.testing.assert_array_equal(itk.array_from_image(result), itk.array_view_from_image(expected))
    assert result.GetTransferStatistics()["DeviceToHostCount"] == 1


def test_rtk_cuda_filter_output_feeds_cudacommons_filters(cupy):
    source = _configured(_rtk_cuda_filter().New(), 1.5)
    ci = itk.CudaImage[itk.F, 3]
    add = itk.CudaAddImageFilter[ci].New()
    add.SetInput1(source.GetOutput())
    add.SetInput2(source.GetOutput())
    add.Update()
    out = add.GetOutput()
    assert np.all(cupy.asnumpy(cupy.asarray(out)) == np.float32(3.0))
    # Nothing comes down to the host, nothing goes up: not RTK's output at
    # its allocation (_ALLOCATION_UPLOADS), not CudaCommon's.
    for image, uploads in ((source.GetOutput(), _ALLOCATION_UPLOADS), (out, 0)):
        statistics = image.GetTransferStatistics()
        assert statistics["DeviceToHostCount"] == 0
        assert statistics["HostToDeviceCount"] == uploads


# --- One CudaCommon state per process: RTK's module links its own copy of
# CudaCommon's library (as RTK's wheels do); an allocation made by that copy
# must be known to CudaCommon's module (src/itkCudaProcessGlobal.h).

def _adopt(pointer, shape):
    class Foreign:  # a device array as any CUDA library hands it over
        pass

    foreign = Foreign()
    foreign.__cuda_array_interface__ = {"shape": shape, "typestr": "<f4", "data": (pointer, False),
                                        "version": 3, "strides": None, "stream": None}
    return itk.cuda_image_from_cuda_array(foreign)


def _check_one_state_per_process():
    import gc

    vf5 = itk.Vector[itk.F, 5]
    made_by_rtk = itk.CudaImage[vf5, 3].New()  # RTK's module's class, its copy's code
    made_by_rtk.SetRegions([4, 3, 2])
    made_by_rtk.Allocate()
    made_by_rtk.FillBuffer(vf5([1, 2, 3, 4, 5]))
    manager = made_by_rtk.GetCudaDataManager()
    pointer = int(manager.GetGPUBufferPointer())  # RTK's copy uploads (no export hold)
    assert not manager.IsGPUBufferExported()
    adopter = _adopt(pointer, (2, 3, 20))  # CudaCommon's module's code
    assert type(adopter) is itk.CudaImage[itk.F, 3]
    # CudaCommon's copy found the allocation RTK's copy made, and holds it.
    assert manager.IsGPUBufferExported()
    del made_by_rtk, manager
    gc.collect()
    # The hold keeps the buffer alive after the image that made it is gone.
    values = itk.array_from_image(adopter)
    np.testing.assert_array_equal(values.reshape(2, 3, 4, 5)[1, 2, 3], [1, 2, 3, 4, 5])


def test_one_cudacommon_state_for_both_modules(gpu):
    _check_one_state_per_process()


def test_one_cudacommon_state_for_both_modules_on_the_emulated_device():
    # Anywhere: the emulated backend set through CudaCommon's module must be
    # the one RTK's copy allocates with. In a process of its own (the
    # backend is switched for the whole process).
    import subprocess

    import itk_cudacommon as icc

    if not icc.core._HasEmulatedDeviceMemoryForTests():
        pytest.skip("this build has no test backend (scripts/test-wrapitk.sh builds one)")
    code = ("import itk, itk_cudacommon as icc, test_rtk_wrapping as t\n"
            "icc.core._UseEmulatedDeviceMemoryForTests()\n"
            "t._check_one_state_per_process()\nprint('checked')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=pathlib.Path(__file__).parent)
    assert done.returncode == 0 and done.stdout.strip().endswith("checked"), done.stdout[-3000:] + done.stderr[-3000:]
