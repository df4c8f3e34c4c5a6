"""Where time and memory go: named regions (the seed's ``start``/``end``/``print_summary``), automatic
per-op timing, a memory timeline, and Chrome trace export (``export_chrome_trace``, opens in Perfetto or
chrome://tracing).

Note [Profiling cost]
~~~~~~~~~~~~~~~~~~~~~
Off (the default) the profiler costs one module-global read per namespace call: nothing measurable. On
(``with profiler.profile():`` or ``GpuProfiler(record_ops=True)``), each op of the namespace waits for its
device to finish before its end time is taken, so op times are device times on OpenCL and CUDA too, at the
price of serialising the queue: profile to find where time goes, not to measure peak throughput. Regions
(``start``/``end``) also synchronise the devices they touched, so their times include the queued work.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

from . import _core
from ._core import ArgumentError
from ._files import new_file_mode

_active: list = []  # the profilers recording ops now; the wrappers read ``hooks_on``
hooks_on = False
_lock = threading.Lock()


def _devices_of(args) -> set:
    devices = set()
    for a in args:
        if isinstance(a, _core.Tensor):
            devices.add(a.device)
        elif isinstance(a, (list, tuple)):
            devices.update(t.device for t in a if isinstance(t, _core.Tensor))
    return devices


def _synchronize(devices) -> None:
    for device in devices:
        if device != "cpu":
            _core._synchronize(device)


_depth = threading.local()


def timed_call(name: str, fn, args, kwargs):
    """Runs one namespace op with timing (called by the recording wrappers while profiling is on); ops that
    an op calls inside are part of its time, not events of their own."""
    if getattr(_depth, "value", 0):
        return fn(*args, **kwargs)
    _depth.value = 1
    try:
        return _timed(name, fn, args, kwargs)
    finally:
        _depth.value = 0


def _timed(name: str, fn, args, kwargs):
    devices = _devices_of(args) | _devices_of(kwargs.values())
    start = time.perf_counter_ns()
    result = fn(*args, **kwargs)
    _synchronize(devices | _devices_of(result if isinstance(result, (list, tuple)) else (result,)))
    stop = time.perf_counter_ns()
    for profiler in list(_active):
        profiler._op(name, start, stop, devices)
    return result


class GpuProfiler:
    """Named regions and, with ``record_ops=True`` (or inside :meth:`profile`), every namespace op.

    ``start(name)`` / ``end(name, memory_used=None, device_id=None)`` time a region (nesting and repeats
    allowed); ``print_summary()`` prints count, total, mean and share per region and per op;
    ``export_chrome_trace(path)`` writes every event and the memory timeline."""

    def __init__(self, record_ops: bool = False, devices=None):
        self.record_ops = record_ops
        self.devices = list(devices) if devices is not None else [d["device"] for d in _core.devices()]
        self.events: list[dict] = []    # complete events: name, cat, ts/dur in ns, args
        self.memory: list[tuple] = []   # (ts ns, device, current bytes)
        self._open: dict[str, list] = defaultdict(list)
        self._origin = time.perf_counter_ns()
        if record_ops:
            self._attach()

    # ---- regions --------------------------------------------------------------------------------
    def start(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise ArgumentError(f"a region name is a non-empty string, got {name!r}")
        _synchronize(self.devices)
        self._open[name].append(time.perf_counter_ns())

    def end(self, name: str, memory_used: int | None = None, device_id=None) -> float:
        """Closes the innermost open region ``name``; returns its seconds."""
        if not self._open.get(name):
            raise ArgumentError(f"end({name!r}) without a matching start({name!r})")
        _synchronize(self.devices)
        stop = time.perf_counter_ns()
        start = self._open[name].pop()
        args = {}
        if memory_used is not None:
            args["memory_used"] = int(memory_used)
        if device_id is not None:
            args["device_id"] = device_id
        self.events.append({"name": name, "cat": "region", "ts": start, "dur": stop - start, "args": args})
        self._sample_memory(stop)
        return (stop - start) / 1e9

    # ---- ops --------------------------------------------------------------------------------------
    def _attach(self) -> None:
        global hooks_on
        with _lock:
            _active.append(self)
            hooks_on = True

    def _detach(self) -> None:
        global hooks_on
        with _lock:
            if self in _active:
                _active.remove(self)
            hooks_on = bool(_active)

    def _op(self, name, start, stop, devices) -> None:
        self.events.append({"name": name, "cat": "op", "ts": start, "dur": stop - start,
                            "args": {"devices": sorted(devices)}})
        self._sample_memory(stop)

    def _sample_memory(self, ts: int) -> None:
        for device in self.devices:
            self.memory.append((ts, device, _core.memory_stats(device)["current_bytes"]))

    def stop(self) -> None:
        """Stops recording ops (regions still work)."""
        self._detach()

    # ---- reports ----------------------------------------------------------------------------------
    def summary(self) -> list[dict]:
        """One row per (category, name): count, total and mean seconds, share of the region/op total."""
        totals: dict = defaultdict(lambda: [0, 0])
        for e in self.events:
            row = totals[(e["cat"], e["name"])]
            row[0] += 1
            row[1] += e["dur"]
        by_cat = defaultdict(int)
        for (cat, _), (_, ns) in totals.items():
            by_cat[cat] += ns
        rows = [{"category": cat, "name": name, "count": n, "total_s": ns / 1e9, "mean_s": ns / n / 1e9,
                 "share": ns / by_cat[cat] if by_cat[cat] else 0.0} for (cat, name), (n, ns) in totals.items()]
        return sorted(rows, key=lambda r: (r["category"] != "region", -r["total_s"]))

    def print_summary(self) -> None:
        rows = self.summary()
        print(f"{'kind':<7} {'name':<32} {'count':>7} {'total ms':>10} {'mean us':>10} {'share':>7}")
        for r in rows:
            print(f"{r['category']:<7} {r['name'][:32]:<32} {r['count']:>7} {r['total_s'] * 1e3:>10.3f} "
                  f"{r['mean_s'] * 1e6:>10.1f} {r['share'] * 100:>6.1f}%")
        peaks = {}
        for _, device, current in self.memory:
            peaks[device] = max(peaks.get(device, 0), current)
        for device, peak in peaks.items():
            print(f"memory  {device:<32} peak {peak / 2**20:.1f} MiB")

    def export_chrome_trace(self, path) -> None:
        """Writes the Trace Event format (JSON): regions and ops as complete events, memory as counters.
        The file is written to a temporary and renamed into place."""
        trace = []
        for e in self.events:
            trace.append({"name": e["name"], "cat": e["cat"], "ph": "X", "pid": 0, "tid": 0 if e["cat"] == "region" else 1,
                          "ts": (e["ts"] - self._origin) / 1e3, "dur": e["dur"] / 1e3, "args": e["args"]})
        for ts, device, current in self.memory:
            trace.append({"name": f"memory {device}", "ph": "C", "pid": 0, "ts": (ts - self._origin) / 1e3,
                          "args": {"bytes": current}})
        path = Path(path)
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent or ".")
        try:
            with os.fdopen(fd, "w") as f:
                json.dump({"traceEvents": trace, "displayTimeUnit": "ms"}, f)
            os.chmod(temporary, new_file_mode())
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise


class profile:
    """``with accelera.profiler.profile() as prof:`` records every namespace op inside; then
    ``prof.print_summary()`` or ``prof.export_chrome_trace("trace.json")``."""

    def __init__(self, devices=None):
        self.profiler = GpuProfiler(record_ops=False, devices=devices)

    def __enter__(self) -> GpuProfiler:
        self.profiler._attach()
        return self.profiler

    def __exit__(self, *exc):
        self.profiler._detach()
        return False


_regions = GpuProfiler()


def start(name: str) -> None:
    """Opens a region on the module's default profiler."""
    _regions.start(name)


def end(name: str, memory_used: int | None = None, device_id=None) -> float:
    return _regions.end(name, memory_used, device_id)


def print_summary() -> None:
    _regions.print_summary()


def export_chrome_trace(path) -> None:
    _regions.export_chrome_trace(path)
