"""Measured rates of the CPU (NumPy), the device (Accelera) and the link between them, cached on disk.

Note [Calibration]
The cost model prices a call from a handful of rates measured once per machine: per target (the CPU running
NumPy, the device running Accelera's ops), GEMM FLOP/s per float dtype, streaming bandwidth (``a + b``),
transcendental throughput (``exp``), the fixed cost of one op, and (NumPy only) the cost of a large result
in fresh pages; per direction of the host-device link, a
latency ``alpha`` and a bandwidth (t = alpha + bytes / bandwidth, fitted over 1 KiB .. 8 MiB), for pageable
NumPy memory and for Accelera's pinned staging path; and, for a device on the CPU's own cores, what NumPy's
spinning BLAS threads cost it (Note [Spinning BLAS workers]). Measuring takes about a second (five more
where the BLAS spin is measured); the result is kept
in a JSON file (``ACCELERA_CALIBRATION``: another path, or "off" to measure in every process) under a key
naming the device, its memory, its driver (NVML's version on CUDA; OpenCL's driver version is not read
yet), the CPU, the thread count, the library versions and the build of Accelera's library (its size and
modification time: a rebuild that changes a kernel's speed keeps the version number), so another machine, a
new driver or a new build measures again. A file that cannot be read is measured again, rewritten (to a temporary, renamed into
place) and counted in ``runtime.stats()["calibration_rebuilt"]``.
"""

from __future__ import annotations

import json
import logging
import os
import platform
import statistics
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from .. import _core
from .._files import user_cache_file, write_json
from ._gpu_info import driver_version
from ._spin import Spin
from ._spin import measure as measure_spin

_log = logging.getLogger("accelera.offload")
FORMAT = 3
ENTRIES_KEPT = 16  # calibrations kept in the file, the most recent


@dataclass
class Rates:
    """One execution target."""

    gemm_flops: dict = field(default_factory=dict)  # float dtype name -> FLOP/s
    stream_bytes_per_s: float = 1e10
    transcendental_per_s: float = 1e9  # elements per second
    op_s: float = 1e-6  # fixed cost of one op (dispatch, launch)
    # Seconds per byte of a large result in fresh memory: NumPy's allocator maps arrays beyond glibc's mmap
    # threshold anew each time, and the kernel zero-fills every page on first touch. Accelera's caching
    # allocators reuse their blocks, so on the device this is 0.
    fresh_s_per_byte: float = 0.0

    def gemm(self, dtype: str) -> float:
        return self.gemm_flops.get(dtype) or self.gemm_flops.get("float64") or 1e10


@dataclass
class Link:
    """One direction of a transfer: t = alpha_s + bytes / bytes_per_s."""

    alpha_s: float = 1e-5
    bytes_per_s: float = 1e10

    def seconds(self, nbytes: int) -> float:
        return 0.0 if nbytes <= 0 else self.alpha_s + nbytes / self.bytes_per_s


