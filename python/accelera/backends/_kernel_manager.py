"""Kernel managers: what a backend's run-time compiled kernels are, for the seed's KernelManager API."""

from __future__ import annotations

from .. import _core


class KernelManager:
    """The fused kernels of one backend kind on its first device.

    ``is_available()`` says whether the backend is compiled in and a device answers; ``reason`` says why
    not when it is not. ``compiled_kernels`` lists the device programs built so far in this process
    ("<kernel>|<build options>"; run-time compiled backends only: empty on the CPU).
    """

    def __init__(self, kind: str):
        self._kind = kind

    def _status(self) -> dict:
        return _core._backend_status(self._kind)

    def is_available(self) -> bool:
        return bool(self._status()["available"])

    @property
    def reason(self) -> str:
        """Why the backend is not available ("" when it is)."""
        return self._status()["reason"]

    @property
    def compiled_kernels(self) -> list[str]:
        return list(self._status()["compiled_kernels"])

    def gelu_forward(self, x, approximate: str = "none"):
        """GELU on this backend's device (see :func:`accelera.gelu`); raises DeviceError if unavailable."""
        from . import get_backend

        return get_backend(self._kind).gelu(x, approximate=approximate)

    def __repr__(self) -> str:
        status = self._status()
        state = "available" if status["available"] else f"not available: {status['reason']}"
        return f"<{self._kind} kernel manager, {state}, {len(status['compiled_kernels'])} compiled kernels>"
