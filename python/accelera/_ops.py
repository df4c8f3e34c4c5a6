"""NumPy-style functions over Tensors and array-likes."""

from __future__ import annotations

from collections.abc import Sequence

from . import _core
from ._args import flag, integer
from ._convert import asarray, coerce_pair
from ._core import DTypeError, Tensor


def _tensor(x) -> Tensor:
    return x if isinstance(x, Tensor) else asarray(x)


def _axes(axis) -> list[int] | None:
    if axis is None:
        return None
    if isinstance(axis, bool):
        raise DTypeError("axis must be an integer or a tuple of integers, not bool")
    if isinstance(axis, int):
        return [integer(axis, "axis")]
    if isinstance(axis, Sequence) and all(isinstance(a, int) and not isinstance(a, bool) for a in axis):
        return [integer(a, "axis") for a in axis]
    raise DTypeError(f"axis must be an integer or a tuple of integers, not {axis!r}")


def matmul(a, b) -> Tensor:
    """Matrix product with NumPy's rules (1-D operands, broadcast batch axes); float32/float64."""
    a, b = coerce_pair(a, b)
    return _core.matmul(a, b)


def add(a, b) -> Tensor:
    return _core.add(*coerce_pair(a, b))


def subtract(a, b) -> Tensor:
    return _core.subtract(*coerce_pair(a, b))


def multiply(a, b) -> Tensor:
    return _core.multiply(*coerce_pair(a, b))


def divide(a, b) -> Tensor:
    """True division; integer operands give float64 as in NumPy."""
    return _core.divide(*coerce_pair(a, b))


def maximum(a, b) -> Tensor:
    """Element-wise maximum; a nan operand gives nan (NumPy's maximum, not fmax)."""
    return _core.maximum(*coerce_pair(a, b))


def minimum(a, b) -> Tensor:
    """Element-wise minimum; a nan operand gives nan."""
    return _core.minimum(*coerce_pair(a, b))


def negative(x) -> Tensor:
    return _core.negative(_tensor(x))


def exp(x) -> Tensor:
    return _core.exp(_tensor(x))


def log(x) -> Tensor:
    return _core.log(_tensor(x))


def tanh(x) -> Tensor:
    return _core.tanh(_tensor(x))


def relu(x) -> Tensor:
    return _core.relu(_tensor(x))


def sigmoid(x) -> Tensor:
    return _core.sigmoid(_tensor(x))


def abs(x) -> Tensor:  # noqa: A001 - NumPy's name
    return _core.abs(_tensor(x))


def square(x) -> Tensor:
    return _core.square(_tensor(x))


def sqrt(x) -> Tensor:
    return _core.sqrt(_tensor(x))


def sum(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001 - NumPy's name
    return _core.sum(_tensor(x), _axes(axis), flag(keepdims, "keepdims"))


def mean(x, axis=None, keepdims: bool = False) -> Tensor:
    return _core.mean(_tensor(x), _axes(axis), flag(keepdims, "keepdims"))


def max(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001 - NumPy's name
    return _core.max(_tensor(x), _axes(axis), flag(keepdims, "keepdims"))


def take(x, indices, axis=None) -> Tensor:
    """Elements of x at ``indices`` (int32/int64; negative ones count from the end) along ``axis``, or of x
    flattened when axis is None: shape x.shape[:axis] + indices.shape + x.shape[axis + 1:]. An index out of
    range raises IndexError (accelera.IndexOutOfBoundsError)."""
    x = _tensor(x)
    indices = indices if isinstance(indices, Tensor) else asarray(indices, device=x.device)
    return _core.take(x, indices, None if axis is None else integer(axis, "axis"))


def take_along_axis(x, indices, axis: int = -1) -> Tensor:
    """out[..., j, ...] = x[..., indices[..., j, ...], ...] along ``axis`` (the array API's take_along_axis);
    indices has x's number of dimensions and broadcasts with x along the others."""
    x = _tensor(x)
    indices = indices if isinstance(indices, Tensor) else asarray(indices, device=x.device)
    return _core.take_along_axis(x, indices, integer(axis, "axis"))
