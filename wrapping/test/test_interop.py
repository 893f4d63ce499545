# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""Interop: NumPy and itk on any machine; CuPy, PyTorch and JAX zero-copy on a GPU."""

import random
import subprocess
import sys

import itk
import numpy as np
import pytest

import itk_cudacommon as icc
from conftest import make_image

CODES = {"VF3": itk.Vector[itk.F, 3], "VF2": itk.Vector[itk.F, 2], "F": itk.F, "UC": itk.UC, "SS": itk.SS,
         "SI": itk.SI, "D": itk.D}


def new_image(pixel, size, value=None):
    image = make_image(pixel, len(size), size)
    if value is not None:
        image.FillBuffer(value)
    return image


# --- host side (runs everywhere)

def test_image_from_numpy_copies_pixels_and_sets_geometry():
    array = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    image = icc.cuda_image_from_image(array, spacing=(0.5, 1.0, 2.0), origin=(1, 2, 3),
                                      direction=np.diag([1.0, -1.0, 1.0]))
    assert type(image) is itk.CudaImage[itk.F, 3]
    assert tuple(image.GetLargestPossibleRegion().GetSize()) == (4, 3, 2)
    assert tuple(image.GetSpacing()) == (0.5, 1.0, 2.0)
    assert tuple(image.GetOrigin()) == (1.0, 2.0, 3.0)
    assert np.array_equal(itk.array_from_matrix(image.GetDirection()), np.diag([1.0, -1.0, 1.0]))
    assert image.GetPixel((3, 2, 1)) == array[1, 2, 3]
    np.testing.assert_array_equal(np.asarray(image), array)
    # cuda_image_from_image copies (CudaImageFromImageFilter): no shared host memory.
    assert not np.shares_memory(np.asarray(image), array)
    array[1, 2, 3] = -5.0
    assert image.GetPixel((3, 2, 1)) == 23.0


