"""PyTorch integration: Accelera's operators in PyTorch's registry and a router that sends PyTorch's matrix
products to Accelera when it pays (docs/torch.md).

Three lines make an existing script use Accelera::

    import accelera.torch
    accelera.torch.enable()        # or: with accelera.torch.intercept(): ...
    # torch.matmul, @, mm, bmm, addmm, F.linear / nn.Linear, add and mul now route by size and free memory

Operators (``torch.ops.accelera.matmul``, ``mm``, ``bmm``, ``addmm``, ``linear``, ``add``, ``mul``) work with
autograd and ``torch.compile``; their backward runs through Accelera too, streamed when it does not fit.
"""

from __future__ import annotations

try:
    import torch as _torch  # noqa: F401
except ImportError as _err:  # the only optional dependency of the package: say how to get it
    raise ImportError("accelera.torch needs PyTorch: pip install torch") from _err

import threading as _threading

from .. import _core
from . import _ops, _stats
from ._compute import to_accelera, to_torch
from ._router import Router
from ._settings import DEFAULT_MIN_BYTES, Settings, from_environment

matmul, mm, bmm, addmm, linear, add, mul = _ops.matmul, _ops.mm, _ops.bmm, _ops.addmm, _ops.linear, _ops.add, _ops.mul

# Results handed to PyTorch keep Accelera's memory alive until PyTorch frees them, at exit after Accelera's
# module: that is expected, not a leak.
_core._quiet_exit_report()

_global_lock = _threading.Lock()
_global_router: Router | None = None


def intercept(min_bytes=None, device=None, out_of_core=None) -> Router:
    """A context manager (a ``TorchFunctionMode``) routing the PyTorch calls made inside it.

    ``min_bytes``: calls whose operands and result total fewer bytes pass through (default
    ``ACCELERA_TORCH_MIN_BYTES``, else 16 MiB; a size such as '64MB' is read too). ``device``: Accelera's
    device for host tensors (default ``ACCELERA_TORCH_DEVICE``, else Accelera's default device); CUDA tensors
    are computed on their own GPU. ``out_of_core``: stream products too large for the device (default True,
    ``ACCELERA_TORCH_OUT_OF_CORE``). Nested modes see a call innermost first, as PyTorch documents.
    """
    defaults = from_environment()
    return Router(Settings.checked(defaults.min_bytes if min_bytes is None else min_bytes,
                                   defaults.device if device is None else device,
                                   defaults.out_of_core if out_of_core is None else out_of_core))


def enable(min_bytes=None, device=None, out_of_core=None) -> None:
    """Route PyTorch calls from now on, as the seed's ``accelera.torch.enable()`` (settings as
    :func:`intercept`). PyTorch keeps its function modes per thread: this thread's calls are routed.
    Enabling again replaces the settings."""
    global _global_router
    router = intercept(min_bytes, device, out_of_core)
    with _global_lock:
        if _global_router is not None:
            _leave(_global_router)
        router.__enter__()
        _global_router = router


def disable() -> None:
    """Stop routing what :func:`enable` routed (nothing happens when it is not enabled)."""
    global _global_router
    with _global_lock:
        if _global_router is not None:
            _leave(_global_router)
            _global_router = None


def _leave(router: Router) -> None:
    stack = _torch.overrides._get_current_function_mode_stack()
    if not stack or stack[-1] is not router:
        raise RuntimeError("accelera.torch: another TorchFunctionMode was entered after enable() and is still "
                           "active; leave it before calling disable() or enable()")
    router.__exit__(None, None, None)


def is_enabled() -> bool:
    """Whether :func:`enable` is in effect."""
    return _global_router is not None


def stats() -> dict:
    """What the routers saw and Accelera ran: ``calls`` (of intercepted entry points), ``routed``,
    ``passed_through`` (with ``pass_reasons``), ``accelera_ops`` (operator runs, backward included),
    ``streamed`` (of those, run in several tiles by the MatrixEngine), ``bytes_to_device``,
    ``bytes_from_device`` and ``bytes_moved``."""
    return _stats.snapshot()


def reset_stats() -> None:
    _stats.reset()


__all__ = ["DEFAULT_MIN_BYTES", "Router", "Settings", "add", "addmm", "bmm", "disable", "enable", "intercept",
           "is_enabled", "linear", "matmul", "mm", "mul", "reset_stats", "stats", "to_accelera", "to_torch"]
