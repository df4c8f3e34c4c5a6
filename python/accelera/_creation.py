"""The array API standard's creation functions. Every one takes ``dtype=`` and ``device=``.

Note [Device-side creation]
Fills run on the target device: zeros/ones/full/empty allocate there and fill with the fill kernel (or,
for values a float64 cannot hold exactly, copy one transferred element across a stride-0 view), and eye
fills a strided view of the diagonal. arange and linspace are the exception: no device kernel computes
start + i * step, so their values are computed by NumPy on the host in float64 and copied to the device
once (then rounded there to the requested dtype); see docs/array-api.md.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from . import _core
from ._args import flag, integer
from ._convert import _from_numpy, asarray as _convert, device_or_default, scalar_tensor
from ._core import ArgumentError, DTypeError, Tensor
from ._dtypes import bool_, complex64, dtype as _dtype, float32, int64

DEFAULT_FLOAT = float32  # what GPUs compute fastest, and what zeros(shape) has always made
DEFAULT_COMPLEX = complex64  # the standard's rule: the complex dtype of the default real floating one
DEFAULT_INT = int64
_FLOATING = ("float16", "bfloat16", "float32", "float64")


def _shape(shape) -> tuple:
    # The C++ side checks every extent (integers, non-negative, no overflow); these are what it cannot see.
    if shape is None or isinstance(shape, (str, bytes, float)):
        raise DTypeError(f"shape must be an integer or a sequence of integers, not {shape!r}")
    return shape


def _dtype_or(dtype, default):
    return default if dtype is None else _dtype(dtype)


def empty(shape, *, dtype=None, device=None) -> Tensor:
    """A new uninitialised tensor (values are whatever the device's memory held)."""
    return _core._empty(_shape(shape), _dtype_or(dtype, DEFAULT_FLOAT).name, device_or_default(device))


def zeros(shape, dtype=None, device=None) -> Tensor:
    return _core._full(_shape(shape), 0.0, _dtype_or(dtype, DEFAULT_FLOAT).name, device_or_default(device))


def ones(shape, dtype=None, device=None) -> Tensor:
    return _core._full(_shape(shape), 1.0, _dtype_or(dtype, DEFAULT_FLOAT).name, device_or_default(device))


def _fill_dtype(value):
    """The default dtype for a fill value: bool, int64 for integers, the default float for floats."""
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, numbers.Integral):
        return DEFAULT_INT
    if isinstance(value, numbers.Real):
        return DEFAULT_FLOAT
    if isinstance(value, numbers.Complex):
        return DEFAULT_COMPLEX
    raise DTypeError(f"a fill value must be a number or a bool, not {type(value).__name__}")


def full(shape, fill_value, dtype=None, device=None) -> Tensor:
    """A new tensor of ``shape`` filled with ``fill_value`` (exact for every dtype; range-checked for integers)."""
    shape = _shape(shape)
    inferred = _fill_dtype(fill_value)  # also refuses what is not a number
    dt = inferred if dtype is None else _dtype(dtype)
    device = device_or_default(device)
    if dt.is_complex:
        value = complex(fill_value)
        return _core._full_complex(shape, value.real, value.imag, dt.name, device)
    if not isinstance(fill_value, numbers.Real):
        raise DTypeError(f"cannot fill {dt.name} with the complex number {fill_value}")
    # The fill kernel takes a float64: exact for bools, and for floats it rounds once into a float dtype.
    if isinstance(fill_value, (bool, np.bool_)) or (
            not isinstance(fill_value, numbers.Integral) and dt.name in _FLOATING):
        return _core._full(shape, float(fill_value), dt.name, device)
    # Integers (exact beyond 2**53, range-checked) and floats into integers (nan refused) are converted on
    # the host as one element, which the device copies across the new tensor through a stride-0 view.
    scalar = scalar_tensor(fill_value, dt.name, "cpu")._to(device)
    return _core._expand_copy(scalar, shape)


def _like(x) -> Tensor:
    if not isinstance(x, Tensor):
        raise DTypeError(f"expected an accelera.Tensor, not {type(x).__name__}")
    return x


def empty_like(x, /, *, dtype=None, device=None) -> Tensor:
    x = _like(x)
    return empty(x.shape, dtype=_dtype_or(dtype, x.dtype), device=device or x.device)


def zeros_like(x, /, *, dtype=None, device=None) -> Tensor:
    x = _like(x)
    return zeros(x.shape, dtype=_dtype_or(dtype, x.dtype), device=device or x.device)


def ones_like(x, /, *, dtype=None, device=None) -> Tensor:
    x = _like(x)
    return ones(x.shape, dtype=_dtype_or(dtype, x.dtype), device=device or x.device)


