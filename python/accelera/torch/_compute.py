"""Accelera's side of the PyTorch operators: torch tensors in, torch tensors out.

Operands are shared with Accelera through DLPack (no copy on the host; on CUDA with the stream protocol, so
that neither side reads before the other has written). Note [Where a routed call runs]:
- operands that live where the target computes (CPU tensors with the ``cpu`` target, CUDA tensors with
  ``cuda:N``) are computed in place;
- host operands with a device target are uploaded, computed and downloaded when they fit the device's free
  memory (within Accelera's budget), and streamed in tiles by the MatrixEngine when they do not;
- float16 and bfloat16 matmuls on a device without those kernels (the CPU, OpenCL) compute in float32 and
  round once, as PyTorch's CPU kernels do.
"""

from __future__ import annotations

import threading

import numpy as np
import torch

from .. import _core
from .._convert import from_dlpack
from .._core import DeviceError, DTypeError, NotSupportedError, ShapeError
from ..engine import MatrixEngine
from . import _stats

DTYPE_NAMES = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
               torch.bfloat16: "bfloat16"}
_TORCH_DTYPES = {name: dt for dt, name in DTYPE_NAMES.items()}
_HALF = ("float16", "bfloat16")

_engines: dict[str, MatrixEngine] = {}
_engines_lock = threading.Lock()


def engine_for(device: str) -> MatrixEngine:
    """One MatrixEngine per device, shared by every streamed call (its plan cache and staging buffers)."""
    with _engines_lock:
        engine = _engines.get(device)
        if engine is None:
            engine = _engines[device] = MatrixEngine(device=device, enable_progress=False)
        return engine


def to_accelera(t: torch.Tensor) -> _core.Tensor:
    return from_dlpack(t.detach())


def to_torch(x: _core.Tensor) -> torch.Tensor:
    return torch.from_dlpack(x)


def dtype_name(*tensors: torch.Tensor) -> str:
    """The one dtype of the operands (Accelera's name); mixed or unsupported dtypes are a DTypeError."""
    first = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype != first:
            raise DTypeError(f"operands have different dtypes ({first} and {t.dtype}); convert one first")
    name = DTYPE_NAMES.get(first)
    if name is None:
        raise DTypeError(f"Accelera's PyTorch operators take float32, float64, float16 and bfloat16, not {first}")
    return name


def memory_space(t: torch.Tensor) -> str:
    """Where a torch tensor's memory is, as an Accelera device ('cpu' or 'cuda:N')."""
    if t.device.type == "cpu":
        return "cpu"
    if t.device.type == "cuda":
        return f"cuda:{t.device.index if t.device.index is not None else torch.cuda.current_device()}"
    raise DeviceError(f"Accelera takes torch tensors on the CPU or on CUDA devices, not on {t.device}")


def target_for(tensors, device: str | None) -> str:
    """The Accelera device that computes: ``device`` (default: Accelera's default device) for host tensors;
    the tensors' own GPU for CUDA tensors (naming another device is a DeviceError)."""
    spaces = {memory_space(t) for t in tensors}
    if len(spaces) != 1:
        raise DeviceError(f"operands are on different devices ({', '.join(sorted(spaces))})")
    space = spaces.pop()
    if space == "cpu":
        return _core._parse_device(device) if device is not None else _core.default_device()
    if device is not None and _core._parse_device(device) != space:
        raise DeviceError(f"operands live on {space}; Accelera cannot compute them on {device}")
    return space


def work_dtype(device: str, op: str, name: str) -> str:
    """The dtype the kernel runs in: the operands' own, or float32 for halves where the device lacks them."""
    if _core._supports(device, op, name):
        return name
    if name in _HALF and _core._supports(device, op, "float32"):
        return "float32"
    raise NotSupportedError(f"{op} has no {name} kernel on {device}")


def headroom(device: str) -> int:
    """Bytes Accelera can still allocate on ``device``: its budget less what it holds, and no more than the
    driver's free memory plus Accelera's cached blocks (other processes, PyTorch's cache included)."""
    stats = _core.memory_stats(device)
    within_budget = stats["budget_bytes"] - stats["current_bytes"]
    for info in _core.devices():
        if info["device"] == device:
            return max(0, min(within_budget, info["free_memory"] + stats["cached_bytes"]))
    raise DeviceError(f"device {device} does not answer")


def nbytes(*tensors: torch.Tensor) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


def run(device: str, fn, *tensors: torch.Tensor, work: str) -> torch.Tensor:
    """``fn`` of the operands computed on ``device`` in core: in place when the operands live there, else
    uploaded and the result downloaded. Returns the result as a torch tensor in the operands' dtype."""
    name = DTYPE_NAMES[tensors[0].dtype]
    operands = [to_accelera(t) for t in tensors]
    if work != name:
        operands = [x._astype(work) for x in operands]
    here = memory_space(tensors[0]) == device
    moved_in = 0 if here else sum(x.nbytes for x in operands)
    if not here:
        operands = [x.to(device) for x in operands]
    result = fn(*operands)
    moved_out = 0
    if not here:
        moved_out = result.nbytes
        result = result.to("cpu")
    if work != name:
        result = result._astype(name)
    _stats.ran(False, moved_in, moved_out)
    return to_torch(result)


