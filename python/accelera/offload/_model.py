"""The cost model: where a decorated call runs, from calibrated rates and the history of earlier calls.

Note [Offload decisions]
Calls are grouped into buckets: the function, the dtypes and places (host or device) of its arrays, and their
total size to a quarter of an octave. A function's first call runs on the CPU, traced (Note [Tracing a call]);
its trace, scaled to their sizes, also serves the function's later buckets. The trace gives a roofline price
on either target: per op, the larger of FLOPs over the target's GEMM rate and bytes over its bandwidth, plus
its fixed cost (dispatch, launch), plus for NumPy the first touch of a large result's fresh pages. Transfers
are priced by the link's alpha-beta model, and only for data that must move: arrays already on the device cost
nothing to use there, and a result the caller keeps there is not copied back. The traced call itself is no
sample (tracing slows NumPy down, and a first call pays for cold caches). Until a target has 10 samples in a
bucket, its prediction is the roofline scaled by the median measured/predicted ratio seen so far; from 10
samples on, it is the median of the samples (scaled to the call's size) after dropping those more than 3
robust deviations from their median, as StarPU's history models drop outliers. A bucket without samples of a
target scales that target's roofline by the median measured/roofline ratio of its recent calls in every
bucket, so a device that runs slower than its rates promise (PoCL on the CPU's own cores, for one) is learnt
once, not once per bucket. Where the device computes on the CPU's own cores, a CPU-side call whose products
NumPy's BLAS runs on several threads is also charged what its spinning workers will take from the device's
next calls (Note [Spinning BLAS workers]). The cheaper prediction wins; a device prediction within 25% of
the CPU's is tried once, so that a pessimistic roofline cannot keep a bucket off the device for ever.

Note [Cold calls]
A small call runs several times slower right after a call that streamed more than the caches hold, or that
ran on the other target: chain() on 128 doubles took 4 us after itself and 26 us after an 8 MiB softplus
(median of 300 each, on a 2-vCPU Xeon VM), and on opencl:0 a small NumPy call after a PoCL call took twice
what it took after another NumPy call. One history per target mixes the two and misses both, by 40-60% on
the small calls. So each target keeps two histories per bucket: calls after a warm predecessor (the same
target, at most COLD_AFTER_BYTES) and after a cold one; a prediction reads the history of the call's own
context, or the other one's while its own is empty. Replayed over bench_offload.py's calls, this cut the
median prediction error on opencl:0 by 3-6 points (29% -> 23-26%) and left the cpu target's within a point.
"""

from __future__ import annotations

import math
import statistics
from collections import deque
from dataclasses import dataclass, field

from ._calibration import Calibration, Rates
from ._trace import Trace

HISTORY_MIN = 10
HISTORY_MAX = 32
EXPLORE_WITHIN = 1.25
FRESH_PAGES_FROM = 32 << 20  # glibc's largest mmap threshold: results this large come in fresh pages
COLD_AFTER_BYTES = 1 << 20  # a predecessor with more data leaves a small call cold caches (Note [Cold calls])


@dataclass
class Call:
    """What the model knows of a call before running it."""

    host_bytes: int  # arrays on the host, to upload for the device
    device_bytes: int  # arrays already on the device, to download for the CPU
    keep: bool  # results stay on the device

    @property
    def nbytes(self) -> int:
        return self.host_bytes + self.device_bytes

    @property
    def shape(self) -> tuple:
        """What a bucket's predictions are kept by: calls alike in it cost the same."""
        return self.host_bytes, self.device_bytes, self.keep


@dataclass(frozen=True)
class Previous:
    """The process's previous decorated call: where it ran and its arrays' bytes."""

    target: str
    nbytes: int

    def leaves_cold(self, target: str) -> bool:
        """Whether a call on ``target`` after this one starts with cold caches (Note [Cold calls])."""
        return self.target != target or self.nbytes > COLD_AFTER_BYTES


@dataclass
class Decision:
    target: str  # "cpu" or "device"
    reason: str
    predicted_cpu_s: float | None = None
    predicted_device_s: float | None = None
    traced: bool = False  # a bucket's first call, run on the CPU to record its ops
    cold: bool = False  # the call follows one that left its target's caches cold (Note [Cold calls])

    @property
    def predicted_s(self) -> float | None:
        return self.predicted_cpu_s if self.target == "cpu" else self.predicted_device_s


def refresh_due(samples: int) -> bool:
    """Whether a statistic over recent samples is re-read after its ``samples``-th: after each of the first
    HISTORY_MIN (early samples move it a lot), then every 8th (robust statistics over 32 samples cost more
    than a small call itself, and they are asked for at every decision)."""
    return samples <= HISTORY_MIN or samples % 8 == 0


