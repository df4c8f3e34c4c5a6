"""Every device in one run: matmul, element-wise throughput and host<->device copies, next to NumPy.

    python bench/bench_devices.py [--n 2048] [--elements 16777216]

Rates are best-of-N after a warm-up (the first call on an OpenCL device builds its kernels).
"""

from __future__ import annotations

import argparse

import numpy as np

import accelera as acc
from bench_numpy import best_time  # same folder: run as `python bench/bench_devices.py`


def best(fn, repeat=5):
    return best_time(fn, repeat)


def sync(t):
    # Results are complete once read back; a 1-element read forces the device queue to drain.
    t[(0,) * t.ndim].numpy() if t.ndim else t.numpy()
    return t


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2048)
    parser.add_argument("--elements", type=int, default=1 << 24)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    a = rng.standard_normal((args.n, args.n)).astype(np.float32)
    x = rng.standard_normal(args.elements).astype(np.float32)
    y = rng.standard_normal(args.elements).astype(np.float32)
    gflop = 2 * args.n**3 / 1e9
    gib = 1 << 30
    print(f"{'device':<12}{'matmul f32 GFLOP/s':>20}{'add GiB/s':>12}{'exp GiB/s':>12}{'H->D GiB/s':>12}{'D->H GiB/s':>12}")
    print(f"{'numpy':<12}{gflop / best(lambda: a @ a):>20.1f}{3 * x.nbytes / gib / best(lambda: x + y):>12.1f}"
          f"{2 * x.nbytes / gib / best(lambda: np.exp(x)):>12.1f}{'-':>12}{'-':>12}")
    for info in acc.devices():
        dev = info["device"]
        ta, tx, ty = acc.asarray(a, device=dev), acc.asarray(x, device=dev), acc.asarray(y, device=dev)
        mm = best(lambda: sync(ta @ ta), 3)
        add = best(lambda: sync(tx + ty))
        ex = best(lambda: sync(acc.exp(tx)))
        h2d = best(lambda: sync(acc.asarray(x).to(dev))) if dev != "cpu" else float("nan")
        d2h = best(lambda: tx.numpy() if dev == "cpu" else tx.to("cpu")) if dev != "cpu" else float("nan")
        print(f"{dev:<12}{gflop / mm:>20.1f}{3 * x.nbytes / gib / add:>12.1f}{2 * x.nbytes / gib / ex:>12.1f}"
              f"{x.nbytes / gib / h2d:>12.1f}{x.nbytes / gib / d2h:>12.1f}")
    print("device names:", ", ".join(f"{d['device']} = {d['name']}" for d in acc.devices()))


if __name__ == "__main__":
    main()
