"""What NumPy's BLAS threads cost a device that computes on the CPU's own cores.

Note [Spinning BLAS workers]
After a product large enough to run on several threads, the workers of NumPy's BLAS do not sleep at once:
OpenBLAS's spin for 2^28 cycles (about 0.15 s here), MKL's for its block time (0.2 s by default). A device
that computes on the same cores (Accelera's CPU kernels, PoCL) shares them with the spinners for that long,
so a call the model keeps on NumPy can cost the device calls after it more than it saved: in
bench_offload.py on the ``cpu`` target, device calls right after NumPy's 200 x 30 Gram matrix ran a median
34-46 ms slower than the same calls under always-device. Nothing in the process may shorten NumPy's spin
(its BLAS reads the setting once, at load), so the cost model prices it: a CPU-side call whose products
reach the size at which NumPy's BLAS goes parallel is charged ``penalty_s``, measured here once per machine
as the time device work loses when it runs through the spin window right after such a product instead of
on quiet cores. The sizes are found by experiment, not taken from a library's source (OpenBLAS's limits
differ between versions and builds): a product is parallel when, in a short sleep right after it, threads
other than the caller burn CPU. Devices with their own processors pay nothing, and neither does a BLAS
whose threads do not spin.

The charge is for a new window. A product that finishes while the workers still spin from an earlier one only
extends their window, by the time since that one woke them, so it is charged that share of the penalty.
Charged in full to every such call, the penalty sent every small product to PoCL on a 2-vCPU Zen 5 VM (a
96 x 96 product took 0.35 ms there against 0.04 ms on NumPy, a 384 x 384 one 9 ms against 1): over eight
interleaved rounds of bench_offload.py, its twelve 384 x 384 products took 108 ms a run charged in full, 43 ms
charged the share, 16 ms with no spin priced.

A bucket's first call runs on the CPU to be traced whatever it costs (Note [Tracing a call]); for such a
device its products that would wake NumPy's workers run on Accelera's CPU kernels instead, whose BLAS
threads sleep within half a millisecond (Note [OpenBLAS thread timeout]). Run by NumPy, the three traced
calls of bench_offload.py with such products (of 1024 and 384 on a side, a 200 x 30 Gram matrix) cost the
device calls after them 0.15-0.3 s a run, enough for the calibrated policy to lose to always-device.
"""

from __future__ import annotations

import logging
import math
import statistics
import time
from dataclasses import dataclass

import numpy as np


_log = logging.getLogger("accelera.offload")

WINDOW_S = 0.03  # how long a probe watches the other threads
BUSY_CORES = 0.4  # other threads' CPU per second of wall time above which they count as running
QUIET_FOR_S = 1.5  # the longest wait for the other threads to fall quiet
PENALTY_ROUNDS = 7  # single rounds on PoCL ranged over 0-74 ms here (median 22)


@dataclass
class Spin:
    """NumPy's BLAS threads as a device on the CPU's cores sees them (all zero or infinite: no cost)."""

    duration_s: float = 0.0  # how long the workers spin after a parallel product
    penalty_s: float = 0.0  # what device work loses, running through that window
    gemm_from_flops: float = math.inf  # the smallest matrix-matrix product (2mnk FLOPs) run in parallel
    gemv_from_flops: float = math.inf  # the smallest matrix-vector product (2mn FLOPs) run in parallel

    def wakes_workers(self, op) -> bool:
        """Whether NumPy runs ``op`` (a trace's Op) on several BLAS threads."""
        if op.kind == "gemm":
            return self.product_wakes_workers(op.flops, op.vector)
        return op.kind == "factorisation" and op.flops >= self.gemm_from_flops

    def product_wakes_workers(self, flops: float, vector: bool) -> bool:
        return flops >= (self.gemv_from_flops if vector else self.gemm_from_flops)

    def window_share(self, now: float, spinning_until: float) -> float:
        """The share of a whole spin window that a parallel product finishing about ``now`` would add, when the
        workers already spin until ``spinning_until`` (Note [Spinning BLAS workers]): it only extends their
        window, so only the extension costs the device."""
        if self.duration_s <= 0:
            return 1.0
        return min(1.0, max(0.0, (now + self.duration_s - spinning_until) / self.duration_s))

    def valid(self) -> bool:
        return (self.duration_s >= 0 and self.penalty_s >= 0 and self.gemm_from_flops > 0
                and self.gemv_from_flops > 0)


