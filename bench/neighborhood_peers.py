# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""The GPU peers of CudaDiscreteGaussianImageFilter and CudaMeanImageFilter
on the same work: a σ = 2 (pixels) Gaussian of an n^3 float32 volume with
the same radius as ITK's kernel (5: ITK's GaussianOperator at its default
maximum error 0.01), and a radius-2 mean (a 5^3 box), nearest-pixel
boundaries (ITK's ZeroFluxNeumann), next to a device-to-device copy of the
volume; CUDA events, median of --repeats runs after 3 warm-up runs.

    python bench/neighborhood_peers.py [--size 512] [--repeats 10]

Peers: CuPy's cupyx.scipy.ndimage.gaussian_filter (truncate = radius / σ) and
uniform_filter (size 5); cuCIM's skimage-style gaussian when `cucim` imports
(else a row says why). CudaCommonBenchmark --kernels-only prints CudaCommon's
rows in the same call.
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
        from cucim.skimage.filters import gaussian
        cucim_ms = timed(cp, lambda: gaussian(volume, sigma, mode="nearest", truncate=truncate,
                                              preserve_range=True), args.repeats)
        row("cucim.skimage.filters.gaussian", cucim_ms)
    except Exception as error:  # noqa: BLE001 - any import failure is a row that says why
        print(f"cucim: not measured ({type(error).__name__}: {error})")
    uniform_ms = timed(cp, lambda: ndimage.uniform_filter(volume, 5, mode="nearest", output=out), args.repeats)
    row("cupyx.scipy.ndimage.uniform_filter (size 5)", uniform_ms)
    return 0


if __name__ == "__main__":
    sys.exit(main())
