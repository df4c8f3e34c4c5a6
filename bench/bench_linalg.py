"""accelera.linalg against numpy.linalg on the CPU, in one run: many small matrices (the batch loop) and one
large one (LAPACK's own threads), plus vecdot as multiply+sum against vecdot as a batched matmul.

    python bench/bench_linalg.py [--quick] [--markdown] [--repeat N]

Each row gives the median of --repeat timings of NumPy and of Accelera, taken interleaved (NumPy, Accelera,
NumPy, ...) after a warm-up, and their ratio NumPy / Accelera (> 1: Accelera is faster). Inputs are float64
NumPy arrays already converted to cpu tensors; results are not converted back (DLPack would be zero-copy).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import accelera as acc
from accelera import linalg as la


def interleaved_medians(np_fn, acc_fn, repeat: int) -> tuple[float, float]:
    np_fn()
    acc_fn()
    np_times, acc_times = [], []
    for _ in range(repeat):
        for fn, times in ((np_fn, np_times), (acc_fn, acc_times)):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    return statistics.median(np_times), statistics.median(acc_times)


def cases(quick: bool):
    rng = np.random.default_rng(0)
    batch = 1000 if quick else 10000
    big = 512 if quick else 2048

    small = rng.standard_normal((batch, 4, 4)) + 4 * np.eye(4)
    small_b = rng.standard_normal((batch, 4, 1))
    small_spd = small @ np.swapaxes(small, -1, -2)
    large = rng.standard_normal((big, big)) + np.sqrt(big) * np.eye(big)
    large_b = rng.standard_normal((big, 1))
    large_sym = large + large.T
    vx, vy = rng.standard_normal((100000, 16)), rng.standard_normal((100000, 16))

    t = {name: acc.asarray(v) for name, v in dict(small=small, small_b=small_b, small_spd=small_spd, large=large,
                                                   large_b=large_b, large_sym=large_sym, vx=vx, vy=vy).items()}
    yield f"inv, {batch} x (4, 4)", lambda: np.linalg.inv(small), lambda: la.inv(t["small"])
    yield (f"solve, {batch} x (4, 4) @ x = (4, 1)", lambda: np.linalg.solve(small, small_b),
           lambda: la.solve(t["small"], t["small_b"]))
    yield f"det, {batch} x (4, 4)", lambda: np.linalg.det(small), lambda: la.det(t["small"])
    yield f"cholesky, {batch} x (4, 4)", lambda: np.linalg.cholesky(small_spd), lambda: la.cholesky(t["small_spd"])
    yield f"eigh, {batch} x (4, 4)", lambda: np.linalg.eigh(small_spd), lambda: la.eigh(t["small_spd"])
    yield (f"solve, ({big}, {big}) @ x = ({big}, 1)", lambda: np.linalg.solve(large, large_b),
           lambda: la.solve(t["large"], t["large_b"]))
    yield f"inv, ({big}, {big})", lambda: np.linalg.inv(large), lambda: la.inv(t["large"])
    yield f"eigh, ({big}, {big})", lambda: np.linalg.eigh(large_sym), lambda: la.eigh(t["large_sym"])
    yield (f"vecdot (multiply + sum), (100000, 16)", lambda: np.sum(vx * vy, axis=-1),
           lambda: acc.vecdot(t["vx"], t["vy"]))
    yield (f"vecdot as batched matmul, (100000, 16)", lambda: np.sum(vx * vy, axis=-1),
           lambda: acc.matmul(t["vx"][:, None, :], t["vy"][:, :, None]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--repeat", type=int, default=7, help="timings per side (default 7)")
    args = parser.parse_args()
    rows = []
    for name, np_fn, acc_fn in cases(args.quick):
        t_np, t_acc = interleaved_medians(np_fn, acc_fn, args.repeat)
        rows.append((name, t_np, t_acc, t_np / t_acc))
    if args.markdown:
        print("| case | NumPy (ms) | Accelera (ms) | NumPy / Accelera |")
        print("| --- | ---: | ---: | ---: |")
        for name, t_np, t_acc, ratio in rows:
            print(f"| {name} | {t_np * 1e3:.2f} | {t_acc * 1e3:.2f} | {ratio:.2f} |")
    else:
        for name, t_np, t_acc, ratio in rows:
            print(f"{name:45s} numpy {t_np * 1e3:9.2f} ms  accelera {t_acc * 1e3:9.2f} ms  ratio {ratio:5.2f}")


if __name__ == "__main__":
    main()
