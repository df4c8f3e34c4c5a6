"""The array API standard's sorting, searching and set functions: sort, argsort, searchsorted,
unique_values, unique_counts, unique_inverse, unique_all and isin (docs/array-api.md).

They run on the operand's device through the C++ ops (src/ops/sort.cpp, src/ops/unique.cpp). Sorting is
always stable, so ``stable=False`` gives the same (stable) result; NaNs sort last in ascending order and first
in descending order; -0.0 and +0.0 are equal. The unique functions count every NaN as a distinct value, as
the standard says (NumPy >= 2 folds NaNs into one); their result sizes depend on the data, so one number is
read back from the device.
"""

from __future__ import annotations

from typing import NamedTuple

from . import _core
from ._args import flag, integer
from ._convert import asarray, coerce_pair, scalar_tensor
from ._core import ArgumentError, DTypeError, Tensor
from ._dtype_functions import result_type
from ._ops import _tensor


class UniqueAllResult(NamedTuple):
    values: Tensor
    indices: Tensor
    inverse_indices: Tensor
    counts: Tensor


class UniqueCountsResult(NamedTuple):
    values: Tensor
    counts: Tensor


class UniqueInverseResult(NamedTuple):
    values: Tensor
    inverse_indices: Tensor


def sort(x, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Tensor:
    """x sorted along ``axis`` (stably in both directions; NaNs last, or first when descending)."""
    flag(stable, "stable")
    return _core.sort(_tensor(x), integer(axis, "axis"), flag(descending, "descending"))


def argsort(x, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Tensor:
    """The int64 positions that sort x along ``axis`` (stable: equal elements keep their order)."""
    flag(stable, "stable")
    return _core.argsort(_tensor(x), integer(axis, "axis"), flag(descending, "descending"))


def searchsorted(x1, x2, /, *, side: str = "left", sorter=None) -> Tensor:
    """For each element of x2, the int64 position in the ascending 1-D x1 (or x1[sorter]) where it would be
    inserted: before equal elements (side="left") or after them ("right"). NaNs count as largest."""
    if not isinstance(side, str):
        raise DTypeError(f"side must be 'left' or 'right', not {type(side).__name__}")
    if side not in ("left", "right"):
        raise ArgumentError(f"side must be 'left' or 'right', not {side!r}")
    x1 = _tensor(x1)
    x2 = x2 if isinstance(x2, Tensor) else asarray(x2, device=x1.device)
    if sorter is not None and not isinstance(sorter, Tensor):
        sorter = asarray(sorter, device=x1.device)
    return _core.searchsorted(x1, x2, side == "right", sorter)


def unique_values(x, /) -> Tensor:
    """The distinct elements of x (flattened), ascending; each NaN is distinct."""
    return _core.unique(_tensor(x), False, False, False)[0]


def unique_counts(x, /) -> UniqueCountsResult:
    values, _, _, counts = _core.unique(_tensor(x), False, False, True)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /) -> UniqueInverseResult:
    values, _, inverse, _ = _core.unique(_tensor(x), False, True, False)
    return UniqueInverseResult(values, inverse)


def unique_all(x, /) -> UniqueAllResult:
    """values, the first index of each in x flattened, the inverse indices (x's shape) and the counts."""
    return UniqueAllResult(*_core.unique(_tensor(x), True, True, True))


# Elements compared at once by isin's complex path (x1's size times a block of x2's).
_EQUALITY_BLOCK = 1 << 22


def _in_by_equality(values: Tensor, pool: Tensor) -> Tensor:
    """Whether each element of ``values`` equals one of the 1-D ``pool``: complex numbers have no order to
    search by, so blocks of the pool are compared with every element."""
    from ._statistics import any as _any

    column = values.reshape((-1, 1))
    found = None
    block = max(1, _EQUALITY_BLOCK // max(1, column.shape[0]))
    for start in range(0, pool.shape[0], block):
        hits = _any(_core.equal(column, pool[start:start + block].reshape((1, -1))), axis=1)
        found = hits if found is None else _core.logical_or(found, hits)
    return found.reshape(values.shape)


def isin(x1, x2, /, *, invert: bool = False) -> Tensor:
    """Whether each element of x1 equals some element of x2 (bool, x1's shape), or equals none with
    ``invert=True``; a nan is in nothing, -0.0 is in x2 when +0.0 is. Both promote to a common dtype; x2 is
    sorted once and each element of x1 found by binary search."""
    invert = flag(invert, "invert")
    x1, x2 = coerce_pair(x1, x2)
    common = result_type(x1, x2)
    values = x1 if x1.dtype == common else x1.astype(common)
    pool = (x2 if x2.dtype == common else x2.astype(common)).reshape((-1,))
    if pool.shape[0] == 0:
        found = _core._full(values.shape, 0.0, "bool", values.device)
    elif common.name.startswith("complex"):
        found = _in_by_equality(values, pool)
    else:
        flat = values.reshape((-1,))
        pool = _core.sort(pool, 0, False)
        at = _core.minimum(_core.searchsorted(pool, flat, False, None),
                           scalar_tensor(pool.shape[0] - 1, "int64", pool.device))
        found = _core.equal(_core.take(pool, at, None), flat).reshape(values.shape)
    return _core.logical_not(found) if invert else found
