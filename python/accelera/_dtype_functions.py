"""The array API standard's data-type functions for Accelera's dtypes: finfo, iinfo, result_type, can_cast,
isdtype and astype.

Promotion is Accelera's own (the C++ ``promote_types``, which every op uses): the standard's table within a
kind, NumPy's rules across kinds (which the standard leaves unspecified): bool with any dtype gives that
dtype, uint64 with a signed integer gives float64, an integer with a float gives the smallest float of at
least that float's width holding the integer's values, float16 with bfloat16 gives float32. Python scalars are
"weak": they take the dtype of the array beside them when their kind allows it.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ._args import flag
from ._core import ArgumentError, DTypeError, Tensor
from ._dtypes import (DType, bfloat16, bool_, complex64, complex128, dtype as _dtype, float16, float32, float64, int8,
                      int16, int32, int64, uint8, uint16, uint32, uint64)

_FLOATING = (float16, bfloat16, float32, float64)
_COMPLEX = (complex64, complex128)
_SIGNED = (int8, int16, int32, int64)
_UNSIGNED = (uint8, uint16, uint32, uint64)
_INTEGERS = _SIGNED + _UNSIGNED
_SIGNED_OF_SIZE = {d.itemsize: d for d in _SIGNED}
_UNSIGNED_OF_SIZE = {d.itemsize: d for d in _UNSIGNED}


def float_result(a: DType) -> DType:
    """The float dtype a float function gives for ``a`` (mirrors accelera::float_result_dtype): NumPy's
    smallest float that holds the integer type."""
    if a in _FLOATING or a in _COMPLEX:
        return a
    return {1: float16, 2: float32}.get(a.itemsize, float64)


def real_of(a: DType) -> DType:
    """float32 for complex64, float64 for complex128; other dtypes unchanged."""
    return {complex64: float32, complex128: float64}.get(a, a)


def complex_of(a: DType) -> DType:
    """The complex dtype holding ``a``'s values (mirrors accelera::complex_dtype)."""
    if a in _COMPLEX:
        return a
    return complex128 if float_result(a) == float64 else complex64


def _promote_integers(a: DType, b: DType) -> DType:
    if (a in _UNSIGNED) == (b in _UNSIGNED):
        table = _UNSIGNED_OF_SIZE if a in _UNSIGNED else _SIGNED_OF_SIZE
        return table[max(a.itemsize, b.itemsize)]
    unsigned, signed = (a, b) if a in _UNSIGNED else (b, a)
    if signed.itemsize > unsigned.itemsize:
        return signed
    return float64 if unsigned.itemsize == 8 else _SIGNED_OF_SIZE[2 * unsigned.itemsize]


def promote(a: DType, b: DType) -> DType:
    """The dtype of a binary op on ``a`` and ``b`` (mirrors accelera::promote_types in src/core/dtype.cpp)."""
    if a == b:
        return a
    if a == bool_:
        return b
    if b == bool_:
        return a
    if a in _COMPLEX or b in _COMPLEX:
        return complex_of(promote(real_of(a), real_of(b)))
    a_float, b_float = a in _FLOATING, b in _FLOATING
    if not a_float and not b_float:
        return _promote_integers(a, b)
    if a_float != b_float:
        integer, floating = (b, a) if a_float else (a, b)
        needed = float_result(integer)
        if float64 in (floating, needed):
            return float64
        if float32 in (floating, needed):
            return float32
        return floating
    return float64 if float64 in (a, b) else float32


def _is_python_scalar(x) -> bool:
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _weak_scalar_dtype(value, other: DType) -> DType:
    """The dtype a Python scalar takes next to an array of dtype ``other`` (as accelera's binary ops do)."""
    if isinstance(value, bool):
        return other
    if isinstance(value, int):
        return int64 if other == bool_ else other
    if isinstance(value, complex):
        return other if other in _COMPLEX else (complex64 if other in (float16, bfloat16, float32) else complex128)
    return other if other in _FLOATING or other in _COMPLEX else float64


def _dtype_of(x) -> DType:
    """The dtype of an array (anything with a ``dtype``) or a dtype given directly."""
    if isinstance(x, (Tensor, np.ndarray, np.generic)):  # NumPy scalars are arrays here, not weak scalars
        return _dtype(x.dtype)
    return _dtype(x)