def test_image_from_a_temporary_numpy_array_outlives_it():
    # Run apart: reading freed memory may crash the interpreter.
    code = """if True:
        import gc, numpy as np, itk, itk_cudacommon
        image = itk.cuda_image_from_image(np.full((3, 5, 7, 9), 3.0, dtype=np.float32))
        gc.collect()
        other = np.full((3, 5, 7, 9), -1.0, dtype=np.float32)  # would reuse freed memory
        square = itk.CudaSquareImageFilter.New(image)
        square.Update()
        result = np.asarray(square.GetOutput())
        assert np.all(result == 9.0), (result.min(), result.max())
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_image_from_numpy_keeps_its_values(collect):
    image = icc.cuda_image_from_image(itk.image_from_array(np.full((8, 8), 3, dtype=np.uint16)))
    collect()
    np.full((8, 8), 7, dtype=np.uint16)  # would reuse freed memory
    assert type(image) is itk.CudaImage[itk.US, 2]
    assert np.all(np.asarray(image) == 3)


def test_image_from_non_contiguous_numpy():
    array = np.arange(24, dtype=np.float64).reshape(4, 6)[:, ::2]
    image = icc.cuda_image_from_image(array)
    assert type(image) is itk.CudaImage[itk.D, 2]
    assert not np.shares_memory(np.asarray(image), array)
    np.testing.assert_array_equal(np.asarray(image), array)


def test_image_from_numpy_errors():
    with pytest.raises(ValueError, match="shape"):
        icc.cuda_image_from_image(np.zeros((0, 4), dtype=np.float32))
    with pytest.raises(ValueError, match="typestr"):
        icc.cuda_image_from_image(np.zeros((4, 4), dtype=np.complex64))


def test_vector_image_from_numpy():
    array = np.arange(3 * 4 * 3, dtype=np.float32).reshape(3, 4, 3)
    source = itk.image_from_array(array, ttype=itk.Image[itk.Vector[itk.F, 3], 2])
    image = icc.cuda_image_from_image(source)
    assert type(image) is itk.CudaImage[itk.Vector[itk.F, 3], 2]
    assert tuple(image.GetPixel((1, 2))) == tuple(array[2, 1])
    np.testing.assert_array_equal(np.asarray(image), array)
    image = icc.cuda_image_from_image(array, is_vector=True)  # straight from NumPy
    assert type(image) is itk.CudaImage[itk.Vector[itk.F, 3], 2]
    assert tuple(image.GetPixel((1, 2))) == tuple(array[2, 1])
    np.testing.assert_array_equal(np.asarray(image), array)


def test_itk_round_trip():
    source = itk.image_from_array(np.arange(60, dtype=np.float32).reshape(3, 4, 5))
    source.SetSpacing([0.5, 0.25, 2.0])
    source.SetOrigin([1.0, 2.0, 3.0])
    image = icc.cuda_image_from_image(source)
    assert tuple(image.GetSpacing()) == (0.5, 0.25, 2.0)
    assert tuple(image.GetOrigin()) == (1.0, 2.0, 3.0)
    # As in ITKCudaCommon: the CudaImage shares the itk.Image's pixel container.
    assert np.shares_memory(np.asarray(image), itk.array_view_from_image(source))
    del source
    np.testing.assert_array_equal(np.asarray(image), np.arange(60, dtype=np.float32).reshape(3, 4, 5))
    square = itk.CudaSquareImageFilter[type(image)].New()
    square.InPlaceOff()
    square.SetInput(image)
    square.Update()
    back = icc.image_from_cuda_image(square.GetOutput())
    assert type(back) is itk.Image[itk.F, 3]
    np.testing.assert_array_equal(itk.array_view_from_image(back), np.arange(60, dtype=np.float32).reshape(3, 4, 5) ** 2)
    assert tuple(back.GetSpacing()) == (0.5, 0.25, 2.0)
    assert tuple(back.GetOrigin()) == (1.0, 2.0, 3.0)
    assert not np.shares_memory(itk.array_view_from_image(back), np.asarray(square.GetOutput()))


def test_get_itk_type():
    assert icc.get_itk_type("<f4") == "F" and getattr(itk, icc.get_itk_type("<f4")) is itk.F
    assert icc.get_itk_type("|u1") == "UC"
    assert icc.get_itk_type("<i2") == "SS"
    assert itk.CudaCommon.get_itk_type("<f8") == "D"
    with pytest.raises(KeyError):  # as ITKCudaCommon 2.x's get_itk_type
        icc.get_itk_type("<c8")


# --- malformed array interfaces are rejected, naming the field

class FakeArray:
    def __init__(self, interface):
        self.__cuda_array_interface__ = interface


def interface(**changes):
    base = {"shape": (4, 5), "typestr": "<f4", "data": (0x7F0000000000, False), "version": 3, "strides": None}
    base.update(changes)
    return {k: v for k, v in base.items() if v is not KeyError}


@pytest.mark.parametrize("changes, field", [
    ({"shape": (4, -5)}, "shape"),
    ({"shape": [4, 5]}, "shape"),
    ({"shape": ()}, "shape"),
    ({"shape": (4, 0)}, "shape"),
    ({"shape": KeyError}, "shape"),
    ({"typestr": "<c8"}, "typestr"),
    ({"typestr": ">f4"}, "typestr"),
    ({"typestr": 4}, "typestr"),
    ({"data": (0x1000, True)}, "data"),
    ({"data": 1234}, "data"),
    ({"data": ("x", False)}, "data"),
    ({"version": 9}, "version"),
    ({"mask": object()}, "mask"),
    ({"strides": (4,)}, "strides"),
    ({"strides": (4, 20)}, "strides"),
    ({"stream": 0}, "stream"),
    ({"stream": "s"}, "stream"),
    ({"shape": (2, 3, 4, 5, 6)}, "dimension"),
])
def test_malformed_cuda_array_interface(changes, field):
    with pytest.raises((ValueError, TypeError), match=field):
        icc.cuda_image_from_cuda_array(FakeArray(interface(**changes)))


def test_not_an_array():
    with pytest.raises(TypeError, match="__cuda_array_interface__ or __dlpack__"):
        icc.cuda_image_from_cuda_array([1, 2, 3])
    with pytest.raises(TypeError, match="expected a dict"):
        icc.cuda_image_from_cuda_array(FakeArray([("shape", (1,))]))


def test_vector_needs_float32_and_wrapped_components():
    # 7 components: no module wraps them (RTK's adds 5).
    with pytest.raises(ValueError, match="vector pixels of 7"):
        icc.cuda_image_from_cuda_array(FakeArray(interface(shape=(3, 4, 7))), is_vector=True)
    with pytest.raises(ValueError, match="vector pixels of 3 x '<f8'"):
        icc.cuda_image_from_cuda_array(FakeArray(interface(shape=(3, 4, 3), typestr="<f8")), is_vector=True)


def test_fuzzed_interfaces_never_crash():
    rng = random.Random(20261129)
    values = [None, 0, 1, -1, 2**70, 3.5, "x", "<f4", "|u1", "<i8", (), (1,), (0, 2), (2, 3), (-1, 4), [2, 3],
              (1, True), (0x1000, False), (0x1000, True), {"a": 1}, object(), True]
    keys = ["shape", "typestr", "data", "version", "strides", "mask", "stream", "descr"]
    outcomes = 0
    for _ in range(4000):
        candidate = {key: rng.choice(values) for key in keys if rng.random() < 0.8}
        if rng.random() < 0.5:
            candidate.update(shape=(rng.randint(-2, 5), rng.randint(-2, 5)), typestr=rng.choice(["<f4", "|u1", "<u8"]),
                             data=(rng.randint(0, 2**48), rng.random() < 0.2), version=3)
        try:
            icc.cuda_image_from_cuda_array(FakeArray(candidate), keep_axes=rng.random() < 0.5,
                                           is_vector=rng.random() < 0.2)
        except (ValueError, TypeError, RuntimeError):
            outcomes += 1
    assert outcomes == 4000  # fake pointers are never accepted


# --- GPU: CuPy

def test_cupy_view_of_an_image_is_zero_copy(cupy):
    image = itk.CudaImage[itk.F, 3].New()
    image.SetRegions([7, 6, 5])
    image.Allocate()
    image.FillBuffer(2.0)
    view = cupy.asarray(image)
    assert view.shape == (5, 6, 7)
    assert view.data.ptr == int(image.GetCudaDataManager().GetConstGPUBufferPointer())
    assert bool(cupy.all(view == 2.0))
    view[4, 5, 6] = 11.0  # a write on the GPU ...
    assert image.GetPixel((6, 5, 4)) == 11.0  # ... is read back by the image
    image.SetPixel((0, 0, 0), -3.0)  # a CPU write ...
    image.UpdateBuffers()  # ... reaches the same device buffer
    assert float(view[0, 0, 0]) == -3.0


def test_a_view_outlives_a_non_const_access_through_a_graft(cupy):
    # In place, the filter grafts the image onto its output: both share one
    # device buffer, which a CPU write through the output would release.
    image = itk.CudaImage[itk.F, 3].New()
    image.SetRegions([16, 8, 4])
    image.Allocate()
    image.FillBuffer(2.0)
    view = cupy.asarray(image)
    square = itk.CudaSquareImageFilter[itk.CudaImage[itk.F, 3]].New()
    square.SetInput(image)
    square.InPlaceOn()
    square.Update()
    output = square.GetOutput()
    manager = output.GetCudaDataManager()
    assert int(manager.GetConstGPUBufferPointer()) == view.data.ptr
    assert manager.IsGPUBufferExported()
    manager.GetCPUBufferPointer()  # non-const CPU access: the release policy would free the buffer
    assert manager.GetGPUBufferSize() == 16 * 8 * 4 * 4
    assert float(view.sum()) == 4.0 * 16 * 8 * 4  # valid, and current
    output.SetPixel((15, 7, 3), 9.0)
    assert int(manager.GetConstGPUBufferPointer()) == view.data.ptr  # refreshed in place
    cupy.cuda.runtime.deviceSynchronize()
    assert float(view[3, 7, 15]) == 9.0


def test_dlpack_views_hold_the_buffer_until_the_consumer_lets_go(torch, collect):
    image = itk.CudaImage[itk.F, 3].New()
    image.SetRegions([16, 8, 4])
    image.Allocate()
    image.FillBuffer(1.0)
    manager = image.GetCudaDataManager()
    tensor = torch.from_dlpack(image)
    assert manager.IsGPUBufferExported()
    image.SetPixel((0, 0, 0), 5.0)  # a CPU write keeps the held buffer
    assert manager.GetGPUBufferSize() > 0
    assert int(manager.GetConstGPUBufferPointer()) == tensor.data_ptr()
    torch.cuda.synchronize()
    assert float(tensor[0, 0, 0]) == 5.0
    del tensor
    collect()
    assert not manager.IsGPUBufferExported()
    image.SetPixel((0, 0, 0), 6.0)  # now the release policy applies
    assert manager.GetGPUBufferSize() == 0


def test_const_cpu_access_read_only_is_an_opt_in():
    image = itk.CudaImage[itk.F, 2].New()
    manager = image.GetCudaDataManager()
    assert manager.GetConstCPUAccessReadOnly() is False
    manager.SetConstCPUAccessReadOnly(True)
    assert manager.GetConstCPUAccessReadOnly() is True
    assert manager.IsGPUBufferExported() is False


def test_cupy_view_keeps_the_buffer_after_the_image_is_deleted(cupy, collect):
    image = new_image(itk.F, (16, 8, 4), 2.0)
    view = cupy.asarray(image)
    pointer = view.data.ptr
    del image
    collect()
    cupy.full((4, 8, 16), -1, dtype=cupy.float32)  # would land in freed memory
    cupy.cuda.runtime.deviceSynchronize()
    assert view.data.ptr == pointer
    assert float(view.sum()) == 2.0 * 16 * 8 * 4
    view += 1.0
    assert bool(cupy.all(view == 3.0))


def test_cupy_view_keeps_the_buffer_after_the_image_is_reallocated(cupy, collect):
    image = new_image(itk.F, (16, 8, 4), 2.0)
    view = cupy.asarray(image)
    image.SetRegions([32, 16, 8])
    image.Allocate()
    image.FillBuffer(5.0)
    again = cupy.asarray(image)
    collect()
    cupy.full((4, 8, 16), -1, dtype=cupy.float32)
    cupy.cuda.runtime.deviceSynchronize()
    assert again.shape == (8, 16, 32) and bool(cupy.all(again == 5.0))
    assert float(view.sum()) == 2.0 * 16 * 8 * 4  # the old buffer, still valid


def test_torch_view_keeps_the_buffer_after_the_image_is_deleted_or_reallocated(torch, collect):
    image = new_image(itk.F, (16, 8, 4), 2.0)
    tensor = torch.from_dlpack(image)
    image.SetRegions([8, 8, 9])  # a new size: new storage, as ITK's Allocate() gives
    image.Allocate()
    image.FillBuffer(7.0)
    collect()
    torch.full((4, 8, 16), -1.0, device="cuda")
    torch.cuda.synchronize()
    assert float(tensor.sum()) == 2.0 * 16 * 8 * 4
    second = torch.as_tensor(image, device="cuda")  # __cuda_array_interface__
    del image
    collect()
    torch.full((9, 8, 8), -1.0, device="cuda")
    torch.cuda.synchronize()
    assert float(second.sum()) == 7.0 * 576
    assert float(tensor.sum()) == 2.0 * 16 * 8 * 4


def test_a_view_follows_the_image_through_a_same_size_allocate(torch):
    """Allocate() again at the same size keeps the buffer (ITK reuses its
    pixel container so): a view still shows the image's pixels."""
    image = new_image(itk.F, (16, 8, 4), 2.0)
    tensor = torch.from_dlpack(image)
    image.SetRegions([16, 8, 4])
    image.Allocate()
    image.FillBuffer(7.0)
    torch.as_tensor(image, device="cuda")  # uploads the new pixels
    torch.cuda.synchronize()
    assert float(tensor.sum()) == 7.0 * 512


