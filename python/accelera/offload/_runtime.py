"""The process's offload runtime: its configuration, target device, cost model and statistics."""

from __future__ import annotations

import logging
import math
import statistics
import threading
import time
from collections import deque

from .. import _core
from ._calibration import Calibration, cache_path, load_or_measure
from ._config import Config
from ._gpu_info import GpuInfo
from ._model import Bucket, Call, Decision, Previous, RecentRatios, size_bucket

_log = logging.getLogger("accelera.offload")
DECISIONS_KEPT = 1000


def resolve_device(device) -> str | None:
    """A device string for ``device`` (None: the first CUDA device, else the first OpenCL device; an int:
    that index of the same kind), or None when there is no such device kind at all. An explicit device that
    does not exist raises DeviceError."""
    present = [d["device"] for d in _core.devices() if d["kind"] != "cpu"]
    kinds = [k for k in ("cuda", "opencl") if any(p.startswith(k + ":") for p in present)]
    if device is None:
        return next((p for k in kinds for p in present if p.startswith(k + ":")), None)
    if isinstance(device, int):
        if not kinds:
            raise _core.DeviceError(f"no device {device}: this machine has no CUDA or OpenCL device")
        device = f"{kinds[0]}:{device}"
    if device not in present and device != "cpu":  # "cpu": Accelera's own CPU kernels, named explicitly
        raise _core.DeviceError(f"no device {device!r}; present: {', '.join(present) or 'none'}")
    return device


