"""Conversion of array-likes into Tensors: NumPy arrays, DLPack producers, Python scalars and lists."""

from __future__ import annotations

import math
import numbers

import numpy as np

from . import _core
from ._args import flag
from ._core import ArgumentError, DeviceError, DTypeError, OutOfRangeError, Tensor
from ._dtypes import _BY_NAME, dtype as _dtype

_DL_CPU, _DL_CUDA, _DL_CUDA_HOST = 1, 2, 3


def from_dlpack(x, *, device=None, copy=None) -> Tensor:
    """Import any DLPack producer (NumPy, PyTorch, CuPy, JAX, ...) without copying: host memory, and CUDA
    memory where this build has CUDA (the producer's pending writes are ordered before Accelera's work).

    ``device`` moves the result afterwards; ``copy=True`` forces a private copy.
    """
    if not hasattr(x, "__dlpack__") or not hasattr(x, "__dlpack_device__"):
        raise DTypeError(f"from_dlpack expects an object implementing __dlpack__, got {type(x).__name__}")
    device_type, device_id = x.__dlpack_device__()
    kwargs = {}
    if int(device_type) == _DL_CUDA:
        # Note [DLPack streams]: the producer orders its writes before our compute stream.
        kwargs["stream"] = _core._dlpack_stream(f"cuda:{int(device_id)}")
    elif int(device_type) not in (_DL_CPU, _DL_CUDA_HOST):
        raise DeviceError(
            f"from_dlpack: the producer lives on DLPack device type {int(device_type)} (id {device_id}); "
            "Accelera imports host and CUDA memory")
    try:
        capsule = x.__dlpack__(max_version=(1, 0), **kwargs)
    except TypeError:
        # Producers that predate DLPack 1.0 take no max_version and export the legacy capsule; the
        # DLPack specification asks consumers to retry without it.
        capsule = x.__dlpack__(**kwargs)
    tensor = _core._from_dlpack_capsule(capsule)
    if copy is not None and flag(copy, "copy"):
        tensor = tensor.clone()
    if device is not None:
        tensor = tensor.to(str(device))
    return tensor


def _from_numpy(arr: np.ndarray) -> Tensor:
    name = arr.dtype.name
    if name not in _BY_NAME or name == "bfloat16":
        raise DTypeError(
            f"NumPy dtype {arr.dtype} is not supported: Accelera takes float16/32/64, int8/16/32/64, "
            "uint8/16/32/64, bool and complex64/128 arrays (convert with .astype)")
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return _core._from_dlpack_capsule(arr.__dlpack__(max_version=(1, 0)))


def asarray(obj, device=None, dtype=None) -> Tensor:
    """Convert ``obj`` to a Tensor, sharing memory where possible (like ``numpy.asarray``).

    ``obj`` may be a Tensor, a NumPy array (any strides, 0-d and empty included), any DLPack producer, a
    Python scalar or a nested sequence. ``dtype`` converts, ``device`` moves ("cpu", "cuda:0", ...).
    """
    if isinstance(obj, Tensor):
        tensor = obj
    elif isinstance(obj, np.ndarray):
        tensor = _from_numpy(obj)
    elif hasattr(obj, "__dlpack__") and not isinstance(obj, np.generic):
        tensor = from_dlpack(obj)
    else:
        if obj is None or isinstance(obj, (str, bytes, dict, set)):
            raise DTypeError(f"cannot convert {type(obj).__name__} to a tensor")
        # With a dtype NumPy has, the values convert straight to it: through NumPy's own choice they could
        # pass through float64 and lose integers beyond 2**53 ([2**63 + 1, 5] as uint64).
        target = None if dtype is None else _dtype(dtype)
        numpy_dtype = None if target is None or target.name == "bfloat16" else np.dtype(target.name)
        try:
            arr = np.asarray(obj, dtype=numpy_dtype)
        except OverflowError as err:
            raise OutOfRangeError(f"cannot convert {type(obj).__name__} to {target.name}: {err}") from err
        except (ValueError, TypeError) as err:
            raise ArgumentError(f"cannot convert {type(obj).__name__} to a tensor: {err}") from err
        tensor = _from_numpy(arr)
    if dtype is not None:
        target = _dtype(dtype)
        if tensor.dtype != target:
            tensor = tensor._astype(target.name)
    if device is not None:
        tensor = tensor.to(_device_str(device))
    return tensor


def _device_str(device) -> str:
    if not isinstance(device, str):
        raise ArgumentError(f"device must be a string such as 'cpu' or 'cuda:0', got {type(device).__name__}")
    return device


