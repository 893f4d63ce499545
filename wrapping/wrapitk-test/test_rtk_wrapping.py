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
