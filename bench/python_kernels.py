# Copyright CudaCommon contributors. Licensed under the Apache License, Version 2.0.
"""PyTorch's element-wise and reduction kernels on the device, for the rows beside
CudaCommonBenchmark's kernel rows (run in the same call: scripts/gpu-suite.sh
--bench). CUDA events around each launch, medians of 20 runs after 3 warm-up
runs; bandwidth counts each array read or written once, and each row is also
given as a share of the device-to-device copy measured here.

    python3 bench/python_kernels.py [--sizes 256,512]
"""

import argparse
import statistics


def median_ms(torch, launch, setup=None, runs=20, warmups=3):
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    samples = []
    for run in range(warmups + runs):
        if setup is not None:
            setup()
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        if run >= warmups:
            samples.append(start.elapsed_time(stop))
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="256,512")
    arguments = parser.parse_args()
    import torch

    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    print(f"{'row':52} {'size':>5} {'GB/s':>9} {'of D2D':>7}")
    for n in (int(s) for s in arguments.sizes.split(",")):
        for dtype in (torch.float32, torch.float64, torch.uint8):
            x = (torch.rand((n, n, n), device="cuda") * 10).to(dtype)
            y = torch.empty_like(x)
            z = (torch.rand((n, n, n), device="cuda") * 10).to(dtype)
            nbytes = x.numel() * x.element_size()
            copy = 2 * nbytes / median_ms(torch, lambda: y.copy_(x)) / 1e6
            name = str(dtype).replace("torch.", "")
            rows = [
                (f"torch D2D copy {name} (y.copy_(x))", 2, lambda: y.copy_(x), None),
                (f"torch square {name} (torch.mul(x, x, out=y))", 2, lambda: torch.mul(x, x, out=y), None),
                (f"torch square {name} in place (y.mul_(y))", 2, lambda: y.mul_(y), lambda: y.copy_(x)),
                (f"torch abs {name} (torch.abs(x, out=y))", 2, lambda: torch.abs(x, out=y), None),
                (f"torch add {name} (torch.add(x, z, out=y))", 3, lambda: torch.add(x, z, out=y), None),
                (f"torch add {name} in place (y.add_(z))", 3, lambda: y.add_(z), lambda: y.copy_(x)),
            ]
            if dtype == torch.float32:
                flat_x, flat_z = x.view(-1), z.view(-1)
                rows += [
                    (f"torch sum {name} (x.sum())", 1, lambda: x.sum(), None),
                    (f"torch sum {name} in float64 (x.sum(dtype=torch.float64))", 1,
                     lambda: x.sum(dtype=torch.float64), None),
                    (f"torch extrema {name} (torch.aminmax(x))", 1, lambda: torch.aminmax(x), None),
                    (f"torch extrema positions {name} (argmin, argmax)", 1,
                     lambda: (torch.argmin(x), torch.argmax(x)), None),
                    (f"torch dot {name} (torch.dot(x, z))", 2, lambda: torch.dot(flat_x, flat_z), None),
                ]
                # The region rows of CudaCommonBenchmark --kernels-only (a border of
                # n/32 pixels, the inner cube of m = n - 2b): bandwidth counted as
                # there, so the times compare directly.
                b = n // 32
                m = n - 2 * b
                inner = torch.rand((m, m, m), device="cuda")
                small = torch.empty_like(inner)
                box = (slice(b, n - b),) * 3
                fraction = (m / n) ** 3
                rows += [
                    (f"torch crop {name} (small.copy_(x[b:-b, b:-b, b:-b]))", 2 * fraction,
                     lambda: small.copy_(x[box]), None),
                    (f"torch constant pad {name} (F.pad(inner, (b,) * 6, value=0.5))", 1 + fraction,
                     lambda: torch.nn.functional.pad(inner, (b,) * 6, value=0.5), None),
                    (f"torch paste {name} (y.copy_(x); y[box].copy_(inner))", 2,
                     lambda: (y.copy_(x), y[box].copy_(inner)), None),
                ]
            if dtype == torch.uint8:
                rows += [
                    (f"torch sum {name} (x.sum(), int64)", 1, lambda: x.sum(), None),
                    (f"torch extrema {name} (torch.aminmax(x))", 1, lambda: torch.aminmax(x), None),
                ]
            for label, arrays, launch, setup in rows:
                bandwidth = arrays * nbytes / median_ms(torch, launch, setup) / 1e6
                print(f"{label:52} {n:>5} {bandwidth:9.1f} {100 * bandwidth / copy:6.1f}%")
            del x, y, z
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
