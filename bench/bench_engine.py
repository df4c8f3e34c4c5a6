"""Streamed (out-of-core) matmul against in-core matmul on the same device, in one run.

    python bench/bench_engine.py [--device opencl:0] [--sizes 1024 2048 4096 8192] [--fraction 8] [--plot F]

For each n: in core = operands resident on the device, one matmul (the device's own GEMM speed); streamed =
MatrixEngine.matmul of host operands with a device budget of 1/fraction of A and B. Efficiency = in-core time /
streamed time. Best of --repeat runs each.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import accelera as ac


def sync(t):
    t[(0,) * t.ndim].numpy()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default=None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048, 4096])
    parser.add_argument("--fraction", type=float, default=8.0)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--plot", default=None, help="write an efficiency-vs-size PNG here")
    args = parser.parse_args()
    device = args.device or ac.default_device()
    name = next(d["name"] for d in ac.devices() if d["device"] == device)
    print(f"device: {device} = {name}; budget = (A + B) / {args.fraction:g}\n")
    print("| n | in core GFLOP/s | streamed GFLOP/s | efficiency | tiles | plan | H->D MB | D->H MB |")
    print("| ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
    rng = np.random.default_rng(0)
    results = []
    for n in args.sizes:
        a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        flop = 2.0 * n**3
        ad, bd = ac.asarray(a, device=device), ac.asarray(b, device=device)
        sync(ad @ bd)  # warm-up: kernel builds
        in_core = min(_timed(lambda: sync(ad @ bd)) for _ in range(args.repeat))
        del ad, bd
        budget = int(2 * a.nbytes / args.fraction)
        engine = ac.MatrixEngine(device=device, memory_budget=budget, enable_progress=False)
        streamed = min(_timed(lambda: engine.matmul(a, b)) for _ in range(args.repeat))
        run = engine.last_run
        eff = in_core / streamed
        results.append((n, eff))
        tm, tn, tk = run["tile_shape"]
        print(f"| {n} | {flop / in_core / 1e9:.1f} | {flop / streamed / 1e9:.1f} | {eff:.2f} | {run['tiles']} | "
              f"{run['strategy']} {tm}x{tn}, K step {tk} | {run['bytes_host_to_device'] / 1e6:.0f} | "
              f"{run['bytes_device_to_host'] / 1e6:.0f} |", flush=True)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.plot([r[0] for r in results], [r[1] for r in results], marker="o")
        ax.axhline(1.0, color="gray", linestyle=":")
        ax.set_xscale("log", base=2)
        ax.set_ylim(0, 1.1)
        ax.set_xlabel("n (n x n float32 matrices)")
        ax.set_ylabel("streamed / in-core speed")
        ax.set_title(f"Out-of-core matmul on {device}, budget = (A+B)/{args.fraction:g}")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print(f"\nplot: {args.plot}")


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
