"""The offload runtime's settings: ``Config.builder()...build()`` (the names of the VedaRT guide)."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from .._core import ArgumentError

FALLBACKS = ("error", "cpu")


@dataclass(frozen=True)
class Config:
    """What ``@accelera.gpu`` may do.

    ``gpu``: whether decorated functions may run on a device at all (False: always the CPU, as does
    ``ACCELERA_FORCE_CPU=1``, which wins over the code so a run can be debugged without editing it).
    ``device``: the device to offload to ("cuda:1", "opencl:0", or an index of the default kind); None picks
    the first CUDA device, else the first OpenCL device. ``fallback``: "error" raises a failure on the device;
    "cpu" logs it at warning level, counts it and runs the call again on the CPU. ``min_offload_bytes``: None
    lets the calibrated cost model decide; a number replaces it by a fixed rule (offload when the arrays
    passed hold at least that many bytes), which is what the benchmark compares the model against.
    """

    gpu: bool = True
    device: str | int | None = None
    fallback: str = "error"
    min_offload_bytes: int | None = None

    def __post_init__(self):
        if not isinstance(self.gpu, bool):
            raise ArgumentError(f"Config.gpu must be a bool, got {self.gpu!r}")
        if self.fallback not in FALLBACKS:
            raise ArgumentError(f"Config.fallback must be one of {FALLBACKS}, got {self.fallback!r}")
        if self.device is not None and (isinstance(self.device, bool) or not isinstance(self.device, (str, int))):
            raise ArgumentError(f"Config.device must be a device string or an index, got {self.device!r}")
        if isinstance(self.device, int) and self.device < 0:
            raise ArgumentError(f"Config.device must be a non-negative index, got {self.device}")
        limit = self.min_offload_bytes
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise ArgumentError(f"Config.min_offload_bytes must be None or a byte count >= 0, got {limit!r}")

    @staticmethod
    def builder() -> "ConfigBuilder":
        return ConfigBuilder()

    @property
    def force_cpu(self) -> bool:
        """Whether everything runs on the CPU: ``gpu(False)`` or ``ACCELERA_FORCE_CPU`` set to a true value."""
        return not self.gpu or os.environ.get("ACCELERA_FORCE_CPU", "").strip().lower() in ("1", "true", "yes", "on")


class ConfigBuilder:
    """``Config.builder().gpu(True).device("cuda:0").fallback("cpu").min_offload_bytes(None).build()``."""

    def __init__(self):
        self._config = Config()

    def _with(self, **changes) -> "ConfigBuilder":
        self._config = replace(self._config, **changes)  # validated at once, by Config.__post_init__
        return self

    def gpu(self, enabled: bool = True) -> "ConfigBuilder":
        return self._with(gpu=enabled)

    def device(self, device: str | int | None) -> "ConfigBuilder":
        return self._with(device=device)

    def fallback(self, mode: str) -> "ConfigBuilder":
        return self._with(fallback=mode)

    def min_offload_bytes(self, limit: int | None) -> "ConfigBuilder":
        return self._with(min_offload_bytes=limit)

    def build(self) -> Config:
        return self._config
