"""The router's settings: which device computes, from what size a call pays, and whether operands too large
for the device are streamed. Defaults come from the environment (the seed's switches), read once."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .. import _core
from .._args import flag, parse_bytes
from .._core import ArgumentError

# Note [Routing threshold]: a matmul of host tensors pays on a device once its arithmetic hides the bus: at
# 16 MiB of operands (square float32 matrices of about 1200) a CPU core spends tens of milliseconds where the
# copies take about one. Smaller calls are dominated by latency and stay with PyTorch. Operands that already
# live on the device (CUDA tensors) pay from any size, but PyTorch's own cuBLAS is as fast there, so the same
# threshold keeps the router out of the way of small calls.
DEFAULT_MIN_BYTES = 16 << 20

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class Settings:
    """``min_bytes``: calls whose operands and result total fewer bytes pass through to PyTorch.
    ``device``: Accelera's device for routed calls (None: the default device, ``ACCELERA_DEVICE``).
    ``out_of_core``: operands too large for the device are streamed through it by the MatrixEngine; when
    False such calls pass through to PyTorch."""

    min_bytes: int = DEFAULT_MIN_BYTES
    device: str | None = None
    out_of_core: bool = True

    @staticmethod
    def checked(min_bytes, device, out_of_core) -> Settings:
        size = parse_bytes(min_bytes)
        if size is None or size < 0:
            raise ArgumentError(f"min_bytes must be a size of at least 0 bytes, got {min_bytes!r}")
        if device is not None:
            if not isinstance(device, str):
                raise ArgumentError(f"device must be a string such as 'cuda:0' or 'opencl:0', got {device!r}")
            device = _core._parse_device(device)
        return Settings(size, device, flag(out_of_core, "out_of_core"))

    def target(self) -> str:
        return self.device if self.device is not None else _core.default_device()


def _env_flag(name: str, default: bool) -> bool:
    text = os.environ.get(name)
    if text is None or text.strip() == "":
        return default
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ArgumentError(f"{name}={text!r}: expected 1/0, true/false, yes/no or on/off")


def from_environment() -> Settings:
    """``ACCELERA_TORCH_MIN_BYTES`` (a size such as '64MB'), ``ACCELERA_TORCH_DEVICE`` (else the default
    device) and ``ACCELERA_TORCH_OUT_OF_CORE``; device memory is the allocator's budget, which
    ``ACCELERA_MEMORY_THRESHOLD`` sets as a fraction of each device's memory."""
    min_bytes = os.environ.get("ACCELERA_TORCH_MIN_BYTES", "").strip() or DEFAULT_MIN_BYTES
    device = os.environ.get("ACCELERA_TORCH_DEVICE", "").strip() or None
    try:
        return Settings.checked(min_bytes, device, _env_flag("ACCELERA_TORCH_OUT_OF_CORE", True))
    except _core.Error as err:
        err.add_note("while reading ACCELERA_TORCH_MIN_BYTES, ACCELERA_TORCH_DEVICE, ACCELERA_TORCH_OUT_OF_CORE")
        raise