def full_like(x, /, fill_value, *, dtype=None, device=None) -> Tensor:
    x = _like(x)
    return full(x.shape, fill_value, dtype=_dtype_or(dtype, x.dtype), device=device or x.device)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None) -> Tensor:
    """A ``n_rows`` x ``n_cols`` tensor with ones on diagonal ``k`` (above the main one when k > 0)."""
    rows = integer(n_rows, "n_rows")
    cols = rows if n_cols is None else integer(n_cols, "n_cols")
    k = integer(k, "k")
    out = zeros((rows, cols), dtype=_dtype_or(dtype, DEFAULT_FLOAT), device=device)
    # Diagonal k starts at flat index k (or -k rows down) and steps by cols + 1 in the row-major buffer.
    count = max(0, min(rows, cols - k) if k >= 0 else min(rows + k, cols))
    if count > 0:
        start = k if k >= 0 else -k * cols
        flat = out.reshape(-1)
        diagonal = flat[start:start + (count - 1) * (cols + 1) + 1:cols + 1]
        _core._copy_into(_core._full((), 1.0, out._dtype, out.device), diagonal)
    return out


def _triangle(x, k, lower: bool, name: str) -> Tensor:
    x = x if isinstance(x, Tensor) else _convert(x)
    k = integer(k, "k")
    if x.ndim < 2:
        raise ArgumentError(f"{name} needs a tensor of at least 2 dimensions (a stack of matrices), not {x.ndim}")
    rows, cols = x.shape[-2], x.shape[-1]
    # column - row is d on diagonal d; one pass of where keeps the triangle (the mask broadcasts over the stack).
    diagonal = _core.subtract(arange(cols, device=x.device).reshape((1, cols)),
                              arange(rows, device=x.device).reshape((rows, 1)))
    bound = scalar_tensor(k, "int64", x.device)
    keep = _core.less_equal(diagonal, bound) if lower else _core.greater_equal(diagonal, bound)
    return _core.where(keep, x, _core._full((), 0.0, x._dtype, x.device))


def tril(x, /, *, k=0) -> Tensor:
    """The lower triangle of x's last two axes: elements on and below diagonal ``k`` (above the main one
    when k > 0), the others zero."""
    return _triangle(x, k, True, "tril")


def triu(x, /, *, k=0) -> Tensor:
    """The upper triangle of x's last two axes: elements on and above diagonal ``k``, the others zero."""
    return _triangle(x, k, False, "triu")


def _real(value, name: str):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise DTypeError(f"{name} must be a real number, not {type(value).__name__}")
    return value


def _values_on_device(n: int, dt, device: str, compute) -> Tensor:
    """Note [Device-side creation]: ``compute()`` makes n host values (int64 or float64), which are copied to
    the device once and rounded there to ``dt``. The result is allocated first, so that a size the device
    cannot hold is a typed error before the host computes anything."""
    out = _core._empty([n], dt.name, device)
    if n == 0:
        return out
    values = _from_numpy(compute())._to(device)
    if values.dtype == dt:
        return values
    _core._copy_into(values, out)
    return out


def _finite(value, name: str) -> None:
    try:
        as_float = float(value)
    except OverflowError as err:
        raise _core.OutOfRangeError(f"{name} = {value} is beyond float64") from err
    if not math.isfinite(as_float):
        raise ArgumentError(f"{name} must be finite, not {value}")


