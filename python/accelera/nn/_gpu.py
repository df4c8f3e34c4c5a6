"""The seed's device names (GpuManager, GpuTensor, contexts, memory statistics) as thin names over
accelera's devices and tensors: a context is a device, a GpuTensor a Tensor on it."""

from __future__ import annotations

import dataclasses
import enum

import numpy as np

from .. import _core
from .._convert import asarray
from .._core import ArgumentError, DeviceError, Tensor


@dataclasses.dataclass(frozen=True)
class DeviceInfo:
    """One device: ``id`` is its position in :meth:`GpuManager.devices` (0 is the CPU)."""

    id: int
    name: str
    device: str
    device_type: str  # "cuda", "opencl" or "generic" (the CPU)
    total_memory: int
    is_accelerator: bool


@dataclasses.dataclass(frozen=True)
class MemoryStats:
    allocated: int  # bytes held by live tensors
    peak: int       # the most ever held at once
    reserved: int   # held by the caching allocator (live + cached)
    total: int      # the device's memory (or the budget, if lower)


class MemoryLayout(enum.Enum):
    """Accelera tensors are row-major and contiguous on upload on every backend, which is what each
    backend's kernels read fastest; both names give that layout."""

    RowMajor = "row_major"
    GpuOptimized = "row_major"


class GpuContext:
    """A device to put tensors on, with its allocator statistics."""

    def __init__(self, info: DeviceInfo):
        self.info = info
        self.device = info.device

    def memory_stats(self) -> MemoryStats:
        s = _core.memory_stats(self.device)
        total = min(self.info.total_memory, s["budget_bytes"]) if s["budget_bytes"] else self.info.total_memory
        return MemoryStats(s["current_bytes"], s["peak_bytes"], s["reserved_bytes"], total)

    def __repr__(self) -> str:
        return f"GpuContext({self.device})"


class GpuManager:
    """The devices of this machine, accelerators first after the CPU's entry."""

    def __init__(self):
        self._devices = [DeviceInfo(i, d["name"], d["device"], "generic" if d["kind"] == "cpu" else d["kind"],
                                    d["total_memory"], d["is_accelerator"]) for i, d in enumerate(_core.devices())]

    def devices(self) -> list[DeviceInfo]:
        return list(self._devices)

    def default_device(self) -> DeviceInfo | None:
        """The device accelera uses by default (ACCELERA_DEVICE, else the best accelerator present, else
        the CPU)."""
        name = _core.default_device()
        return next((d for d in self._devices if d.device == name), None)

    def create_context(self, device_id: int) -> GpuContext:
        if isinstance(device_id, bool) or not isinstance(device_id, int):
            raise ArgumentError(f"a device id is an integer, got {device_id!r}")
        if not 0 <= device_id < len(self._devices):
            raise DeviceError(f"no device with id {device_id}: this machine has {len(self._devices)} "
                              f"({', '.join(d.device for d in self._devices)})")
        return GpuContext(self._devices[device_id])

    @staticmethod
    def is_gpu_available() -> bool:
        return any(d["is_accelerator"] for d in _core.devices())


class GpuTensor:
    """A tensor on a context's device (``.tensor`` is the accelera Tensor)."""

    def __init__(self, tensor: Tensor, context: GpuContext):
        self.tensor = tensor
        self.context = context

    @staticmethod
    def from_cpu(data, device_id: int, context: GpuContext) -> "GpuTensor":
        if context.info.id != device_id:
            raise ArgumentError(f"device id {device_id} does not match the context's device {context.info.id}")
        return GpuTensor(asarray(np.asarray(data), device=context.device), context)

    @staticmethod
    def from_cpu_with_layout(data, device_id: int, context: GpuContext, layout: MemoryLayout) -> "GpuTensor":
        if not isinstance(layout, MemoryLayout):
            raise ArgumentError(f"layout must be a MemoryLayout, got {layout!r}")
        return GpuTensor.from_cpu(data, device_id, context)

    def to_cpu(self, context: GpuContext | None = None) -> np.ndarray:
        return self.tensor.numpy()

    @property
    def shape(self):
        return self.tensor.shape