def test_image_from_cupy_is_zero_copy_and_keeps_the_array_alive(cupy, collect):
    array = cupy.arange(4 * 5 * 6, dtype=cupy.float32).reshape(4, 5, 6)
    expected = cupy.asnumpy(array)
    pointer = array.data.ptr
    image = icc.cuda_image_from_cuda_array(array)
    assert image.GetLargestPossibleRegion().GetSize() == (6, 5, 4)
    assert int(image.GetCudaDataManager().GetConstGPUBufferPointer()) == pointer
    del array
    collect()
    cupy.get_default_memory_pool().free_all_blocks()
    cupy.full((4, 5, 6), -1, dtype=cupy.float32)  # would land in freed memory
    np.testing.assert_array_equal(np.asarray(image), expected)


def test_square_filter_on_a_cupy_array_writes_into_it(cupy):
    array = ((cupy.arange(16 * 32 * 24) % 17) - 8).astype(cupy.float32).reshape(16, 32, 24) / 2
    before = array.copy()
    image = icc.cuda_image_from_cuda_array(array)
    square = itk.CudaSquareImageFilter[type(image)].New()  # in place: on the array's memory
    square.SetInput(image)
    square.Update()
    cupy.cuda.Stream.null.synchronize()
    assert bool(cupy.all(array == before * before))
    assert square.GetOutput().GetTransferStatistics()["HostToDeviceCount"] == 0


