"""One streamed matmul shared by several devices against the same matmul on one of them, in one run.

    python bench/bench_multi_device.py [--sizes 2048 4096] [--fraction 8] [--repeat 5] [--dtype float32]
                                       [--sets opencl:0 opencl:0,opencl:1 opencl:0,cpu]

Each set is a comma-separated device list for MatrixEngine(devices=...); the first set is the baseline
(ratio = its time / the set's time: above 1 is faster). Every engine gets a device budget of 1/fraction of A
and B, so every run streams. Runs are interleaved (set 1, set 2, ..., set 1, ...) and the median of
--repeat is reported with the spread (max - min) / median, and how the tiles were shared.

Without POCL_DEVICES in the environment this sets "pthread pthread", so PoCL offers opencl:0 and opencl:1.
Note that PoCL's devices are the host's own cores: two of them share the same cores, so on such a machine
the ideal ratio is 1.0 (sharing costs nothing), not 2.0. On a machine with two GPUs it is about 2.0.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("POCL_DEVICES", "pthread pthread")

import numpy as np  # noqa: E402

import accelera as ac  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    parser.add_argument("--fraction", type=float, default=8.0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    parser.add_argument("--sets", nargs="+", default=["opencl:0", "opencl:0,opencl:1", "opencl:0,cpu"])
    args = parser.parse_args()
    print(f"devices: {[d['device'] + ' (' + d['name'] + ')' for d in ac.devices()]}")
    for n in args.sizes:
        rng = np.random.default_rng(n)
        a = rng.uniform(-1, 1, (n, n)).astype(args.dtype)
        b = rng.uniform(-1, 1, (n, n)).astype(args.dtype)
        budget = int((a.nbytes + b.nbytes) / args.fraction)
        engines = [ac.MatrixEngine(devices=s.split(","), memory_budget=budget, enable_progress=False)
                   for s in args.sets]
        want = a[:64].astype(np.float64) @ b.astype(np.float64)
        for engine in engines:  # warm-up: kernels compiled, buffers cached; checked on the first rows
            c = np.asarray(engine.matmul(a, b))
            np.testing.assert_allclose(c[:64], want, rtol=0, atol=8 * n * 6e-8 * (1 if args.dtype == "float32" else 1e-8))
        times = [[] for _ in engines]
        shares = [None] * len(engines)
        for _ in range(args.repeat):
            for i, engine in enumerate(engines):
                start = time.perf_counter()
                engine.matmul(a, b)
                times[i].append(time.perf_counter() - start)
                shares[i] = ", ".join(f"{d['device']} {d['tiles']}" for d in engine.last_run["per_device"])
        base = statistics.median(times[0])
        flops = 2.0 * n ** 3
        print(f"\nn = {n} {args.dtype}, budget {budget / 1e6:.1f} MB per device, {engines[0].last_run['tiles']} tiles "
              f"on one device")
        for s, t, share in zip(args.sets, times, shares):
            med = statistics.median(t)
            spread = (max(t) - min(t)) / med
            print(f"  {s:<24} {med:8.3f} s  {flops / med / 1e9:7.1f} GFLOP/s  ratio {base / med:5.2f}  "
                  f"spread {100 * spread:4.1f}%  tiles: {share}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