def arange(start, /, stop=None, step=1, *, dtype=None, device=None) -> Tensor:
    """start, start + step, ... up to (not including) stop; ``arange(n)`` counts from 0."""
    if stop is None:
        start, stop = 0, start
    for value, name in ((start, "start"), (stop, "stop"), (step, "step")):
        _real(value, name)
        _finite(value, name)
    if step == 0:
        raise ArgumentError("arange: step must not be zero")
    integral = all(isinstance(v, numbers.Integral) for v in (start, stop, step))
    dt = _dtype_or(dtype, DEFAULT_INT if integral else DEFAULT_FLOAT)
    if dt == bool_:
        raise DTypeError("arange does not make bool tensors")
    device = device_or_default(device)
    if integral and dt.name not in _FLOATING:
        start, stop, step = int(start), int(stop), int(step)
        n = max(0, -((start - stop) // step))  # ceil((stop - start) / step), exactly
        if n:
            last = start + (n - 1) * step
            limits = np.iinfo(dt.name)
            if not (limits.min <= min(start, last) and max(start, last) <= limits.max):
                raise _core.OutOfRangeError(f"arange: values from {start} to {last} do not fit in {dt.name}")
        return _values_on_device(n, dt, device, lambda: np.arange(start, stop, step, dtype=np.int64))
    start, stop, step = float(start), float(stop), float(step)
    length = (stop - start) / step  # NumPy's length, in float64
    if not length < 2.0**63:
        raise ArgumentError(f"arange: {length} elements do not fit in a tensor")
    n = max(0, math.ceil(length))
    return _values_on_device(n, dt, device, lambda: np.arange(start, stop, step, dtype=np.float64))


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True) -> Tensor:
    """``num`` evenly spaced values from start to stop (stop included when ``endpoint``)."""
    for value, name in ((start, "start"), (stop, "stop")):
        _real(value, name)
        _finite(value, name)
    num = integer(num, "num")
    if num < 0:
        raise ArgumentError(f"linspace: num must be non-negative, not {num}")
    endpoint = flag(endpoint, "endpoint")
    dt = _dtype_or(dtype, DEFAULT_FLOAT)
    if dt.name not in _FLOATING:
        raise DTypeError(f"linspace makes floating tensors, not {dt.name}")
    return _values_on_device(num, dt, device_or_default(device), lambda: np.linspace(
        float(start), float(stop), num, endpoint=endpoint, dtype=np.float64))


def meshgrid(*arrays, indexing: str = "xy") -> list[Tensor]:
    """Coordinate tensors from 1-D tensors (one dtype, one device); ``indexing`` is "xy" or "ij"."""
    if not isinstance(indexing, str) or indexing not in ("xy", "ij"):
        raise ArgumentError(f"meshgrid: indexing must be 'xy' or 'ij', not {indexing!r}")
    for a in arrays:
        if not isinstance(a, Tensor):
            raise DTypeError(f"meshgrid expects accelera Tensors, not {type(a).__name__}")
        if a.ndim != 1:
            raise ArgumentError(f"meshgrid expects 1-D tensors, got one of shape {a.shape}")
    if len({a.dtype for a in arrays}) > 1:
        raise DTypeError("meshgrid: the tensors must have one dtype")
    if len({a.device for a in arrays}) > 1:
        raise _core.DeviceError("meshgrid: the tensors must be on one device")
    shape = [a.shape[0] for a in arrays]
    if indexing == "xy" and len(arrays) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    grids = []
    for i, a in enumerate(arrays):
        axis = (1 - i if i < 2 else i) if indexing == "xy" and len(arrays) > 1 else i
        index = [None] * len(arrays)
        index[axis] = slice(None)
        # Each grid is a device copy of a stride-0 view, as NumPy's meshgrid copies by default.
        grids.append(_core._broadcast_to(a[tuple(index)], shape).clone())
    return grids


def asarray(obj, /, *, dtype=None, device=None, copy=None) -> Tensor:
    """``obj`` as a Tensor: another Tensor, a NumPy array, a DLPack producer, a Python scalar or a nested
    sequence. ``copy=None`` shares memory when it can; ``copy=True`` always copies; ``copy=False`` never
    copies and raises ValueError when a dtype change, a move or a Python sequence would need one."""
    if copy is not None:
        copy = flag(copy, "copy")
    target_dtype = None if dtype is None else _dtype(dtype)
    target_device = None if device is None else device_or_default(device)
    shares_memory = isinstance(obj, (Tensor, np.ndarray)) or (
        hasattr(obj, "__dlpack__") and not isinstance(obj, np.generic))
    if copy is False and not shares_memory:
        raise ArgumentError(f"asarray(copy=False): a {type(obj).__name__} cannot be used without a copy")
    if copy is False and isinstance(obj, np.ndarray) and not obj.dtype.isnative:
        raise ArgumentError("asarray(copy=False): a non-native byte order needs a copy")
    # A Python sequence or scalar converts straight to the dtype asked for (exact for large integers).
    tensor = _convert(obj) if shares_memory or isinstance(obj, Tensor) else _convert(obj, dtype=target_dtype)
    changes = ((target_dtype is not None and target_dtype != tensor.dtype)
               or (target_device is not None and target_device != tensor.device))
    if copy is False and changes:
        raise ArgumentError(f"asarray(copy=False): {tensor.dtype.name} on {tensor.device} would have to be "
                            f"copied to become {target_dtype or tensor.dtype} on {target_device or tensor.device}")
    if target_dtype is not None and target_dtype != tensor.dtype:
        tensor = tensor._astype(target_dtype.name)
    if target_device is not None:
        tensor = tensor._to(target_device)
    if copy and shares_memory and not changes:
        tensor = tensor.clone()
    return tensor


__all__ = ["arange", "asarray", "empty", "empty_like", "eye", "full", "full_like", "linspace", "meshgrid", "ones",
           "ones_like", "tril", "triu", "zeros", "zeros_like"]