@pytest.mark.parametrize("code, shape, is_vector", [
    ("VF3", (4, 5, 6, 3), True), ("VF2", (5, 6, 2), True), ("F", (2, 3, 4, 5), False), ("UC", (3, 4, 5, 6), False),
    ("SS", (6, 7), False)])
def test_cupy_round_trip_keeps_type_and_shape(cupy, code, shape, is_vector):
    dtype = {"VF3": cupy.float32, "VF2": cupy.float32, "F": cupy.float32, "UC": cupy.uint8, "SS": cupy.int16}[code]
    array = (cupy.arange(int(np.prod(shape))) % 100).astype(dtype).reshape(shape)
    image = icc.cuda_image_from_cuda_array(array, is_vector=is_vector)
    assert type(image) is itk.CudaImage[CODES[code], len(shape) - (1 if is_vector else 0)]
    again = cupy.asarray(image)
    assert again.shape == shape and again.dtype == array.dtype
    assert again.data.ptr == array.data.ptr
    assert bool(cupy.all(again == array))
    twice = icc.cuda_image_from_cuda_array(image)  # an image as the source keeps its type
    assert type(twice) is type(image)


def test_keep_axes_needs_fortran_order(cupy):
    array = cupy.asfortranarray(cupy.arange(24, dtype=cupy.float32).reshape(2, 3, 4))
    image = icc.cuda_image_from_cuda_array(array, keep_axes=True)
    assert image.GetLargestPossibleRegion().GetSize() == (2, 3, 4)
    assert image.GetPixel((1, 2, 3)) == float(array[1, 2, 3])
    with pytest.raises(ValueError, match="strides"):
        icc.cuda_image_from_cuda_array(cupy.arange(24, dtype=cupy.float32).reshape(2, 3, 4), keep_axes=True)
    with pytest.raises(ValueError, match="strides"):
        icc.cuda_image_from_cuda_array(cupy.arange(24, dtype=cupy.float32).reshape(4, 6)[:, ::2])