def broadcast_shapes(a, b) -> tuple:
    """NumPy's (and PyTorch's) broadcast of two shapes; a ShapeError where they do not broadcast. Plain
    Python: torch.broadcast_shapes costs tens of microseconds a call."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise ShapeError(f"shapes {a} and {b} do not broadcast")
        out.append(y if x == 1 else x)
    return tuple(out)


def matmul_shape(a: torch.Size, b: torch.Size) -> tuple:
    """torch.matmul's result shape (1-D operands promoted and the added axis dropped, batch axes
    broadcast); a ShapeError where PyTorch would raise."""
    if len(a) == 0 or len(b) == 0:
        raise ShapeError("matmul: both operands need at least one dimension")
    a1 = (1,) + tuple(a) if len(a) == 1 else tuple(a)
    b1 = tuple(b) + (1,) if len(b) == 1 else tuple(b)
    if a1[-1] != b1[-2]:
        raise ShapeError(f"matmul: shapes {tuple(a)} and {tuple(b)} cannot be multiplied ({a1[-1]} != {b1[-2]})")
    try:
        batch = broadcast_shapes(a1[:-2], b1[:-2])
    except ShapeError as err:
        raise ShapeError(f"matmul: batch dimensions of {tuple(a)} and {tuple(b)} do not broadcast") from err
    out = batch + (a1[-2], b1[-1])
    if len(a) == 1:
        out = out[:-2] + out[-1:]
    if len(b) == 1:
        out = out[:-1]
    return out


def matmul(a: torch.Tensor, b: torch.Tensor, device: str | None, out_of_core: bool) -> torch.Tensor:
    """torch.matmul's semantics, computed by Accelera (Note [Where a routed call runs])."""
    name = dtype_name(a, b)
    out_shape = matmul_shape(a.shape, b.shape)
    target = target_for((a, b), device)
    work = work_dtype(target, "matmul", name)
    if a.numel() == 0 or b.numel() == 0:  # an empty product, or a sum over nothing: zeros
        return torch.zeros(out_shape, dtype=a.dtype, device=a.device)
    if memory_space(a) == target or not out_of_core:
        return run(target, _core.matmul, a, b, work=work)
    work_size = np.dtype(work).itemsize
    total = (a.numel() + b.numel() + int(np.prod(out_shape))) * work_size
    if total <= headroom(target):
        return run(target, _core.matmul, a, b, work=work)
    return _streamed_matmul(a, b, out_shape, target, work)


def _streamed_matmul(a, b, out_shape, device: str, work: str) -> torch.Tensor:
    """Host operands too large for the device: each 2-D product goes through the MatrixEngine, which tiles
    it to the device's free memory. A batch of matrices times one matrix is folded into a single product."""
    a1 = a.unsqueeze(0) if a.ndim == 1 else a
    b1 = b.unsqueeze(-1) if b.ndim == 1 else b
    batch = broadcast_shapes(a1.shape[:-2], b1.shape[:-2])
    m, n = a1.shape[-2], b1.shape[-1]
    out = torch.empty(batch + (m, n), dtype=_TORCH_DTYPES[work])
    engine = engine_for(device)
    convert = (lambda t: t) if DTYPE_NAMES[a.dtype] == work else (lambda t: t.to(_TORCH_DTYPES[work]))
    if b1.ndim == 2 and a1.ndim > 2 and a1.is_contiguous():
        pairs = [(a1.reshape(-1, a1.shape[-1]), b1, out.view(-1, n))]
    else:
        a_all = a1.expand(batch + tuple(a1.shape[-2:]))
        b_all = b1.expand(batch + tuple(b1.shape[-2:]))
        pairs = [(a_all[i], b_all[i], out[i]) for i in np.ndindex(*batch)] if batch else [(a1, b1, out)]
    for lhs, rhs, dst in pairs:
        engine.matmul(to_accelera(convert(lhs)), to_accelera(convert(rhs)), out=to_accelera(dst))
        run_stats = engine.last_run
        _stats.ran(run_stats["streamed"], run_stats["bytes_host_to_device"], run_stats["bytes_device_to_host"])
    out = out.reshape(out_shape)
    return out if out.dtype == a.dtype else out.to(a.dtype)


def elementwise(op: str, a: torch.Tensor, b: torch.Tensor, device: str | None) -> torch.Tensor:
    """``add`` or ``multiply`` with broadcasting, computed by Accelera where the operands live (or on
    ``device`` for host operands)."""
    name = dtype_name(a, b)
    target = target_for((a, b), device)
    shape = broadcast_shapes(a.shape, b.shape)
    if a.numel() == 0 or b.numel() == 0:
        return torch.empty(shape, dtype=a.dtype, device=a.device)
    kernel = _core.add if op == "add" else _core.multiply
    return run(target, kernel, a, b, work=work_dtype(target, op, name))