def result_type(*arrays_and_dtypes) -> DType:
    """The dtype of an op on all the arguments: arrays, dtypes and (weak) Python scalars."""
    strong = [_dtype_of(x) for x in arrays_and_dtypes if not _is_python_scalar(x)]
    scalars = [x for x in arrays_and_dtypes if _is_python_scalar(x)]
    if not strong:
        raise ArgumentError("result_type needs at least one array or dtype")
    result = strong[0]
    for other in strong[1:]:
        result = promote(result, other)
    for value in scalars:
        result = promote(result, _weak_scalar_dtype(value, result))
    return result


def can_cast(from_, to, /) -> bool:
    """Whether ``from_`` (a dtype or an array) converts to ``to`` under the promotion rules (no value lost)."""
    source, target = _dtype_of(from_), _dtype(to)
    return promote(source, target) == target


_KINDS = {
    "bool": (bool_,),
    "signed integer": _SIGNED,
    "unsigned integer": _UNSIGNED,
    "integral": _INTEGERS,
    "real floating": _FLOATING,
    "complex floating": _COMPLEX,
    "numeric": _INTEGERS + _FLOATING + _COMPLEX,
}


def isdtype(dtype, kind) -> bool:
    """Whether ``dtype`` is of ``kind``: a dtype, a kind name (``"bool"``, ``"signed integer"``,
    ``"unsigned integer"``, ``"integral"``, ``"real floating"``, ``"complex floating"``, ``"numeric"``) or a
    tuple of them."""
    dtype = _dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str) and kind in _KINDS:
        return dtype in _KINDS[kind]
    if isinstance(kind, DType):
        return dtype == kind
    raise ArgumentError(f"isdtype: unknown kind {kind!r}: use a dtype, one of {', '.join(_KINDS)}, or a tuple")


@dataclasses.dataclass(frozen=True)
class finfo_object:  # noqa: N801 - the standard's name
    """Machine limits of a floating dtype (the array API standard's finfo_object)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: DType


@dataclasses.dataclass(frozen=True)
class iinfo_object:  # noqa: N801 - the standard's name
    """Machine limits of an integer dtype (the array API standard's iinfo_object)."""

    bits: int
    max: int
    min: int
    dtype: DType


# NumPy has no bfloat16: 8 exponent bits and 7 stored mantissa bits.
_BFLOAT16_MAX = (2 - 2.0**-7) * 2.0**127
_BFLOAT16 = finfo_object(16, 2.0**-7, _BFLOAT16_MAX, -_BFLOAT16_MAX, 2.0**-126, bfloat16)


def finfo(type, /) -> finfo_object:  # noqa: A002 - the standard's parameter name
    """Limits of a floating dtype (or of an array's dtype); a complex dtype gives those of its parts."""
    dt = real_of(_dtype_of(type))
    if dt not in _FLOATING:
        raise DTypeError(f"finfo expects a floating dtype, not {dt.name}")
    if dt == bfloat16:
        return _BFLOAT16
    info = np.finfo(dt.name)
    return finfo_object(int(info.bits), float(info.eps), float(info.max), float(info.min),
                        float(info.smallest_normal), dt)


def iinfo(type, /) -> iinfo_object:  # noqa: A002 - the standard's parameter name
    """Limits of an integer dtype (or of an array's dtype)."""
    dt = _dtype_of(type)
    if dt not in _INTEGERS:
        raise DTypeError(f"iinfo expects an integer dtype, not {dt.name}")
    info = np.iinfo(dt.name)
    return iinfo_object(int(info.bits), int(info.max), int(info.min), dt)


def astype(x, dtype, /, *, copy: bool = True, device=None) -> Tensor:
    """``x`` converted to ``dtype`` (NumPy's casting: floats to integers truncate) and, if given, moved to
    ``device``; with ``copy=False`` ``x`` itself is returned when nothing needs to change."""
    from ._convert import device_or_default

    if not isinstance(x, Tensor):
        raise DTypeError(f"astype expects an accelera.Tensor, not {type(x).__name__}")
    target = _dtype(dtype)
    copy = flag(copy, "copy")
    where = x.device if device is None else device_or_default(device)
    if target == x.dtype and where == x.device:
        return x.clone() if copy else x
    # Convert where the smaller copy travels: before a move when the target is narrower.
    if where != x.device and target.itemsize < x.itemsize:
        return x._astype(target.name)._to(where)
    moved = x._to(where)
    return moved if target == moved.dtype else moved._astype(target.name)


__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]
