"""Python-side methods of Tensor: dtype objects, NumPy conversion, operators."""

from __future__ import annotations

import numpy as np

import numbers

from . import _core, _elementwise as _ew, _ops
from ._core import DTypeError, ShapeError, Tensor
from ._convert import _INTEGER_BOUNDS, device_or_default
from ._dtypes import _BY_NAME, dtype as _dtype


def _numpy(self: Tensor) -> np.ndarray:
    """The tensor as a NumPy array: zero-copy for a CPU tensor, a host copy for a device tensor."""
    host = self if self.device == "cpu" else self.to("cpu")
    if host._dtype == "bfloat16":
        raise DTypeError("NumPy has no bfloat16: convert first with .astype('float32')")
    return np.from_dlpack(host)


def _array(self: Tensor, dtype=None, copy=None) -> np.ndarray:
    arr = _numpy(self)
    if dtype is not None:
        arr = arr.astype(dtype, copy=False)
    return arr.copy() if copy else arr


def _astype(self: Tensor, dtype) -> Tensor:
    return self._astype(_dtype(dtype).name)


def _to(self: Tensor, device) -> Tensor:
    """This tensor on ``device`` ("cpu", "cuda:0", ...): itself if already there, else a copy."""
    return self._to(device_or_default(device))


def _iter(self: Tensor):
    for i in range(len(self)):
        yield self[i]


def _operand(x) -> bool:
    """Whether x can be the other operand of an operator: a tensor, a Python or NumPy number, an array."""
    return isinstance(x, (Tensor, numbers.Number, np.ndarray, np.generic, list, tuple)) or hasattr(x, "__dlpack__")


def _operator(fn, reflected: bool = False):
    """A binary operator over ``fn``: another operand that is no number or array raises the op's typed
    error (a DTypeError, which is a TypeError)."""
    if reflected:
        return lambda a, b: fn(b, a)
    return lambda a, b: fn(a, b)


def _equality(fn):
    """== and != : NotImplemented for operands that are no number or array, so that Python falls back to
    identity (``t == None`` is False, as for NumPy arrays)."""
    return lambda a, b: fn(a, b) if _operand(b) else NotImplemented


def _inplace(fn):
    """``a op= b``: computes ``fn(a, b)`` into a new tensor, then writes it into ``a`` itself (views of ``a``
    see the change; an operand overlapping ``a`` is read in full first). The result must have ``a``'s shape
    and dtype (the array API standard's rule: ``int_tensor += 0.5`` is a TypeError, as NumPy's same_kind
    casting makes it)."""

    def op(a, b):
        result = fn(a, b)
        if result._dtype != a._dtype:
            raise DTypeError(f"cannot write the {result._dtype} result of {fn.__name__} into a {a._dtype} "
                             "tensor in place")
        if tuple(result.shape) != tuple(a.shape):
            raise ShapeError(f"the result of {fn.__name__} has shape {tuple(result.shape)}, which cannot be "
                             f"written into a tensor of shape {tuple(a.shape)} in place")
        _core._copy_into(result, a)
        return a

    return op


def _install_operators(t) -> None:
    """The array API standard's operators: arithmetic, comparison, bitwise, their reflected and in-place
    forms."""
    binary = {
        "add": _ops.add, "sub": _ops.subtract, "mul": _ops.multiply, "truediv": _ops.divide,
        "floordiv": _ew.floor_divide, "mod": _ew.remainder, "pow": _ew.pow, "matmul": _ops.matmul,
        "and": _ew.bitwise_and, "or": _ew.bitwise_or, "xor": _ew.bitwise_xor,
        "lshift": _ew.bitwise_left_shift, "rshift": _ew.bitwise_right_shift,
    }
    for name, fn in binary.items():
        setattr(t, f"__{name}__", _operator(fn))
        setattr(t, f"__r{name}__", _operator(fn, reflected=True))
        setattr(t, f"__i{name}__", _inplace(fn))
    comparisons = {
        "eq": _ew.equal, "ne": _ew.not_equal, "lt": _ew.less, "le": _ew.less_equal, "gt": _ew.greater,
        "ge": _ew.greater_equal,
    }
    for name, fn in comparisons.items():
        setattr(t, f"__{name}__", _equality(fn) if name in ("eq", "ne") else _operator(fn))
    t.__hash__ = None  # == is element-wise, so tensors are not hashable (as NumPy's arrays)
    t.__neg__ = lambda a: _ops.negative(a)
    t.__pos__ = lambda a: _ew.positive(a)
    t.__abs__ = lambda a: _ops.abs(a)
    t.__invert__ = lambda a: _ew.bitwise_invert(a)


def _index(self: Tensor) -> int:
    """A 0-d integer tensor as a Python index (``range(n)``, ``items[i]``): the array API's __index__. Other
    tensors raise TypeError, after which NumPy indexes with them as arrays."""
    if self.ndim != 0 or self._dtype not in _INTEGER_BOUNDS:
        raise DTypeError(f"only a 0-d integer tensor is an index, not a {self._dtype} tensor of shape {self.shape}")
    return int(_numpy(self))


def _install() -> None:
    t = Tensor
    t.dtype = property(lambda self: _BY_NAME[self._dtype], doc="The element type, an accelera.DType.")
    t.numpy = _numpy
    t.__array__ = _array
    t.astype = _astype
    t.to = _to
    t.__iter__ = _iter
    t.tolist = lambda self: _numpy(self).tolist()
    t.item = lambda self: _numpy(self).item()
    t.__bool__ = lambda self: bool(_numpy(self))
    t.__float__ = lambda self: float(_numpy(self))
    t.__int__ = lambda self: int(_numpy(self))
    t.__complex__ = lambda self: complex(_numpy(self))
    t.__index__ = _index
    _install_operators(t)
    t.sum = lambda self, axis=None, keepdims=False: _ops.sum(self, axis, keepdims)
    t.mean = lambda self, axis=None, keepdims=False: _ops.mean(self, axis, keepdims)
    t.max = lambda self, axis=None, keepdims=False: _ops.max(self, axis, keepdims)
    t.exp = lambda self: _ops.exp(self)
    t.log = lambda self: _ops.log(self)
    t.tanh = lambda self: _ops.tanh(self)
    t.real = property(lambda self: _ew.real(self), doc="The real parts (a new tensor; NumPy's is a view).")
    t.imag = property(lambda self: _ew.imag(self), doc="The imaginary parts (a new tensor; NumPy's is a view).")
    t.conj = lambda self: _ew.conj(self)
    # NumPy must not treat a Tensor as a sequence of scalars when it is the right-hand operand.
    t.__array_priority__ = 1000
    from ._protocols import install_numpy_protocols  # Note [NumPy protocols]: np.exp(t) runs accelera.exp

    install_numpy_protocols(t)


_install()
