"""Python-side methods of Tensor: dtype objects, NumPy conversion, operators."""

from __future__ import annotations

import numpy as np

from . import _ops
from ._core import DTypeError, Tensor
from ._convert import device_or_default
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
    t.__add__ = lambda a, b: _ops.add(a, b)
    t.__radd__ = lambda a, b: _ops.add(b, a)
    t.__sub__ = lambda a, b: _ops.subtract(a, b)
    t.__rsub__ = lambda a, b: _ops.subtract(b, a)
    t.__mul__ = lambda a, b: _ops.multiply(a, b)
    t.__rmul__ = lambda a, b: _ops.multiply(b, a)
    t.__truediv__ = lambda a, b: _ops.divide(a, b)
    t.__rtruediv__ = lambda a, b: _ops.divide(b, a)
    t.__matmul__ = lambda a, b: _ops.matmul(a, b)
    t.__rmatmul__ = lambda a, b: _ops.matmul(b, a)
    t.__neg__ = lambda a: _ops.negative(a)
    t.__pos__ = lambda a: a
    t.sum = lambda self, axis=None, keepdims=False: _ops.sum(self, axis, keepdims)
    t.mean = lambda self, axis=None, keepdims=False: _ops.mean(self, axis, keepdims)
    t.max = lambda self, axis=None, keepdims=False: _ops.max(self, axis, keepdims)
    t.exp = lambda self: _ops.exp(self)
    t.log = lambda self: _ops.log(self)
    t.tanh = lambda self: _ops.tanh(self)
    # NumPy must not treat a Tensor as a sequence of scalars when it is the right-hand operand.
    t.__array_priority__ = 1000
    from ._protocols import install_numpy_protocols  # Note [NumPy protocols]: np.exp(t) runs accelera.exp

    install_numpy_protocols(t)


_install()