class Runtime:
    """What ``accelera.get_runtime()`` returns: ``config``, ``gpu`` (None without a device) and ``stats()``."""

    def __init__(self, config: Config):
        self.config = config
        self._lock = threading.Lock()
        self._buckets: dict = {}
        self._traces: dict = {}  # (function, signature) -> (bytes, trace) of its latest traced call
        self._calibrations: dict = {}
        self._decisions = deque(maxlen=DECISIONS_KEPT)
        self._errors = deque(maxlen=DECISIONS_KEPT)
        self._counts = dict(calls=0, offloaded=0, kept_on_cpu=0, fallbacks=0, traced_calls=0, bytes_to_device=0,
                            bytes_to_host=0, calibration_rebuilt=0)
        self._calibration_source = None
        self._cpu_ratios = RecentRatios()  # measured / roofline of recent calls, every bucket
        self._device_ratios = RecentRatios()
        self._previous: Previous | None = None  # the last decorated call, for Note [Cold calls]
        # When NumPy's BLAS workers, woken by the last CPU-side call with parallel products, fall asleep
        # (perf_counter seconds; Note [Spinning BLAS workers]).
        self._spinning_until = -math.inf
        self.gpu = None if config.force_cpu else self._gpu(config.device)

    @staticmethod
    def _gpu(device) -> GpuInfo | None:
        resolved = resolve_device(device)
        return GpuInfo(resolved) if resolved else None

    def __repr__(self) -> str:
        return f"Runtime(gpu={self.gpu!r}, config={self.config!r})"

    # --- calibration -------------------------------------------------------------------------------
    def calibration(self, device: str) -> Calibration:
        """The rates for ``device`` (measured, or read from the cache, on first use)."""
        found = self._calibrations.get(device)  # a dict read is atomic; writes take the lock
        if found is not None:
            return found
        calibration, source = load_or_measure(device)
        with self._lock:
            self._calibrations.setdefault(device, calibration)
            self._calibration_source = source
            if source == "rebuilt":
                self._counts["calibration_rebuilt"] += 1
        _log.info("offload calibration for %s: %s (%s)", device, source, cache_path() or "not cached")
        return self._calibrations[device]

    def set_calibration(self, device: str, calibration: Calibration) -> None:
        """Use ``calibration`` for ``device`` instead of measuring (for tests and what-if studies)."""
        with self._lock:
            self._calibrations[device] = calibration
            self._calibration_source = "given"

    # --- decisions ---------------------------------------------------------------------------------
    def decide(self, key, call: Call, device: str) -> tuple[Decision, Bucket | None]:
        limit = self.config.min_offload_bytes
        if limit is not None:
            free = next((d["free_memory"] for d in _core.devices() if d["device"] == device), 0)
            if call.nbytes >= limit and 2 * call.host_bytes <= free:
                return Decision("device", f"fixed rule: {call.nbytes} >= {limit} bytes"), None
            return Decision("cpu", f"fixed rule: {call.nbytes} < {limit} bytes or too large for free memory"), None
        calibration = self.calibration(device)
        full_key = key + (size_bucket(call.nbytes),)
        with self._lock:
            bucket = self._buckets.get(full_key)
            if bucket is None:
                bucket = self._buckets[full_key] = Bucket()
                # Another size of the same function and dtypes was traced: its ops, scaled, spare this
                # bucket a traced first call (which runs slower than NumPy, on the CPU, whatever it costs).
                known = self._traces.get(key)
                if known is not None:
                    nbytes, trace = known
                    ratio = max(call.nbytes, 1) / max(nbytes, 1)
                    bucket.learn_trace(trace.scaled(ratio), call.nbytes, calibration)
            share = calibration.spin.window_share(time.perf_counter(), self._spinning_until) if bucket.spin_s else 1.0
            return bucket.decide(call, calibration, self._cpu_ratios.median, self._device_ratios.median,
                                 self._previous, share), bucket

    def learn(self, key, bucket: Bucket | None, decision: Decision, call: Call, measured_s: float, device: str,
              trace=None) -> None:
        if bucket is None:
            return
        calibration = self.calibration(device)
        with self._lock:
            if trace is not None:
                bucket.learn_trace(trace, call.nbytes, calibration)
                self._traces[key] = (call.nbytes, trace)
            ratio = bucket.learn(decision, call, measured_s, calibration)
            if decision.target == "cpu" and bucket.spin_s and trace is None:
                # NumPy ran its products (a traced call runs them on Accelera's kernels): its workers now spin.
                self._spinning_until = time.perf_counter() + calibration.spin.duration_s
            if ratio is not None:
                (self._cpu_ratios if decision.target == "cpu" else self._device_ratios).add(ratio)

    def block(self, bucket: Bucket | None, why: str) -> None:
        if bucket is not None:
            with self._lock:
                bucket.blocked = why

    def record(self, function: str, decision: Decision, call: Call, measured_s: float, moved_up: int,
               moved_down: int, fallback: bool = False, traced: bool = False) -> None:
        predicted = decision.predicted_s
        entry = (function, decision, call.nbytes, measured_s)  # a dict when stats() asks: cheaper per call
        with self._lock:
            counts = self._counts
            counts["calls"] += 1
            counts["offloaded" if decision.target == "device" and not fallback else "kept_on_cpu"] += 1
            counts["fallbacks"] += fallback
            counts["traced_calls"] += traced
            counts["bytes_to_device"] += moved_up
            counts["bytes_to_host"] += moved_down
            self._decisions.append(entry)
            self._previous = Previous("cpu" if fallback else decision.target, call.nbytes)
            if predicted is not None and measured_s > 0 and not fallback:
                self._errors.append(abs(predicted - measured_s) / measured_s)
        if _log.isEnabledFor(logging.DEBUG):
            _log.debug("%s -> %s (%s): predicted %s s, measured %.3g s", function, decision.target, decision.reason,
                       "-" if predicted is None else f"{predicted:.3g}", measured_s)

    def stats(self) -> dict:
        """Counts of calls (``calls``, ``offloaded``, ``kept_on_cpu``, ``fallbacks``, ``traced_calls``), bytes moved
        each way, the last 1000 decisions with predicted and measured seconds, and the median relative
        prediction error over the calls the model predicted (traced first calls and fixed-rule calls have no
        prediction)."""
        with self._lock:
            out = dict(self._counts)
            out["bytes_moved"] = out["bytes_to_device"] + out["bytes_to_host"]
            out["decisions"] = [_decision_entry(*entry) for entry in self._decisions]
            out["median_prediction_error"] = statistics.median(self._errors) if self._errors else None
            out["predicted_calls"] = len(self._errors)
            out["device"] = self.gpu.device if self.gpu else None
            out["calibration"] = self._calibration_source
            out["calibration_path"] = cache_path()
            out["buckets"] = len(self._buckets)
        return out

    def reset_stats(self) -> None:
        with self._lock:
            for k in self._counts:
                self._counts[k] = 0 if k != "calibration_rebuilt" else self._counts[k]
            self._decisions.clear()
            self._errors.clear()


def _decision_entry(function: str, decision: Decision, nbytes: int, measured_s: float) -> dict:
    return {"function": function, "target": decision.target, "reason": decision.reason, "bytes": nbytes,
            "predicted_s": decision.predicted_s, "predicted_cpu_s": decision.predicted_cpu_s,
            "predicted_device_s": decision.predicted_device_s, "measured_s": measured_s}


_runtime: Runtime | None = None
_runtime_lock = threading.Lock()


def init(config: Config | None = None) -> Runtime:
    """Start the offload runtime with ``config`` (default: ``Config()``); replaces an earlier one, with its
    history (calibrations measured in this process are kept on disk)."""
    global _runtime
    if config is not None and not isinstance(config, Config):
        raise _core.ArgumentError(f"init() takes a Config, got {type(config).__name__}")
    runtime = Runtime(config or Config())
    with _runtime_lock:
        _runtime = runtime
    return runtime


def get_runtime() -> Runtime:
    """The running offload runtime (started with the default Config on first use)."""
    runtime = _runtime
    if runtime is None:
        with _runtime_lock:
            if _runtime is None:
                globals()["_runtime"] = Runtime(Config())
            runtime = _runtime
    return runtime