def test_host_pointer_is_not_device_memory(gpu):
    host = np.zeros((4, 4), dtype=np.float32)
    with pytest.raises(ValueError, match="data: .* is not CUDA device memory"):
        icc.cuda_image_from_cuda_array(FakeArray(interface(data=(host.ctypes.data, False))))


def test_producer_stream_is_waited_for(cupy):
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        array = cupy.ones((64, 256, 256), dtype=cupy.float32)
        for _ in range(20):
            array += 1.0  # queued on the producer's stream
        image = icc.cuda_image_from_cuda_array(array)  # CuPy reports its current stream
    square = itk.CudaSquareImageFilter[type(image)].New()
    square.InPlaceOff()
    square.SetInput(image)
    square.Update()
    assert bool(np.all(np.asarray(square.GetOutput()) == 441.0))


# --- GPU: PyTorch, through both protocols

def test_torch_from_dlpack_is_zero_copy(torch):
    image = itk.CudaImage[itk.F, 2].New()
    image.SetRegions([8, 4])
    image.Allocate()
    image.FillBuffer(1.5)
    tensor = torch.from_dlpack(image)
    assert tuple(tensor.shape) == (4, 8)
    assert tensor.data_ptr() == int(image.GetCudaDataManager().GetConstGPUBufferPointer())
    tensor.mul_(2)
    torch.cuda.synchronize()
    assert image.GetPixel((7, 3)) == 3.0


