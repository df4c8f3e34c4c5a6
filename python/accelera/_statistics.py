"""Reductions, statistics and searching beyond sum/mean/max: min, prod, var, std, all, any, count_nonzero,
diff, argmax, argmin, cumulative_sum, cumulative_prod, nonzero.

They run on the operand's device through the C++ ops; ``axis`` is an integer, a tuple of integers or None
(every axis), as in the array API standard.
"""

from __future__ import annotations

import math
import numbers

from . import _core
from ._args import flag, integer
from ._core import ArgumentError, DTypeError, Tensor
from ._dtypes import dtype as _dtype
from ._ops import _axes, _tensor


def min(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001 - NumPy's name
    """Smallest element; a nan makes the result nan. An empty selection is a ValueError."""
    return _core.min(_tensor(x), _axes(axis), flag(keepdims, "keepdims"))


def prod(x, axis=None, keepdims: bool = False) -> Tensor:
    """Product; bool and signed integers multiply as int64, unsigned ones as uint64 (wrapping, as NumPy); the
    empty product is 1."""
    return _core.prod(_tensor(x), _axes(axis), flag(keepdims, "keepdims"))


def _correction(correction, ddof) -> float:
    if ddof is not None:
        if correction != 0:
            raise ArgumentError("give correction or ddof, not both")
        correction = ddof
    if isinstance(correction, bool) or not isinstance(correction, numbers.Real):
        raise DTypeError(f"correction must be a real number, not {correction!r}")
    if not math.isfinite(correction) or correction < 0:
        raise ArgumentError(f"correction must be a finite number >= 0, not {correction!r}")
    return float(correction)


def var(x, axis=None, correction=0.0, keepdims: bool = False, *, ddof=None) -> Tensor:
    """Variance: the mean squared deviation, divided by (count - correction) instead of count when
    ``correction`` (NumPy's ``ddof``) is set. Integers and bool compute in float64."""
    return _core.var(_tensor(x), _axes(axis), _correction(correction, ddof), flag(keepdims, "keepdims"))


def std(x, axis=None, correction=0.0, keepdims: bool = False, *, ddof=None) -> Tensor:
    """Standard deviation: the square root of :func:`var`."""
    return _core.std(_tensor(x), _axes(axis), _correction(correction, ddof), flag(keepdims, "keepdims"))


def all(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001 - the standard's name
    """Whether every element is nonzero (nan counts as nonzero); True for an empty selection."""
    return _core.all(_tensor(x), _axes(axis), flag(keepdims, "keepdims"))


def any(x, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001 - the standard's name
    """Whether some element is nonzero; False for an empty selection."""
    return _core.any(_tensor(x), _axes(axis), flag(keepdims, "keepdims"))


def count_nonzero(x, axis=None, keepdims: bool = False) -> Tensor:
    """The number of nonzero elements, as int64."""
    return _core.count_nonzero(_tensor(x), _axes(axis), flag(keepdims, "keepdims"))


def _single_axis(axis):
    if axis is None:
        return None
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise DTypeError(f"axis must be an integer or None, not {axis!r}")
    return integer(axis, "axis")


def argmax(x, axis=None, keepdims: bool = False) -> Tensor:
    """Index (int64) of the first largest element along ``axis``, or in the flattened array when axis is
    None; a nan counts as the largest. An empty selection is a ValueError."""
    return _core.argmax(_tensor(x), _single_axis(axis), flag(keepdims, "keepdims"))


def argmin(x, axis=None, keepdims: bool = False) -> Tensor:
    """Index (int64) of the first smallest element; a nan counts as the smallest."""
    return _core.argmin(_tensor(x), _single_axis(axis), flag(keepdims, "keepdims"))


def diff(x, axis: int = -1, n: int = 1) -> Tensor:
    """The n-th forward difference along ``axis``: out[i] = x[i + 1] - x[i], applied n times."""
    x = _tensor(x)
    n = integer(n, "n")
    if n < 0:
        raise ArgumentError(f"diff: n must be >= 0, not {n}")
    if x.ndim == 0:
        raise ArgumentError("diff needs an array of at least one dimension")
    axis = integer(axis, "axis")
    if not -x.ndim <= axis < x.ndim:
        raise IndexError(f"diff: axis {axis} is out of range for {x.ndim} dimensions")
    axis %= x.ndim
    for _ in range(n):
        head = tuple(slice(None) if d != axis else slice(1, None) for d in range(x.ndim))
        tail = tuple(slice(None) if d != axis else slice(None, -1) for d in range(x.ndim))
        x = _core.subtract(x[head], x[tail])
    return x


def _cumulative(core_function, x, axis, dtype, include_initial) -> Tensor:
    x = _tensor(x)
    name = None if dtype is None else _dtype(dtype).name
    return core_function(x, _single_axis(axis), name, flag(include_initial, "include_initial"))


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial: bool = False) -> Tensor:
    """Running sums along ``axis`` (required unless x is 1-d). bool and signed integers accumulate in int64,
    unsigned ones in uint64, floats in float64 on the CPU; ``include_initial`` prepends the 0 of the empty sum."""
    return _cumulative(_core.cumulative_sum, x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial: bool = False) -> Tensor:
    """Running products along ``axis``, as cumulative_sum; ``include_initial`` prepends 1."""
    return _cumulative(_core.cumulative_prod, x, axis, dtype, include_initial)


def nonzero(x, /) -> tuple[Tensor, ...]:
    """The coordinates of the nonzero elements in row-major order, one int64 tensor per axis. The count is
    read back from the device once (it is the results' length)."""
    return tuple(_core.nonzero(_tensor(x)))


def _install() -> None:
    """Tensor methods of the same names (x.min(), x.std(axis=0), ...)."""
    Tensor.min = lambda self, axis=None, keepdims=False: min(self, axis, keepdims)
    Tensor.prod = lambda self, axis=None, keepdims=False: prod(self, axis, keepdims)
    Tensor.var = lambda self, axis=None, correction=0.0, keepdims=False, *, ddof=None: var(
        self, axis, correction, keepdims, ddof=ddof)
    Tensor.std = lambda self, axis=None, correction=0.0, keepdims=False, *, ddof=None: std(
        self, axis, correction, keepdims, ddof=ddof)
    Tensor.all = lambda self, axis=None, keepdims=False: all(self, axis, keepdims)
    Tensor.argmax = lambda self, axis=None, keepdims=False: argmax(self, axis, keepdims)
    Tensor.argmin = lambda self, axis=None, keepdims=False: argmin(self, axis, keepdims)
    Tensor.any = lambda self, axis=None, keepdims=False: any(self, axis, keepdims)


_install()
