"""The router: a TorchFunctionMode that sends PyTorch's matrix products and element-wise add/mul to Accelera
when it pays, and passes every other call through untouched.

Note [Router decisions]: a call is routed when its operands are plain tensors (a subclass with its own
``__torch_function__`` keeps its semantics), on one device, of one floating dtype Accelera computes, with
shapes PyTorch accepts, no ``out=``, and together with the result at least ``min_bytes``. Then:
- products of host tensors go to the target device, in core when they fit its free memory, streamed by the
  MatrixEngine when not (``out_of_core``; else they pass through);
- products of CUDA tensors run on their own GPU when that is the target;
- add and mul run where their operands live (the bus is slower than the CPU reading host memory, so an
  element-wise op of host tensors never pays on a device).
Everything else is PyTorch's own call, so PyTorch raises its own errors for mixed devices, dtypes and shapes.
Routed calls go through ``torch.ops.accelera.*``, whose autograd formulas keep training and ``torch.compile``
working.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

from . import _compute, _ops, _stats
from ._settings import Settings

_FLOAT_DTYPES = frozenset(_compute.DTYPE_NAMES)
_TENSOR_KINDS = (torch.Tensor, torch.nn.Parameter)


def _reason_for_operands(tensors) -> str | None:
    """Why these operands cannot be routed, or None."""
    first = tensors[0]
    for t in tensors:
        if type(t) not in _TENSOR_KINDS:
            return "operand is not a tensor"
        if t.dtype != first.dtype:
            return "mixed dtypes"
        if t.device != first.device:
            return "mixed devices"
    if first.dtype not in _FLOAT_DTYPES:
        return "dtype"
    if first.device.type not in ("cpu", "cuda"):
        return "device"
    return None


class Router(TorchFunctionMode):
    """``with accelera.torch.intercept(...)``: see :func:`accelera.torch.intercept`."""

    def __init__(self, settings: Settings):
        super().__init__()
        self.settings = settings

    def __torch_function__(self, func, types, args=(), kwargs=None):
        # Every PyTorch call made in the mode comes here: the path of a call that passes through is kept short.
        handler = _HANDLERS.get(func)
        if handler is not None:
            if not types or all(t in _TENSOR_KINDS for t in types):
                routed = handler(self.settings, args, kwargs)
                if routed is not None:
                    return routed
            else:  # a tensor subclass with its own __torch_function__ decides for itself
                _stats.passed("tensor subclass")
        if kwargs:
            return func(*args, **kwargs)
        return func(*args)

    def __repr__(self) -> str:
        s = self.settings
        return f"accelera.torch.intercept(min_bytes={s.min_bytes}, device={s.device!r}, out_of_core={s.out_of_core})"


def _pass(reason: str):
    _stats.passed(reason)
    return None


def _small(settings: Settings, tensors, out_numel: int) -> bool:
    """Whether the operands and the result together fall short of ``min_bytes`` (most calls do: this test
    comes first and is kept cheap)."""
    total = out_numel
    for t in tensors:
        total += t.numel()
    return total * tensors[0].element_size() < settings.min_bytes


def _route_product(settings: Settings, tensors, shape_of, call):
    """Routes a matrix product that is not small (Note [Router decisions]); None passes the call through.
    ``shape_of()`` is the result's shape, None where PyTorch would refuse the operands; ``call(device,
    out_of_core)`` runs the operator."""
    first = tensors[0]
    reason = _reason_for_operands(tensors)
    if reason is not None:
        return _pass(reason)
    shape = shape_of()
    if shape is None:
        return _pass("shapes")
    target = settings.target()
    space = _compute.memory_space(first)
    if space != "cpu" and space != target:
        return _pass("operands on another device")
    try:
        _compute.work_dtype(target, "matmul", _compute.DTYPE_NAMES[first.dtype])
    except _compute.NotSupportedError:
        return _pass("dtype not computed on the device")
    if space == "cpu" and target != "cpu" and not settings.out_of_core:
        size = first.element_size() * (sum(t.numel() for t in tensors) + _numel(shape))
        if size > _compute.headroom(target):
            return _pass("too large for the device")
    _stats.routed()
    return call(settings.device, settings.out_of_core)


def _product_numel(a, b) -> int:
    """The element count of a @ b, assuming the shapes agree (mismatched shapes are refused later): batch
    axes broadcast, 1-D operands lose their axis."""
    if a.ndim == 2 and b.ndim == 2:
        return a.shape[0] * b.shape[1]
    a, b = a.shape, b.shape
    n = (a[-2] if len(a) > 1 else 1) * (b[-1] if len(b) > 1 else 1)
    for i in range(3, max(len(a), len(b)) + 1):
        n *= max(a[-i] if i <= len(a) else 1, b[-i] if i <= len(b) else 1)
    return n


def _numel(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _shape_or_none(fn, *args):
    try:
        return fn(*args)
    except _compute.ShapeError:
        return None


def _matmul(settings, args, kwargs):
    if kwargs or len(args) != 2:
        return _pass("arguments")
    a, b = args
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        return _pass("operand is not a tensor")
    if a.ndim == 0 or b.ndim == 0:
        return _pass("shapes")
    if (a.numel() + b.numel() + _product_numel(a, b)) * a.element_size() < settings.min_bytes:
        return _pass("small")
    return _route_product(settings, args, lambda: _shape_or_none(_compute.matmul_shape, a.shape, b.shape),
                          lambda device, out_of_core: _ops.matmul(a, b, device, out_of_core))


def _rmatmul(settings, args, kwargs):
    return _matmul(settings, args[::-1], kwargs)


def _ranked_product(op, rank):
    def handler(settings, args, kwargs):
        if kwargs or len(args) != 2:
            return _pass("arguments")
        a, b = args
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return _pass("operand is not a tensor")
        if a.ndim != rank or b.ndim != rank:
            return _pass("shapes")
        if (a.numel() + b.numel() + _product_numel(a, b)) * a.element_size() < settings.min_bytes:
            return _pass("small")
        if rank == 3 and a.shape[0] != b.shape[0]:
            return _pass("shapes")
        return _route_product(settings, args, lambda: _shape_or_none(_compute.matmul_shape, a.shape, b.shape),
                              lambda device, out_of_core: op(a, b, device, out_of_core))
    return handler


def _addmm(settings, args, kwargs):
    kwargs = dict(kwargs or {})
    beta, alpha = kwargs.pop("beta", 1), kwargs.pop("alpha", 1)
    if len(args) != 3 or kwargs:
        return _pass("arguments")
    bias, a, b = args
    if not all(isinstance(t, torch.Tensor) for t in args):
        return _pass("operand is not a tensor")
    if not all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in (beta, alpha)):
        return _pass("arguments")
    if a.ndim != 2 or b.ndim != 2:
        return _pass("shapes")

    def shape_of():
        shape = _shape_or_none(_compute.matmul_shape, a.shape, b.shape)
        if shape is not None and _shape_or_none(_compute.broadcast_shapes, bias.shape, shape) != shape:
            return None
        return shape
    if _small(settings, args, _product_numel(a, b)):
        return _pass("small")
    return _route_product(settings, args, shape_of,
                          lambda device, out_of_core: _ops.addmm(bias, a, b, float(beta), float(alpha), device,
                                                                 out_of_core))


def _linear(settings, args, kwargs):
    kwargs = dict(kwargs or {})
    if len(args) == 3:
        x, weight, bias = args
    elif len(args) == 2:
        (x, weight), bias = args, kwargs.pop("bias", None)
    else:
        return _pass("arguments")
    if kwargs:
        return _pass("arguments")
    tensors = (x, weight) if bias is None else (x, weight, bias)
    if not all(isinstance(t, torch.Tensor) for t in tensors):
        return _pass("operand is not a tensor")
    if weight.ndim != 2 or x.ndim == 0 or x.shape[-1] != weight.shape[1] or (
            bias is not None and tuple(bias.shape) not in ((weight.shape[0],), (1,), ())):
        return _pass("shapes")
    out_numel = (x.numel() // x.shape[-1] if x.shape[-1] else _numel(x.shape[:-1])) * weight.shape[0]
    if _small(settings, tensors, out_numel):
        return _pass("small")
    return _route_product(settings, tensors, lambda: tuple(x.shape[:-1]) + (weight.shape[0],),
                          lambda device, out_of_core: _ops.linear(x, weight, bias, device, out_of_core))


def _elementwise(op):
    def handler(settings, args, kwargs):
        alpha = 1
        if kwargs:
            kwargs = dict(kwargs or {})
            alpha = kwargs.pop("alpha", 1) if op is _ops.add else 1
            if kwargs or isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
                return _pass("arguments")
        if len(args) != 2:
            return _pass("arguments")
        a, b = args
        scalar = None
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            tensors = args
            if a.shape == b.shape:
                out_numel = a.numel()
            else:
                shape = _shape_or_none(_compute.broadcast_shapes, a.shape, b.shape)
                if shape is None:
                    return _pass("shapes")
                out_numel = _numel(shape)
        elif isinstance(a, torch.Tensor) and _is_scalar(b):
            scalar, tensors, out_numel = b, (a,), a.numel()
        elif isinstance(b, torch.Tensor) and _is_scalar(a):
            scalar, tensors, out_numel = a, (b,), b.numel()
        else:
            return _pass("operand is not a tensor")
        if _small(settings, tensors, out_numel):
            return _pass("small")
        reason = _reason_for_operands(tensors)
        if reason is not None:
            return _pass(reason)
        first = tensors[0]
        if _compute.memory_space(first) != settings.target():
            return _pass("element-wise op away from the target device")
        _stats.routed()
        if scalar is not None:  # a Python number takes the tensor's floating dtype, as in PyTorch
            number = torch.full((), scalar, dtype=first.dtype, device=first.device)
            a, b = (first, number) if b is scalar else (number, first)
        if op is _ops.add:
            return op(a, b, float(alpha), settings.device)
        return op(a, b, settings.device)
    return handler


def _is_scalar(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)




_HANDLERS = {
    torch.matmul: _matmul, torch.Tensor.matmul: _matmul, torch.Tensor.__matmul__: _matmul,
    torch.Tensor.__rmatmul__: _rmatmul,
    torch.mm: _ranked_product(_ops.mm, 2), torch.Tensor.mm: _ranked_product(_ops.mm, 2),
    torch.bmm: _ranked_product(_ops.bmm, 3), torch.Tensor.bmm: _ranked_product(_ops.bmm, 3),
    torch.addmm: _addmm, torch.Tensor.addmm: _addmm,
    F.linear: _linear,
    torch.add: _elementwise(_ops.add), torch.Tensor.add: _elementwise(_ops.add),
    torch.Tensor.__add__: _elementwise(_ops.add), torch.Tensor.__radd__: _elementwise(_ops.add),
    torch.mul: _elementwise(_ops.mul), torch.Tensor.mul: _elementwise(_ops.mul),
    torch.Tensor.__mul__: _elementwise(_ops.mul), torch.Tensor.__rmul__: _elementwise(_ops.mul),
}