def device_or_default(device) -> str:
    """A validated device string; None means the default device (the best one present)."""
    if device is None:
        return _core.default_device()
    return _core._parse_device(_device_str(device))


# A Python integer beside an integer tensor must fit its dtype (NumPy 2 raises OverflowError too).
_INTEGER_BOUNDS = {name: (int(np.iinfo(name).min), int(np.iinfo(name).max))
                   for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")}


def _scalar_dtype(value, other: Tensor) -> str:
    """NumPy's rule for a Python scalar next to a tensor: the scalar adopts the tensor's kind if it can."""
    kind = other._dtype
    if isinstance(value, bool):
        return kind
    if isinstance(value, numbers.Integral):
        if kind == "bool":
            return "int64"
        if kind in _INTEGER_BOUNDS:
            low, high = _INTEGER_BOUNDS[kind]
            if not low <= value <= high:
                raise OutOfRangeError(f"Python integer {value} out of bounds for {kind}")
        return kind
    if isinstance(value, numbers.Real):
        return kind if kind.startswith(("float", "bfloat", "complex")) else "float64"
    if isinstance(value, numbers.Complex):
        if kind.startswith("complex"):
            return kind
        return "complex64" if kind in ("float32", "float16", "bfloat16") else "complex128"
    raise DTypeError(f"unsupported operand type {type(value).__name__}")


def _is_python_scalar(x) -> bool:
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


# Note [Scalar operands]: ``x * 0.9`` needs 0.9 as a 0-d tensor on x's device. Making one costs a NumPy
# conversion and, on a GPU, a host-to-device copy, which would dominate small ops (an optimizer step is
# dozens of them); so the 0-d tensors of Python scalars are kept per (value, dtype, device). They are only
# ever operands: no op returns or writes into one. Keys keep -0.0 apart from 0.0; nan is never cached.
_SCALARS: dict = {}
_SCALARS_MAX = 4096


def scalar_tensor(value, dtype_name: str, device: str) -> Tensor:
    """A 0-d tensor holding ``value`` exactly (integers beyond 2**53 included); NumPy checks the range."""
    kind = type(value)
    if kind not in (float, int, bool) or value != value:
        return _new_scalar_tensor(value, dtype_name, device)
    key = (kind, value, math.copysign(1.0, value) if kind is float else 0, dtype_name, device)
    cached = _SCALARS.get(key)
    if cached is not None:
        return cached
    tensor = _new_scalar_tensor(value, dtype_name, device)
    if len(_SCALARS) >= _SCALARS_MAX:
        _SCALARS.clear()
    _SCALARS[key] = tensor
    return tensor


def _new_scalar_tensor(value, dtype_name: str, device: str) -> Tensor:
    if isinstance(value, (str, bytes)) or not isinstance(value, numbers.Complex):
        raise DTypeError(f"a fill value must be a number, not {type(value).__name__}")
    if not isinstance(value, numbers.Real) and not dtype_name.startswith("complex"):
        raise DTypeError(f"cannot fill {dtype_name} with the complex number {value}")
    if dtype_name == "bfloat16":
        return _core._full((), float(value), dtype_name, device)
    if dtype_name.startswith("int") and isinstance(value, numbers.Integral):
        info = np.iinfo(dtype_name)
        if not info.min <= value <= info.max:
            raise OutOfRangeError(f"Python integer {value} out of bounds for {dtype_name}")
    if dtype_name.startswith("int") and not np.isfinite(value):
        raise ArgumentError(f"cannot fill {dtype_name} with {value}: integers have no nan or infinity")
    tensor = _from_numpy(np.asarray(value, dtype=dtype_name))
    return tensor if device == "cpu" else tensor.to(device)


def coerce_pair(a, b) -> tuple[Tensor, Tensor]:
    """Two operands of a binary op as Tensors, with Python scalars taking the other side's dtype."""
    # Python scalars are weak next to any array, as in NumPy (NEP 50): convert the other side first.
    if _is_python_scalar(b) and not _is_python_scalar(a):
        a = asarray(a)
        return a, scalar_tensor(b, _scalar_dtype(b, a), a.device)
    if _is_python_scalar(a) and not _is_python_scalar(b):
        b = asarray(b)
        return scalar_tensor(a, _scalar_dtype(a, b), b.device), b
    # An operand that is not yet a Tensor (NumPy, a list, a DLPack producer) joins the other one's device,
    # whichever side it is on.
    if isinstance(b, Tensor) and not isinstance(a, Tensor):
        return asarray(a, device=b.device), b
    a = asarray(a)
    b = asarray(b, device=a.device) if not isinstance(b, Tensor) else b
    return a, b
