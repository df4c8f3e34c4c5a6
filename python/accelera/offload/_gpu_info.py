"""``runtime.gpu``: the device decorated functions offload to, its memory and (where the driver tells) its
utilization."""

from __future__ import annotations

import ctypes
import logging
import math
import os

from .. import _core

_log = logging.getLogger("accelera.offload")
_MB = float(1 << 20)


class _Nvml:
    """The NVIDIA management library, loaded on first use (it ships with the driver, not the toolkit)."""

    class _Utilization(ctypes.Structure):
        _fields_ = [("gpu", ctypes.c_uint), ("memory", ctypes.c_uint)]

    def __init__(self):
        self.lib = ctypes.CDLL("libnvidia-ml.so.1")
        self._check(self.lib.nvmlInit_v2(), "nvmlInit")

    def _check(self, status: int, what: str) -> None:
        if status != 0:
            self.lib.nvmlErrorString.restype = ctypes.c_char_p
            raise _core.DeviceError(f"{what} failed: {self.lib.nvmlErrorString(status).decode()} (NVML {status})")

    def driver_version(self) -> str:
        buffer = ctypes.create_string_buffer(96)
        self._check(self.lib.nvmlSystemGetDriverVersion(buffer, ctypes.c_uint(96)), "nvmlSystemGetDriverVersion")
        return buffer.value.decode()

    def utilization(self, cuda_index: int) -> float:
        handle = ctypes.c_void_p()
        visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")
        entry = visible[cuda_index].strip() if cuda_index < len(visible) and visible[0].strip() else str(cuda_index)
        if entry.isdigit():  # CUDA's order is NVML's (PCI) order when CUDA_DEVICE_ORDER=PCI_BUS_ID or one GPU
            status = self.lib.nvmlDeviceGetHandleByIndex_v2(int(entry), ctypes.byref(handle))
            self._check(status, "nvmlDeviceGetHandle")
        else:  # a UUID
            self._check(self.lib.nvmlDeviceGetHandleByUUID(entry.encode(), ctypes.byref(handle)), "nvmlDeviceGetHandle")
        rates = self._Utilization()
        status = self.lib.nvmlDeviceGetUtilizationRates(handle, ctypes.byref(rates))
        self._check(status, "nvmlDeviceGetUtilizationRates")
        return float(rates.gpu)


_nvml: _Nvml | None = None


def _loaded_nvml() -> _Nvml:
    global _nvml
    if _nvml is None:
        _nvml = _Nvml()
    return _nvml


def driver_version(device: str) -> str:
    """The driver's version where it can be read without a device context (NVML, on CUDA); "" elsewhere."""
    if not device.startswith("cuda"):
        return ""
    try:
        return _loaded_nvml().driver_version()
    except (OSError, _core.DeviceError) as exc:
        _log.info("no driver version for %s: %s", device, exc)
        return ""


class GpuInfo:
    """What ``get_runtime().gpu`` answers: ``backend``, ``device``, ``device_count``, ``is_available()``,
    ``get_memory_stats()``, ``get_utilization()``."""

    def __init__(self, device: str):
        self.device = device
        self.backend = device.split(":")[0]
        self.index = int(device.split(":")[1]) if ":" in device else 0

    def __repr__(self) -> str:
        return f"GpuInfo(device={self.device!r}, name={self.name!r})"

    def _info(self) -> dict | None:
        return next((d for d in _core.devices() if d["device"] == self.device), None)

    @property
    def name(self) -> str:
        info = self._info()
        return info["name"] if info else "(gone)"

    @property
    def is_accelerator(self) -> bool:
        """False for an OpenCL device that is the CPU itself (PoCL): offloading to it rarely pays."""
        info = self._info()
        return bool(info and info["is_accelerator"])

    @property
    def device_count(self) -> int:
        return sum(d["kind"] == self.backend for d in _core.devices())

    def is_available(self) -> bool:
        return self._info() is not None

    def get_memory_stats(self) -> dict:
        """The driver's ``total_mb``, ``free_mb`` and ``used_mb`` (by every process), and this process's
        allocator: ``reserved_mb`` (held from the device), ``allocated_mb`` (in live tensors), ``cached_mb``
        (free blocks kept for reuse), ``peak_mb`` and ``budget_mb``."""
        info = self._info()
        if info is None:
            raise _core.DeviceError(f"{self.device} is no longer available")
        alloc = _core.memory_stats(self.device)
        total, free = info["total_memory"] / _MB, info["free_memory"] / _MB
        return {"total_mb": total, "free_mb": free, "used_mb": total - free,
                "reserved_mb": alloc["reserved_bytes"] / _MB, "allocated_mb": alloc["current_bytes"] / _MB,
                "cached_mb": alloc["cached_bytes"] / _MB, "peak_mb": alloc["peak_bytes"] / _MB,
                "budget_mb": alloc["budget_bytes"] / _MB}

    @property
    def utilization_source(self) -> str:
        """Where ``get_utilization()`` comes from: "nvml", or why there is no figure."""
        if self.backend == "cuda":
            return "nvml"
        return "unavailable: OpenCL has no query for how busy a device is"

    def get_utilization(self) -> float:
        """Percent of the last sample period the device was busy (NVML's figure on CUDA). Where the platform
        cannot tell (OpenCL), NaN — not a guess — and ``utilization_source`` says why."""
        if self.backend != "cuda":
            _log.info("%s: %s; get_utilization() returns NaN", self.device, self.utilization_source)
            return math.nan
        try:
            nvml = _loaded_nvml()
        except OSError as exc:
            raise _core.DeviceError(f"cannot load libnvidia-ml.so.1 for {self.device}'s utilization: {exc}") from exc
        return nvml.utilization(self.index)
