# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""Hand-off costs between itk.CudaImage and CuPy / PyTorch, next to the same
hand-offs between CuPy and PyTorch, measured in one process.

    python bench/python_handoff.py [--size 64] [--repeats 7] [--calls 2000]

CudaCommon's module is ITK's wrapping of it (itk.CudaCommonPython, loaded by
`import itk`: pip install ., or scripts/test-wrapitk.sh's build).

Each row is the host time of one call (time.perf_counter_ns over --calls
calls, median of --repeats runs; the calls queue no GPU work, so no CUDA
event could see them), with the range of the runs. The 'first' rows are one
call each in this fresh process, on a fresh image: they include the first
upload of the image to the GPU (CuPy and PyTorch have made their first CUDA
call before).
"""

import argparse
import statistics
import sys
import time


def per_call(function, calls, repeats):
    """Median and range over `repeats` runs of the time per call (µs)."""
    runs = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        for _ in range(calls):
            function()
        runs.append((time.perf_counter_ns() - start) / calls / 1e3)
    return statistics.median(runs), min(runs), max(runs)


def once(function):
    start = time.perf_counter_ns()
    result = function()
    return (time.perf_counter_ns() - start) / 1e3, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=64, help="edge of the float32 cube (default 64)")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()

    t0 = time.perf_counter_ns()
    import itk

    itk.Image  # noqa: B018  (ITK's lazy loading: the module of itk.Image)
    t1 = time.perf_counter_ns()
    itk.CudaImage  # noqa: B018  (the module of itk.CudaImage)
    version = f"CudaCommon {itk.CudaCommon.__version__}"
    t2 = time.perf_counter_ns()
    itk.CudaSquareImageFilter  # noqa: B018  (the CUDA filters: a module of their own)
    t3 = time.perf_counter_ns()
    import cupy
    import torch

    # The consumers' own first CUDA use is not ours to measure: done here.
    torch.ones(1, device="cuda")
    cupy.ones(1)
    cupy.cuda.Device().synchronize()

    n = args.size
    first = []
    image = itk.CudaImage[itk.F, 3].New()
    image.SetRegions([n, n, n])
    image.Allocate()
    image.FillBuffer(1.0)
    first.append(("first __cuda_array_interface__ read (allocates and uploads)",
                  once(lambda: image.__cuda_array_interface__)[0]))
    fresh = itk.CudaImage[itk.F, 3].New()
    fresh.SetRegions([n, n, n])
    fresh.Allocate()
    fresh.FillBuffer(1.0)
    first.append(("first torch.from_dlpack(image) (allocates and uploads)",
                  once(lambda: torch.from_dlpack(fresh))[0]))
    array = cupy.ones((n, n, n), dtype=cupy.float32)
    tensor = torch.ones((n, n, n), dtype=torch.float32, device="cuda")
    first.append(("first itk.cuda_image_from_cuda_array(cupy array)",
                  once(lambda: itk.cuda_image_from_cuda_array(array))[0]))
    first.append(("first itk.cuda_image_from_cuda_array(torch tensor)",
                  once(lambda: itk.cuda_image_from_cuda_array(tensor))[0]))
    cupy.cuda.Device().synchronize()

    rows = [
        ("image.__cuda_array_interface__", lambda: image.__cuda_array_interface__),
        ("cupy.asarray(image)", lambda: cupy.asarray(image)),
        ("torch.as_tensor(image, device='cuda')", lambda: torch.as_tensor(image, device="cuda")),
        ("torch.from_dlpack(image)", lambda: torch.from_dlpack(image)),
        ("cupy.from_dlpack(image)", lambda: cupy.from_dlpack(image)),
        # The producer's share of torch.from_dlpack: the two calls it makes on
        # the object, with its arguments (the capsule is dropped unconsumed).
        ("producer side: image.__dlpack_device__() + image.__dlpack__(stream=1, max_version=(1, 0))",
         lambda: (image.__dlpack_device__(), image.__dlpack__(stream=1, max_version=(1, 0)))),
        ("itk.cuda_image_from_cuda_array(cupy array)", lambda: itk.cuda_image_from_cuda_array(array)),
        ("itk.cuda_image_from_cuda_array(torch tensor)", lambda: itk.cuda_image_from_cuda_array(tensor)),
        ("reference: cupy_array.__cuda_array_interface__", lambda: array.__cuda_array_interface__),
        ("reference: torch_tensor.__cuda_array_interface__", lambda: tensor.__cuda_array_interface__),
        ("reference: torch.as_tensor(cupy array, device='cuda')", lambda: torch.as_tensor(array, device="cuda")),
        ("reference: torch.from_dlpack(cupy array)", lambda: torch.from_dlpack(array)),
        ("reference: producer side, the same two calls on the cupy array",
         lambda: (array.__dlpack_device__(), array.__dlpack__(stream=1, max_version=(1, 0)))),
        ("reference: torch.cuda.current_stream('cuda:0') (a step of torch.from_dlpack)",
         lambda: torch.cuda.current_stream("cuda:0")),
        ("reference: cupy.from_dlpack(torch tensor)", lambda: cupy.from_dlpack(tensor)),
        ("reference: cupy.asarray(torch tensor)", lambda: cupy.asarray(tensor)),
    ]
    print(f"# python {sys.version.split()[0]}, itk {itk.Version.GetITKVersion()}, {version}, "
          f"cupy {cupy.__version__}, torch {torch.__version__}, {torch.cuda.get_device_name()}")
    print(f"# {n}^3 float32; {args.calls} calls x {args.repeats} runs; import itk and load itk.Image "
          f"{(t1 - t0) / 1e6:.0f} ms, then load itk.CudaImage "
          f"{(t2 - t1) / 1e6:.0f} ms, then the CUDA filters (itk.CudaSquareImageFilter) "
          f"{(t3 - t2) / 1e6:.0f} ms")
    print("| hand-off | µs per call, median | range |")
    print("|---|---:|---|")
    for name, function in rows:
        median, low, high = per_call(function, args.calls, args.repeats)
        print(f"| {name} | {median:.2f} | {low:.2f}–{high:.2f} |")
    for name, microseconds in first:
        print(f"| {name} | {microseconds:.1f} | one call |")


if __name__ == "__main__":
    main()