def test_image_from_torch_through_either_protocol(torch, collect):
    class DLPackOnly:
        def __init__(self, tensor):
            self.tensor = tensor

        def __dlpack__(self, **kwargs):
            return self.tensor.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.tensor.__dlpack_device__()

    for wrap in (lambda t: t, DLPackOnly):
        tensor = torch.arange(60, dtype=torch.int32, device="cuda").reshape(3, 4, 5)
        pointer = tensor.data_ptr()
        image = icc.cuda_image_from_cuda_array(wrap(tensor))
        assert type(image) is itk.CudaImage[itk.SI, 3]
        assert int(image.GetCudaDataManager().GetConstGPUBufferPointer()) == pointer
        del tensor
        collect()
        torch.cuda.empty_cache()
        torch.full((3, 4, 5), -1, dtype=torch.int32, device="cuda")
        np.testing.assert_array_equal(np.asarray(image), np.arange(60, dtype=np.int32).reshape(3, 4, 5))


def test_versioned_and_legacy_capsules(torch):
    image = itk.CudaImage[itk.D, 3].New()
    image.SetRegions([3, 4, 5])
    image.Allocate()
    image.FillBuffer(0.25)
    legacy = image.__dlpack__()
    versioned = image.__dlpack__(max_version=(1, 0))
    assert "dltensor" in repr(legacy) and "dltensor_versioned" not in repr(legacy)
    assert "dltensor_versioned" in repr(versioned)
    assert image.__dlpack_device__() == (2, torch.cuda.current_device())
    with pytest.raises(BufferError, match="copy=True"):
        image.__dlpack__(copy=True)
    with pytest.raises(BufferError, match="dl_device"):
        image.__dlpack__(dl_device=(1, 0))
    tensor = torch.from_dlpack(image)
    assert float(tensor.sum()) == 0.25 * 60


def test_consumer_stream_waits_for_the_image(torch):
    image = itk.CudaImage[itk.F, 3].New()
    image.SetRegions([256, 256, 64])
    image.Allocate()
    image.FillBuffer(3.0)
    square = itk.CudaSquareImageFilter[type(image)].New()
    square.SetInput(image)
    square.Update()  # the kernel may still run on the legacy stream
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        tensor = torch.from_dlpack(square.GetOutput())  # passes `stream`
        total = float(tensor.sum())
    assert total == 9.0 * 256 * 256 * 64


# --- GPU: JAX through DLPack

def test_jax_reads_an_image(jax):
    import jax.numpy as jnp

    image = itk.CudaImage[itk.F, 2].New()
    image.SetRegions([6, 4])
    image.Allocate()
    image.FillBuffer(2.0)
    image.SetPixel((5, 3), 7.0)
    array = jnp.from_dlpack(image)
    assert array.shape == (4, 6)
    assert float(array[3, 5]) == 7.0
    assert float(array.sum()) == 2.0 * 23 + 7.0


def test_image_from_jax_through_dlpack(jax):
    import jax.numpy as jnp

    class DLPackOnly:
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, **kwargs):
            return self.array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    array = jnp.arange(24, dtype=jnp.float32).reshape(4, 6) * 2
    try:
        image = icc.cuda_image_from_cuda_array(DLPackOnly(array))
    except ValueError as error:  # JAX arrays are immutable; a read-only capsule is refused, clearly
        assert "read-only" in str(error)
        return
    np.testing.assert_array_equal(np.asarray(image), np.arange(24, dtype=np.float32).reshape(4, 6) * 2)