def _other_threads_busy(window_s: float = WINDOW_S) -> float:
    """Cores' worth of CPU the process's other threads used over a sleep of ``window_s``."""
    process, own, wall = time.process_time(), time.thread_time(), time.perf_counter()
    time.sleep(window_s)
    others = (time.process_time() - process) - (time.thread_time() - own)
    return others / (time.perf_counter() - wall)


def _wait_quiet() -> float:
    """Sleeps until the other threads are idle; returns the seconds waited (inf: they never were)."""
    start = time.perf_counter()
    while _other_threads_busy(0.02) > BUSY_CORES:
        if time.perf_counter() - start > QUIET_FOR_S:
            return math.inf
    return time.perf_counter() - start


def _parallel(product) -> bool:
    _wait_quiet()
    product()
    return _other_threads_busy() > BUSY_CORES


def parallel_in_most(product, probes: int = 3) -> bool:
    """Whether most of ``probes`` runs of ``product`` leave other threads busy. One probe can miss the spin
    when the hypervisor has not scheduled the other vCPU in its window (seen on a 2-vCPU VM)."""
    return sum(_parallel(product) for _ in range(probes)) > probes // 2


def _smallest_parallel(smallest: int, largest: int, product) -> int | None:
    """The smallest size in [smallest, largest] whose product runs in parallel, to 3%, by bisection (larger
    products never run on fewer threads); None when even the largest runs on one."""
    if not _parallel(lambda: product(largest)):
        return None
    low, high = smallest - 1, largest  # high is parallel; low is not (or below the range)
    while high - low > max(1, high // 32):
        middle = (low + high) // 2
        if _parallel(lambda: product(middle)):
            high = middle
        else:
            low = middle
    return high


def _penalty(device: str, duration_s: float, parallel_product) -> float:
    """Median over rounds of (device work right after a parallel product) - (the same on quiet cores). The
    work is what a decorated call does, repeated for 1.2x the spin (whose end is known to a 20 ms window):
    a 64 MiB NumPy array to the device, an addition there, the result back as a NumPy array. Copies run on
    the calling thread, which the spinners leave alone, so a device that must copy loses less than its
    kernels alone would: PoCL 22 ms a round here against 60 for its additions on arrays it held."""
    import accelera as acc

    dtype = np.float64 if acc.supports(device, "add", "float64") else np.float32
    host = np.ones(1 << 23, dtype)

    def run(times: int) -> float:
        start = time.perf_counter()
        for _ in range(times):
            on_device = acc.asarray(host, device=device)
            np.asarray(acc.add(on_device, on_device))
        return time.perf_counter() - start

    run(2)
    _wait_quiet()
    times = max(1, round(1.2 * duration_s / run(3) * 3))
    losses = []
    for _ in range(PENALTY_ROUNDS):
        _wait_quiet()
        parallel_product()
        after = run(times)
        _wait_quiet()
        losses.append(after - run(times))
    return max(0.0, statistics.median(losses))


def measure(device: str, shares_cores: bool) -> Spin:
    """NumPy's BLAS spin as ``device`` sees it (Note [Spinning BLAS workers])."""
    if not shares_cores:
        return Spin()
    if math.isinf(_wait_quiet()):
        _log.warning("offload calibration: other threads of this process keep the CPU busy, so NumPy's BLAS "
                     "spin cannot be measured; it is priced at 0")
        return Spin()
    square = np.ones((512, 512))
    if not parallel_in_most(lambda: square @ square):
        return Spin()  # NumPy's BLAS runs on one thread, or its workers sleep at once
    _wait_quiet()
    square @ square
    duration = _wait_quiet()  # from the product's end until the workers sleep
    matrices = {}

    def gemm(n: int):
        m = matrices.setdefault(("gemm", n), np.ones((n, n)))
        m @ m

    def gemv(rows: int):
        m = matrices.setdefault(("gemv", rows), np.ones((rows, 64)))
        m @ m[0]

    n = _smallest_parallel(16, 512, gemm)  # squares, 16 .. 512
    rows = _smallest_parallel(64, 1 << 16, gemv)  # 64 .. 65536 rows of 64
    spin = Spin(duration, 0.0, 2.0 * n ** 3 if n else math.inf, 2.0 * rows * 64 if rows else math.inf)
    spin.penalty_s = _penalty(device, duration, lambda: square @ square)
    return spin
