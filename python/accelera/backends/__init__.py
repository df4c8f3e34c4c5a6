"""Backends by name, as the seed's ``get_backend("cuda")``: the fused kernels on one device kind.

``get_backend(name)`` returns a :class:`Backend` for "cpu", "opencl" or "cuda" (optionally with an index,
"opencl:1"), or raises ``DeviceError`` saying why that backend cannot be used ("built without CUDA
support", "no CUDA device found"): there is no silent switch to another device. A Backend's methods move
array-like inputs to its device and run the fused kernels there.
"""

from __future__ import annotations

import time

import numpy as np

from .. import _core, _nn
from .._convert import asarray
from .._core import ArgumentError, DeviceError, DTypeError, Tensor
from .cuda_kernels import get_cuda_kernel_manager
from .opencl_kernels import get_opencl_kernel_manager

_KINDS = ("cpu", "opencl", "cuda")


class Backend:
    """The fused neural-network kernels of one device (obtained from :func:`get_backend`)."""

    def __init__(self, device: str, status: dict):
        self.device = device
        self.name = device.split(":")[0]
        self._device_name = status["name"]

    @property
    def is_available(self) -> bool:
        """True: get_backend raises for a backend that cannot be used, so every Backend object is usable."""
        return True

    @property
    def has_custom_kernels(self) -> bool:
        """Whether this backend implements the fused kernels (otherwise each raises NotSupportedError)."""
        return bool(_core._backend_status(self.device)["has_fused_kernels"])

    @property
    def compiled_kernels(self) -> list[str]:
        return list(_core._backend_status(self.device)["compiled_kernels"])

    def _on_device(self, x):
        if x is None:
            return None
        return asarray(x, device=self.device)

    def gelu(self, x, approximate: str = "none") -> Tensor:
        """GELU on this device; see :func:`accelera.gelu`."""
        return _nn.gelu(self._on_device(x), approximate)

    def fused_linear_gelu(self, x, weight, bias=None, approximate: str = "none") -> Tensor:
        """GELU(x @ weight.T + bias) with weight (out, in); see :func:`accelera.linear_gelu`."""
        return _nn.linear_gelu(self._on_device(x), self._on_device(weight), self._on_device(bias), approximate)

    def layernorm(self, x, w=None, b=None, eps: float = 1e-5) -> Tensor:
        """LayerNorm over the last axis; see :func:`accelera.layer_norm`."""
        return _nn.layer_norm(self._on_device(x), self._on_device(w), self._on_device(b), eps)

    def softmax(self, x, axis: int = -1) -> Tensor:
        return _nn.softmax(self._on_device(x), axis)

    def flash_attention(self, q, k, v, scale=None, block_size: int = 64, causal: bool = False) -> Tensor:
        """Exact flash attention; see :func:`accelera.attention`.

        ``block_size`` is accepted for the seed's signature and must be a positive integer, but the tile
        sizes are the kernels' own (64 on the CPU; sized from local memory on OpenCL and from shared memory
        on CUDA): the result is exact whatever the tiling, so it does not depend on it.
        """
        if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size <= 0:
            raise ArgumentError(f"block_size must be a positive integer, got {block_size!r}")
        return _nn.attention(self._on_device(q), self._on_device(k), self._on_device(v), scale, causal)

    def synchronize(self) -> None:
        _core._synchronize(self.device)

    def benchmark_kernel(self, name: str, tensor, num_runs: int = 10) -> float:
        """Mean time in milliseconds of ``num_runs`` runs of kernel ``name`` on ``tensor`` (after one warm-up
        run, device synchronised around the timed runs). Names: "gelu", "softmax", "layernorm" (weight 1,
        bias 0 over the last axis), "fused_linear_gelu" (a random square weight over the last axis) and
        "flash_attention" (tensor used as q, k and v; 4-D)."""
        if isinstance(num_runs, bool) or not isinstance(num_runs, int) or num_runs <= 0:
            raise ArgumentError(f"num_runs must be a positive integer, got {num_runs!r}")
        x = self._on_device(tensor)
        n = x.shape[-1] if x.ndim else 1
        if name == "fused_linear_gelu":
            weight = self._on_device(np.random.default_rng(0).standard_normal((n, n)).astype(x.dtype.name))
        elif name == "layernorm":
            weight = self._on_device(np.ones(n, dtype=x.dtype.name))
            bias = self._on_device(np.zeros(n, dtype=x.dtype.name))
        runs = {
            "gelu": lambda: self.gelu(x),
            "softmax": lambda: self.softmax(x),
            "layernorm": lambda: self.layernorm(x, weight, bias),
            "fused_linear_gelu": lambda: self.fused_linear_gelu(x, weight),
            "flash_attention": lambda: self.flash_attention(x, x, x),
        }
        if name not in runs:
            raise ArgumentError(f"unknown kernel {name!r}: choose one of {', '.join(runs)}")
        run = runs[name]
        run()
        self.synchronize()
        start = time.perf_counter()
        for _ in range(num_runs):
            run()
        self.synchronize()
        return (time.perf_counter() - start) * 1e3 / num_runs

    def __repr__(self) -> str:
        return f"<accelera backend {self.device} ({self._device_name})>"


def get_backend(name: str = "cpu") -> Backend:
    """The backend of a device kind: "cpu", "opencl" or "cuda", optionally "kind:index".

    Raises DeviceError saying why when the backend is not compiled in or no device answers.
    """
    if not isinstance(name, str):
        raise DTypeError(f"backend name must be a string such as 'cuda', not {type(name).__name__}")
    kind = name.split(":")[0]
    if kind not in _KINDS:
        raise ArgumentError(f"unknown backend {name!r}: choose one of {', '.join(_KINDS)}")
    device = _core._parse_device(name)
    status = _core._backend_status(device)
    if not status["available"]:
        raise DeviceError(f"the {kind} backend is not available: {status['reason']}")
    return Backend(device, status)


def available_backends() -> list[str]:
    """The backend kinds that answer now (the CPU always)."""
    return [k for k in _KINDS if _core._backend_status(k)["available"]]


__all__ = ["Backend", "available_backends", "get_backend", "get_cuda_kernel_manager", "get_opencl_kernel_manager"]
