"""Checks of the plain arguments of public functions (flags, numbers, axes): a wrong argument is an
accelera.Error (which also derives from the built-in exception a Python user expects), never a bare
TypeError or ValueError from a conversion deep inside."""

from __future__ import annotations

import numbers

import numpy as np

from . import _core
from ._core import ArgumentError, DTypeError

_INT64 = (-(2**63), 2**63 - 1)


def flag(value, name: str) -> bool:
    """A bool (Python's or NumPy's)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise DTypeError(f"{name} must be True or False, not {type(value).__name__}")


def real(value, name: str) -> float:
    """A real number (not a bool), as a float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise DTypeError(f"{name} must be a real number, not {type(value).__name__}")
    return float(value)


def integer(value, name: str) -> int:
    """An integer (not a bool) within int64."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise DTypeError(f"{name} must be an integer, not {type(value).__name__}")
    value = int(value)
    if not _INT64[0] <= value <= _INT64[1]:
        raise ArgumentError(f"{name} = {value} is out of range (int64)")
    return value


def text(value, name: str) -> str:
    if not isinstance(value, str):
        raise DTypeError(f"{name} must be a string, not {type(value).__name__}")
    return value


def parse_bytes(value) -> int | None:
    """None, an int, or a size such as '512MB', '2GiB', '1.5GB' (read as the command line reads --budget)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ArgumentError("a memory budget is a number of bytes or a size such as '2GB'")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, str):
        return _core._parse_size(value)
    raise ArgumentError(f"cannot read {value!r} as a size: use bytes or e.g. '512MB', '2GB', '1GiB'")
