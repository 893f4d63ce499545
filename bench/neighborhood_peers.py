# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""The GPU peers of CudaDiscreteGaussianImageFilter and CudaMeanImageFilter
on the same work: a σ = 2 (pixels) Gaussian of an n^3 float32 volume with
the same radius as ITK's kernel (5: ITK's GaussianOperator at its default
maximum error 0.01), and a radius-2 mean (a 5^3 box), nearest-pixel
boundaries (ITK's ZeroFluxNeumann), next to a device-to-device copy of the
volume; CUDA events, median of --repeats runs after 3 warm-up runs.

    python bench/neighborhood_peers.py [--size 512] [--repeats 10]

Peers: CuPy's cupyx.scipy.ndimage.gaussian_filter (truncate = radius / σ) and
uniform_filter (size 5); when `cucim` imports (else a line says why), cuCIM's
skimage-style gaussian and its vendored ndimage gaussian_filter/uniform_filter,
default algorithm (elementwise for 3-D) and algorithm="shared_memory"
(bench/cucim-wheels.sh brings cuCIM to a machine without internet).
The one-pass derivative stencils: CuPy's laplace (7 points, nearest edges) and
generic_gradient_magnitude with central differences (correlate1d, one pass
per axis and a sum), against one D2D copy (8 B/voxel read and written).
CudaCommonBenchmark --kernels-only prints CudaCommon's rows in the same call.
"""

import argparse
import statistics
import sys


def timed(cp, function, repeats):
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(3):
        function()
    runs = []
    for _ in range(repeats):
        start.record()
        function()
        stop.record()
        stop.synchronize()
        runs.append(cp.cuda.get_elapsed_time(start, stop))
    return statistics.median(runs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    import cupy as cp
    import cupyx.scipy.ndimage as ndimage

    n = args.size
    sigma, radius = 2.0, 5
    volume = cp.random.default_rng(21).random((n, n, n), dtype=cp.float32) * 2 - 1
    out = cp.empty_like(volume)
    copy_ms = timed(cp, lambda: cp.copyto(out, volume), args.repeats)
    voxels = n**3
    print(f"device-to-device copy {n}^3 float32: {copy_ms:.3f} ms, {2 * 4 * voxels / copy_ms / 1e6:.1f} GB/s")

    def row(name, ms):
        print(f"{name}: {ms:.3f} ms, {24 * voxels / ms / 1e6:.1f} GB/s counted at 24 B/voxel, "
              f"{ms / (3 * copy_ms):.2f}x the time of three D2D copies (the floor)")

    truncate = radius / sigma
    cupy_ms = timed(cp, lambda: ndimage.gaussian_filter(volume, sigma, mode="nearest", truncate=truncate,
                                                        output=out), args.repeats)
    row("cupyx.scipy.ndimage.gaussian_filter", cupy_ms)
    reference = ndimage.gaussian_filter(volume.astype(cp.float64), sigma, mode="nearest", truncate=truncate)
    print(f"  its largest difference from float64 sums: {float(cp.abs(out - reference).max()):.2e}")
    try:
        import cucim
        from cucim.skimage._vendored import ndimage as cucim_ndimage
        from cucim.skimage.filters import gaussian
    except Exception as error:  # noqa: BLE001 - any import failure is a line that says why
        cucim = None
        print(f"cucim: not measured ({type(error).__name__}: {error})")
    if cucim is not None:
        cucim_ms = timed(cp, lambda: gaussian(volume, sigma, mode="nearest", truncate=truncate,
                                              preserve_range=True, out=out), args.repeats)
        row(f"cucim.skimage.filters.gaussian (cuCIM {cucim.__version__})", cucim_ms)
        print(f"  its largest difference from float64 sums: {float(cp.abs(out - reference).max()):.2e}")
        cucim_ms = timed(cp, lambda: cucim_ndimage.gaussian_filter(
            volume, sigma, mode="nearest", truncate=truncate, output=out, algorithm="shared_memory"), args.repeats)
        row('cucim.skimage._vendored.ndimage.gaussian_filter (algorithm="shared_memory")', cucim_ms)
        print(f"  its largest difference from float64 sums: {float(cp.abs(out - reference).max()):.2e}")
    uniform_ms = timed(cp, lambda: ndimage.uniform_filter(volume, 5, mode="nearest", output=out), args.repeats)
    row("cupyx.scipy.ndimage.uniform_filter (size 5)", uniform_ms)
    if cucim is not None:
        uniform_reference = ndimage.uniform_filter(volume.astype(cp.float64), 5, mode="nearest")
        for algorithm in (None, "shared_memory"):
            cucim_ms = timed(cp, lambda a=algorithm: cucim_ndimage.uniform_filter(
                volume, 5, mode="nearest", output=out, algorithm=a), args.repeats)
            row(f"cucim.skimage._vendored.ndimage.uniform_filter (size 5, algorithm={algorithm!r})", cucim_ms)
            print(f"  its largest difference from float64 sums: "
                  f"{float(cp.abs(out - uniform_reference).max()):.2e}")

    def one_pass(name, ms):
        print(f"{name}: {ms:.3f} ms, {8 * voxels / ms / 1e6:.1f} GB/s counted at 8 B/voxel, "
              f"{ms / copy_ms:.2f}x the time of one D2D copy (the floor)")

    one_pass("cupyx.scipy.ndimage.laplace", timed(cp, lambda: ndimage.laplace(volume, output=out, mode="nearest"),
                                                   args.repeats))
    central = cp.asarray([-0.5, 0.0, 0.5], dtype=cp.float32)

    def derivative(values, axis, output, mode, cval):
        return ndimage.correlate1d(values, central, axis, output, mode, cval)

    one_pass("cupyx.scipy.ndimage.generic_gradient_magnitude (central differences)",
             timed(cp, lambda: ndimage.generic_gradient_magnitude(volume, derivative, output=out, mode="nearest"),
                   args.repeats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
