"""Accelera vs NumPy on the CPU, in one run: matmul and element-wise throughput as ratios.

    python bench/bench_numpy.py [--quick] [--markdown]

Ratios are NumPy time / Accelera time (> 1: Accelera is faster), each the best of several runs after a
warm-up (the small products' rows: the median of 101), each library timed after a pause that lets the
other's workers go to sleep. The interleaved rows time a product that follows the other library's product
with no pause, as code that mixes NumPy and Accelera does (the median of 7, of 51 for small products; Note
[Sharing NumPy's BLAS]); ACCELERA_CPU_BLAS=builtin shows them on Accelera's own OpenBLAS. The copy-bandwidth
row is the physical limit for the element-wise ops: an add reads two arrays and writes one, so it cannot
beat (3 x bytes) / bandwidth.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

import accelera as acc


QUIET_SECONDS = 0.25  # OpenBLAS's workers spin for about 0.1 s after a product (Note [Sharing NumPy's BLAS])


def timed_alone(fn, repeat: int) -> list[float]:
    """Seconds of ``repeat`` calls after a warm-up, the other library's workers asleep: each library timed
    alone."""
    time.sleep(QUIET_SECONDS)
    fn()  # warm-up: first-touch page faults, thread pools, caches
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def best_time(fn, repeat: int) -> float:
    return min(timed_alone(fn, repeat))


def interleaved_time(before, timed, repeat: int = 7) -> float:
    """Median time of `timed` run right after `before` (no pause between them)."""
    before()
    timed()
    times = []
    for _ in range(repeat):
        before()
        t0 = time.perf_counter()
        timed()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def cpu_name() -> str:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def median_time(fn, repeat: int) -> float:
    """For calls of microseconds, where the fastest of a few says little about the typical one."""
    times = timed_alone(fn, repeat)
    return sorted(times)[len(times) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []

    sizes = [512, 1024] if args.quick else [1024, 2048, 4096]
    for dtype in (np.float32, np.float64):
        for n in sizes:
            a = rng.standard_normal((n, n)).astype(dtype)
            b = rng.standard_normal((n, n)).astype(dtype)
            ta, tb = acc.asarray(a), acc.asarray(b)
            repeat = 3 if n >= 4096 else 5
            t_np = best_time(lambda: a @ b, repeat)
            t_acc = best_time(lambda: acc.matmul(ta, tb), repeat)
            gflop = 2 * n**3 / 1e9
            rows.append((f"matmul {n} {np.dtype(dtype).name}", f"{gflop / t_np:.1f} GFLOP/s",
                         f"{gflop / t_acc:.1f} GFLOP/s", t_np / t_acc))

    # Small products, where a call's fixed costs and waking threads weigh (Note [Small products on one thread]).
    for dtype in (np.float32, np.float64):
        for n in (64, 128, 256):
            a = rng.standard_normal((n, n)).astype(dtype)
            b = rng.standard_normal((n, n)).astype(dtype)
            ta, tb = acc.asarray(a), acc.asarray(b)
            t_np = median_time(lambda: a @ b, 101)
            t_acc = median_time(lambda: acc.matmul(ta, tb), 101)
            gflop = 2 * n**3 / 1e9
            rows.append((f"matmul {n} {np.dtype(dtype).name} (median)", f"{gflop / t_np:.1f} GFLOP/s",
                         f"{gflop / t_acc:.1f} GFLOP/s", t_np / t_acc))

    # Interleaved with NumPy: each library's product right after the other's, against NumPy right after NumPy.
    for n in [128] + sizes[:2]:
        a = rng.standard_normal((n, n)).astype(np.float32)
        b = rng.standard_normal((n, n)).astype(np.float32)
        ta, tb = acc.asarray(a), acc.asarray(b)
        gflop = 2 * n**3 / 1e9
        repeat = 51 if n < 512 else 7
        t_np_np = interleaved_time(lambda: a @ b, lambda: a @ b, repeat)
        t_np_acc = interleaved_time(lambda: a @ b, lambda: acc.matmul(ta, tb), repeat)
        t_acc_np = interleaved_time(lambda: acc.matmul(ta, tb), lambda: a @ b, repeat)
        rows.append((f"matmul {n} after np.matmul", f"{gflop / t_np_np:.1f} GFLOP/s", f"{gflop / t_np_acc:.1f} GFLOP/s",
                     t_np_np / t_np_acc))
        rows.append((f"np.matmul {n} after acc", f"{gflop / t_np_np:.1f} GFLOP/s", f"{gflop / t_acc_np:.1f} GFLOP/s",
                     t_np_np / t_acc_np))

    count = (1 << 22) if args.quick else (1 << 26)
    a = rng.standard_normal(count).astype(np.float32)
    b = rng.standard_normal(count).astype(np.float32)
    ta, tb = acc.asarray(a), acc.asarray(b)
    gib = 1 << 30
    for name, np_fn, acc_fn, arrays in (
        ("add", lambda: np.add(a, b), lambda: acc.add(ta, tb), 3),
        ("multiply", lambda: np.multiply(a, b), lambda: acc.multiply(ta, tb), 3),
        ("exp", lambda: np.exp(a), lambda: acc.exp(ta), 2),
    ):
        t_np = best_time(np_fn, 5)
        t_acc = best_time(acc_fn, 5)
        moved = arrays * a.nbytes / gib
        rows.append((f"{name} {count // (1 << 20)}M float32", f"{moved / t_np:.1f} GiB/s",
                     f"{moved / t_acc:.1f} GiB/s", t_np / t_acc))
    # The bandwidth limit: a copy reads one array and writes one.
    dst = np.empty_like(a)
    t_np = best_time(lambda: np.copyto(dst, a), 5)
    t_acc = best_time(lambda: ta.clone(), 5)
    rows.append((f"copy {count // (1 << 20)}M float32", f"{2 * a.nbytes / gib / t_np:.1f} GiB/s",
                 f"{2 * a.nbytes / gib / t_acc:.1f} GiB/s", t_np / t_acc))

    blas = acc.cpu_blas_info()
    threads = os.environ.get("ACCELERA_NUM_THREADS", os.environ.get("OMP_NUM_THREADS", str(os.cpu_count())))
    header = (f"machine: {cpu_name()}, {os.cpu_count()} cores, Accelera threads={threads}; "
              f"numpy {np.__version__}, accelera {acc.__version__}; CPU BLAS {blas['library'].rsplit('/', 1)[-1]}"
              + (f" (OpenBLAS {blas['core']} kernels for float64)" if blas["core"] and not blas["builtin"] else ""))
    if args.markdown:
        print(header + "\n")
        print("| case | NumPy | Accelera | ratio (NumPy time / Accelera time) |")
        print("| --- | ---: | ---: | ---: |")
        for case, np_rate, acc_rate, ratio in rows:
            print(f"| {case} | {np_rate} | {acc_rate} | {ratio:.2f}x |")
    else:
        print(header)
        print(f"{'case':<26}{'NumPy':>16}{'Accelera':>16}{'ratio':>9}")
        for case, np_rate, acc_rate, ratio in rows:
            print(f"{case:<26}{np_rate:>16}{acc_rate:>16}{ratio:>8.2f}x")


if __name__ == "__main__":
    main()