@dataclass
class Calibration:
    key: str
    cpu: Rates
    device: Rates
    upload: Link  # pageable NumPy memory -> device
    download: Link
    upload_pinned: Link  # through the pinned staging buffers (par_iter's pipeline)
    seconds_to_measure: float = 0.0
    spin: Spin = field(default_factory=Spin)  # NumPy's BLAS threads, as the device sees them

    def to_json(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_json(data: dict) -> "Calibration":
        def rates(d):
            r = Rates(**d)
            if not all(isinstance(v, float) and v > 0 for v in r.gemm_flops.values()):
                raise ValueError("bad gemm rates")
            for v in (r.stream_bytes_per_s, r.transcendental_per_s, r.op_s):
                if not isinstance(v, (int, float)) or not v > 0:
                    raise ValueError(f"bad rate {v!r}")
            if not isinstance(r.fresh_s_per_byte, (int, float)) or r.fresh_s_per_byte < 0:
                raise ValueError(f"bad fresh-memory cost {r.fresh_s_per_byte!r}")
            return r

        def link(d):
            k = Link(**d)
            if not (k.alpha_s >= 0 and k.bytes_per_s > 0):
                raise ValueError("bad link")
            return k

        def spin(d):
            s = Spin(**{k: float(v) for k, v in d.items()})
            if not s.valid():
                raise ValueError(f"bad BLAS spin {d!r}")
            return s

        return Calibration(data["key"], rates(data["cpu"]), rates(data["device"]), link(data["upload"]),
                           link(data["download"]), link(data["upload_pinned"]), float(data["seconds_to_measure"]),
                           spin(data["spin"]))


def _median_time(fn, repeat: int = 5, sync=None) -> float:
    fn()
    if sync:
        sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        if sync:
            sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _fit(sizes, times) -> Link:
    """Least-squares alpha and bandwidth over (bytes, seconds)."""
    x, y = np.asarray(sizes, float), np.asarray(times, float)
    slope, intercept = np.polyfit(x, y, 1)
    slope = max(slope, 1e-13)
    return Link(alpha_s=max(float(intercept), 0.0), bytes_per_s=float(1.0 / slope))


_LINK_SIZES = (1 << 10, 1 << 16, 1 << 20, 1 << 23)
_STREAM_ELEMENTS = 1 << 23


def _measure_cpu() -> Rates:
    rates = Rates()
    for dtype in ("float32", "float64"):
        a = np.ones((384, 384), dtype)
        rates.gemm_flops[dtype] = 2 * 384 ** 3 / _median_time(lambda: a @ a)
    x = np.ones(_STREAM_ELEMENTS)  # 64 MiB: beyond the caches, as the calls worth offloading are
    out = np.empty_like(x)
    into_out = _median_time(lambda: np.add(x, x, out=out))
    rates.stream_bytes_per_s = 3 * x.nbytes / into_out
    rates.fresh_s_per_byte = max(0.0, _median_time(lambda: np.add(x, x)) - into_out) / x.nbytes
    y = x[: 1 << 19]
    rates.transcendental_per_s = y.size / _median_time(lambda: np.exp(y))
    tiny = np.ones(8)
    rates.op_s = _median_time(lambda: [tiny + tiny for _ in range(100)]) / 100
    return rates


def _measure_device(device: str) -> Rates:
    import accelera as acc

    def sync():
        _core._synchronize(device)

    rates = Rates()
    for dtype in ("float32", "float64"):
        if acc.supports(device, "matmul", dtype):
            a = acc.ones((384, 384), dtype=dtype, device=device)
            rates.gemm_flops[dtype] = 2 * 384 ** 3 / _median_time(lambda: acc.matmul(a, a), sync=sync)
    dtype = "float64" if acc.supports(device, "add", "float64") else "float32"
    x = acc.ones((_STREAM_ELEMENTS,), dtype=dtype, device=device)
    rates.stream_bytes_per_s = 3 * x.nbytes / _median_time(lambda: acc.add(x, x), sync=sync)
    y = acc.ones((1 << 19,), dtype=dtype, device=device)
    rates.transcendental_per_s = (1 << 19) / _median_time(lambda: acc.exp(y), sync=sync)
    tiny = acc.ones((8,), dtype=dtype, device=device)
    rates.op_s = _median_time(lambda: [acc.add(tiny, tiny) for _ in range(50)], sync=sync) / 50
    return rates


def _measure_links(device: str) -> tuple[Link, Link, Link]:
    import accelera as acc

    up, down, pinned = [], [], []
    for nbytes in _LINK_SIZES:
        host = np.ones(nbytes // 8)
        on_device = acc.asarray(host, device=device)
        up.append(_median_time(lambda: acc.asarray(host, device=device), repeat=3))
        down.append(_median_time(lambda: np.asarray(on_device), repeat=3))
        if hasattr(_core, "_stage_upload"):
            pinned.append(_median_time(lambda: _core._stage_upload(host, device).wait(), repeat=3))
    upload, download = _fit(_LINK_SIZES, up), _fit(_LINK_SIZES, down)
    return upload, download, (_fit(_LINK_SIZES, pinned) if pinned else upload)


def _device_info(device: str) -> dict:
    return next(d for d in _core.devices() if d["device"] == device)


def library_file() -> str:
    """Accelera's compiled library (its kernels), or the extension module where it is linked in."""
    shared = os.path.join(os.path.dirname(_core.__file__), "libaccelera.so.0")
    return shared if os.path.exists(shared) else _core.__file__


def library_build() -> str:
    found = os.stat(library_file())
    return f"build {found.st_size}-{found.st_mtime_ns}"


def calibration_key(device: str) -> str:
    import accelera as acc

    info, cpu = _device_info(device), _device_info("cpu")
    # A device on the host's memory reports a share of what is free when it starts (PoCL: 15 GB in one
    # process, 19 GB in the next), which would make every process measure again.
    memory = str(info["total_memory"]) if info["is_accelerator"] else "host memory"
    return " | ".join([device, info["name"], info["vendor"], driver_version(device), memory, cpu["name"],
                       str(os.cpu_count()), platform.machine(), f"accelera {acc.__version__}", library_build(),
                       f"numpy {np.__version__}"])


def measure(device: str) -> Calibration:
    start = time.perf_counter()
    cpu, dev = _measure_cpu(), _measure_device(device)
    upload, download, pinned = _measure_links(device)
    spin = measure_spin(device, shares_cores=not _device_info(device)["is_accelerator"])
    return Calibration(calibration_key(device), cpu, dev, upload, download, pinned, time.perf_counter() - start,
                       spin)


def cache_path() -> str | None:
    """Where calibrations are kept: ``ACCELERA_CALIBRATION`` (a file; "off" keeps none), else the user's
    cache directory."""
    setting = os.environ.get("ACCELERA_CALIBRATION")
    if setting is not None and setting.strip().lower() in ("off", "0", "none", "false", ""):
        return None
    if setting:
        return os.path.abspath(os.path.expanduser(setting))
    return user_cache_file("offload-calibration.json")


def _write(path: str, entries: dict) -> None:
    write_json(path, {"format": FORMAT, "entries": entries})


def load_or_measure(device: str) -> tuple[Calibration, str]:
    """The calibration for ``device`` and where it came from: "cache", "measured" or "rebuilt" (the file
    could not be read)."""
    path, key = cache_path(), calibration_key(device)
    if path is None:
        return measure(device), "measured"
    entries, source = {}, "measured"
    if os.path.exists(path):
        try:
            with open(path) as f:
                data = json.load(f)
            if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entries"), dict):
                raise ValueError("not a calibration file of this format")
            entries = data["entries"]
            if key in entries:
                return Calibration.from_json(entries[key]), "cache"
        except (OSError, ValueError, KeyError, TypeError) as exc:
            _log.warning("calibration file %s cannot be read (%s): measuring again", path, exc)
            entries, source = {}, "rebuilt"
    calibration = measure(device)
    entries[key] = calibration.to_json()
    while len(entries) > ENTRIES_KEPT:  # the oldest first: every rebuild of the library adds one
        del entries[next(iter(entries))]
    _write(path, entries)
    return calibration, source