def inlier_median(values) -> float:
    """The median of the values within 3 robust deviations (1.4826 MAD) of their median. Call times are
    skewed (a stalled call is slow, never fast), so their median predicts the next one better than their
    mean does: 2-19% less median error, replayed over bench_offload.py's calls."""
    med = statistics.median(values)
    mad = statistics.median(abs(v - med) for v in values) * 1.4826
    kept = [v for v in values if abs(v - med) <= 3 * mad] if mad > 0 else [med]
    return statistics.median(kept)


class History:
    """Measured seconds of one target in one bucket, with the prior each was predicted from."""

    def __init__(self):
        self.samples = deque(maxlen=HISTORY_MAX)  # (nbytes, seconds, prior seconds)
        self.added = 0

    def __len__(self) -> int:
        return len(self.samples)

    def add(self, nbytes: int, seconds: float, prior: float) -> None:
        self.samples.append((max(nbytes, 1), seconds, prior))
        self.added += 1

    def predict(self, nbytes: int, prior: float, exponent: float) -> float:
        if not self.samples:
            return prior
        if len(self.samples) < HISTORY_MIN:
            return prior * statistics.median(s / p for _, s, p in self.samples if p > 0) if prior > 0 else prior
        n = max(nbytes, 1)
        return inlier_median([s * (n / b) ** exponent for b, s, _ in self.samples])


class RecentRatios:
    """Measured / roofline of a target's recent calls in every bucket, and their median (at least 1/4; 1
    before any), re-read when refresh_due (sorting 32 values at every decision cost 2-3 us a call)."""

    def __init__(self):
        self._values = deque(maxlen=HISTORY_MAX)
        self._added = 0
        self._median = 1.0

    def add(self, ratio: float) -> None:
        self._values.append(ratio)
        self._added += 1
        if refresh_due(self._added):
            self._median = max(0.25, statistics.median(self._values))

    @property
    def median(self) -> float:
        return self._median


def size_bucket(nbytes: int) -> int:
    return int(4 * math.log2(nbytes + 1))


def op_seconds(op, rates: Rates) -> float:
    memory = op.nbytes / rates.stream_bytes_per_s
    if op.kind == "gemm":
        work = op.flops / rates.gemm(op.dtype)
    elif op.kind == "factorisation":
        work = op.flops / (0.25 * rates.gemm(op.dtype))  # factorisations reach a fraction of GEMM's rate
    elif op.kind == "transcendental":
        work = op.elements / rates.transcendental_per_s
    else:
        work = 0.0
    fresh = op.out_bytes * rates.fresh_s_per_byte if op.out_bytes >= FRESH_PAGES_FROM else 0.0
    return max(memory, work) + rates.op_s + fresh


def roofline(trace: Trace, rates: Rates) -> float:
    return sum(op_seconds(op, rates) for op in trace.ops)


@dataclass
class Bucket:
    trace: Trace | None = None
    traced_bytes: int = 1
    exponent: float = 1.0  # how time grows with bytes: 1 for streaming work, 1.5 for GEMM-bound work
    roofline_cpu_s: float = 0.0  # of the traced call's ops
    roofline_device_s: float = 0.0
    blocked: str | None = None  # why the device cannot run this bucket's calls
    spin_s: float = 0.0  # charged to a CPU-side call: NumPy's BLAS workers spinning on the device's cores
    explored: bool = False
    # Per (target, cold): the measured calls of each target after a warm and after a cold predecessor.
    histories: dict = field(default_factory=lambda: {(t, c): History() for t in ("cpu", "device")
                                                     for c in (False, True)})
    # Priors per call shape (until the trace changes); predictions per call shape and context, valid until
    # the history changes enough to move them (see learn()).
    _prior_cache: dict = field(default_factory=dict)
    _predictions: dict = field(default_factory=dict)

    def samples(self, target: str) -> int:
        return len(self.histories[target, False]) + len(self.histories[target, True])

    def learn_trace(self, trace: Trace, nbytes: int, calibration: Calibration) -> None:
        self.trace, self.traced_bytes = trace, max(nbytes, 1)
        self.roofline_cpu_s = roofline(trace, calibration.cpu)
        self.roofline_device_s = roofline(trace, calibration.device)
        gemm = sum(op_seconds(op, calibration.cpu) for op in trace.ops if op.kind in ("gemm", "factorisation"))
        self.exponent = 1.5 if self.roofline_cpu_s > 0 and gemm > 0.5 * self.roofline_cpu_s else 1.0
        if trace.unsupported:
            self.blocked = "Accelera has no " + ", ".join(trace.unsupported)
        spin = calibration.spin
        self.spin_s = spin.penalty_s if any(spin.wakes_workers(op) for op in trace.ops) else 0.0
        self._prior_cache.clear()
        self._predictions.clear()

    def priors(self, call: Call, calibration: Calibration) -> tuple[float, float]:
        """Roofline seconds of the call on the CPU and on the device, transfers included."""
        scale = (max(call.nbytes, 1) / self.traced_bytes) ** self.exponent
        cpu = self.roofline_cpu_s * scale + calibration.download.seconds(call.device_bytes)
        device = self.roofline_device_s * scale + calibration.upload.seconds(call.host_bytes)
        if not call.keep and self.trace is not None:
            device += calibration.download.seconds(int(self.trace.output_bytes * scale ** (1 / self.exponent)))
        return cpu, device

    def _history_predict(self, target: str, cold: bool, nbytes: int, prior: float) -> float | None:
        """From the history of the call's context, else of the other one; None while the target has none."""
        own, other = self.histories[target, cold], self.histories[target, not cold]
        history = own if len(own) else other if len(other) else None
        return None if history is None else history.predict(nbytes, prior, self.exponent)

    def _priors(self, call: Call, calibration: Calibration) -> tuple[float, float]:
        found = self._prior_cache.get(call.shape)
        if found is None:
            if len(self._prior_cache) > 64:
                self._prior_cache.clear()
            found = self._prior_cache[call.shape] = self.priors(call, calibration)
        return found

    def _predict(self, call: Call, calibration: Calibration, cold_cpu: bool, cold_device: bool):
        key = (call.shape, cold_cpu, cold_device)
        found = self._predictions.get(key)
        if found is None:
            prior_cpu, prior_device = self._priors(call, calibration)
            found = (prior_cpu, prior_device, self._history_predict("cpu", cold_cpu, call.nbytes, prior_cpu),
                     self._history_predict("device", cold_device, call.nbytes, prior_device))
            if len(self._predictions) > 256:
                self._predictions.clear()
            self._predictions[key] = found
        return found

    def decide(self, call: Call, calibration: Calibration, cpu_ratio: float = 1.0, device_ratio: float = 1.0,
               previous: Previous | None = None, spin_share: float = 1.0) -> Decision:
        """``cpu_ratio``, ``device_ratio``: how much slower than their rooflines calls have run on each target
        so far, in every bucket (Runtime's RecentRatios); they scale a target's prior while this bucket has no
        sample of it. ``previous``: the process's previous decorated call (None: this is the first).
        ``spin_share``: the share of a new spin window of NumPy's BLAS workers that a CPU-side run would add
        (Spin.window_share)."""
        if self.trace is None:
            return Decision("cpu", "first call at this size: measured and traced on the CPU", traced=True)
        cold_cpu = previous is not None and previous.leaves_cold("cpu")
        cold_device = previous is not None and previous.leaves_cold("device")
        prior_cpu, prior_device, cpu, device = self._predict(call, calibration, cold_cpu, cold_device)
        if cpu is None:
            cpu = prior_cpu * cpu_ratio
        if device is None:
            device = prior_device * device_ratio
        if self.blocked:
            return Decision("cpu", f"the device cannot run it: {self.blocked}", cpu, None, cold=cold_cpu)
        spin = self.spin_s * spin_share
        if device < cpu + spin:
            if device < cpu:
                return Decision("device", "predicted faster on the device", cpu, device, cold=cold_device)
            return Decision("device", f"predicted faster on the device once NumPy's BLAS workers, left spinning "
                            f"on its cores, are counted ({spin * 1e3:.3g} ms)", cpu, device, cold=cold_device)
        if not self.explored and not self.samples("device") and device < EXPLORE_WITHIN * (cpu + spin):
            self.explored = True
            return Decision("device", "close call: trying the device once", cpu, device, cold=cold_device)
        return Decision("cpu", "predicted faster on the CPU", cpu, device, cold=cold_cpu)

    def learn(self, decision: Decision, call: Call, measured_s: float, calibration: Calibration) -> float | None:
        """Adds the sample; returns measured / roofline for it (what Runtime's RecentRatios are made of)."""
        if decision.traced:
            # A traced call is no sample: it runs slower than a plain one (NumPy cannot reuse the temporaries
            # of an ndarray subclass), and as a bucket's first call it also pays for cold caches and pages.
            return None
        prior_cpu, prior_device = self._priors(call, calibration)
        prior = prior_cpu if decision.target == "cpu" else prior_device
        history = self.histories[decision.target, decision.cold]
        history.add(call.nbytes, measured_s, prior)
        if refresh_due(history.added):
            self._predictions.clear()
        return measured_s / prior if prior > 0 else 1.0
