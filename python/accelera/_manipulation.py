"""The array API standard's manipulation functions, built from views (no copy) and device copies into views
of a new tensor (``_core._copy_into``, the copy kernel of the tensors' own device): nothing here passes
through the host.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from . import _core
from ._args import flag, integer
from ._core import ArgumentError, DeviceError, DTypeError, ShapeError, Tensor
from ._dtype_functions import result_type


class AxisError(ArgumentError, IndexError):
    """An axis out of range for a tensor's rank (a ValueError and an IndexError, as NumPy's AxisError)."""

    __module__ = "accelera"


def _tensor(x, name: str = "x") -> Tensor:
    if not isinstance(x, Tensor):
        raise DTypeError(f"{name} must be an accelera.Tensor, not {type(x).__name__}")
    return x


def normalize_axis(axis, ndim: int) -> int:
    axis = integer(axis, "axis")
    if not -ndim <= axis < ndim:
        raise AxisError(f"axis {axis} is out of bounds for a tensor of rank {ndim}")
    return axis % ndim


def _axis_tuple(axis, ndim: int) -> tuple[int, ...]:
    """An int or a sequence of ints, normalised; repeated axes are an error."""
    axes = (axis,) if isinstance(axis, numbers.Integral) else axis
    if not isinstance(axes, Sequence) or isinstance(axes, str):
        raise DTypeError(f"axis must be an integer or a tuple of integers, not {axis!r}")
    axes = tuple(normalize_axis(a, ndim) for a in axes)
    if len(set(axes)) != len(axes):
        raise ArgumentError(f"repeated axis in {axis!r}")
    return axes


def _shape_tuple(shape, name: str = "shape") -> tuple[int, ...]:
    if isinstance(shape, numbers.Integral) and not isinstance(shape, (bool, np.bool_)):
        return (integer(shape, name),)
    if not isinstance(shape, Sequence) or isinstance(shape, str):
        raise DTypeError(f"{name} must be an integer or a sequence of integers, not {shape!r}")
    return tuple(integer(d, name) for d in shape)


def reshape(x, /, shape, *, copy=None) -> Tensor:
    """``x`` with a new shape (one extent may be -1). ``copy=None`` returns a view when the strides allow it
    and a copy otherwise; ``copy=True`` always copies; ``copy=False`` raises ValueError instead of copying."""
    x = _tensor(x)
    shape = _shape_tuple(shape)
    if copy is None:
        return x.reshape(shape)
    if flag(copy, "copy"):
        return x.clone().reshape(shape)
    view = _core._view(x, list(shape))
    if view is None:
        raise ArgumentError(f"reshape(copy=False): a tensor of shape {x.shape} with these strides cannot be "
                            f"viewed as {shape}")
    return view


def permute_dims(x, /, axes) -> Tensor:
    x = _tensor(x)
    axes = _axis_tuple(axes, x.ndim)
    if len(axes) != x.ndim:
        raise ArgumentError(f"permute_dims: {len(axes)} axes given for a tensor of rank {x.ndim}")
    return x.transpose(axes)


def matrix_transpose(x, /) -> Tensor:
    """The last two axes swapped (a view)."""
    x = _tensor(x)
    if x.ndim < 2:
        raise ArgumentError(f"matrix_transpose needs a tensor of rank >= 2, got rank {x.ndim}")
    axes = list(range(x.ndim))
    axes[-2], axes[-1] = axes[-1], axes[-2]
    return x.transpose(axes)


def expand_dims(x, /, axis=0) -> Tensor:
    """A view with new axes of extent 1 at ``axis`` (an int, or a tuple as in NumPy)."""
    x = _tensor(x)
    if isinstance(axis, numbers.Integral):
        added = 1
    elif isinstance(axis, Sequence) and not isinstance(axis, str):
        added = len(axis)
    else:
        raise DTypeError(f"axis must be an integer or a tuple of integers, not {axis!r}")
    ndim = x.ndim + added
    new_axes = set(_axis_tuple(axis, ndim))
    return x[tuple(None if i in new_axes else slice(None) for i in range(ndim))]


def squeeze(x, /, axis=None) -> Tensor:
    """A view without the axes of extent 1 named by ``axis`` (every one of them when None, as in NumPy)."""
    x = _tensor(x)
    if axis is None:
        axes = {i for i, d in enumerate(x.shape) if d == 1}
    else:
        axes = set(_axis_tuple(axis, x.ndim))
        for a in axes:
            if x.shape[a] != 1:
                raise ArgumentError(f"squeeze: axis {a} has extent {x.shape[a]}, not 1")
    return x[tuple(0 if i in axes else slice(None) for i in range(x.ndim))]


def flip(x, /, axis=None) -> Tensor:
    """A view with the order of elements reversed along ``axis`` (all axes when None)."""
    x = _tensor(x)
    axes = set(range(x.ndim)) if axis is None else set(_axis_tuple(axis, x.ndim))
    return x[tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(x.ndim))]


def moveaxis(x, source, destination, /) -> Tensor:
    x = _tensor(x)
    source, destination = _axis_tuple(source, x.ndim), _axis_tuple(destination, x.ndim)
    if len(source) != len(destination):
        raise ArgumentError("moveaxis: source and destination must have the same number of axes")
    order = [a for a in range(x.ndim) if a not in source]
    for dst, src in sorted(zip(destination, source)):
        order.insert(dst, src)
    return x.transpose(order)


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """NumPy's broadcasting of shapes (ShapeError when they do not fit)."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for shape in shapes:
        for i, d in enumerate(shape, start=ndim - len(shape)):
            if d != out[i] and out[i] != 1 and d != 1:
                raise ShapeError(f"shapes {' and '.join(map(str, shapes))} cannot be broadcast together")
            out[i] = d if out[i] == 1 else out[i]
    return tuple(out)


def broadcast_to(x, /, shape) -> Tensor:
    """A read-only stride-0 view of ``x`` with ``shape``."""
    x = _tensor(x)
    shape = _shape_tuple(shape)
    if any(d < 0 for d in shape):
        raise ArgumentError(f"broadcast_to: negative extent in {shape}")
    return _core._broadcast_to(x, list(shape))


def broadcast_arrays(*arrays) -> list[Tensor]:
    arrays = [_tensor(a, "each array") for a in arrays]
    shape = broadcast_shapes(*(a.shape for a in arrays))
    return [_core._broadcast_to(a, list(shape)) for a in arrays]


def _same_device(arrays: Sequence[Tensor], what: str) -> str:
    devices = {a.device for a in arrays}
    if len(devices) > 1:
        raise DeviceError(f"{what}: the tensors are on {', '.join(sorted(devices))}; move them to one device")
    return devices.pop()


def concat(arrays, /, axis=0) -> Tensor:
    """The tensors joined along ``axis`` (flattened first when None), in their promoted dtype."""
    if isinstance(arrays, Tensor) or not isinstance(arrays, Sequence) or not arrays:
        raise ArgumentError("concat expects a non-empty sequence of tensors")
    arrays = [_tensor(a, "each array") for a in arrays]
    if axis is None:
        arrays, axis = [a.reshape(-1) for a in arrays], 0
    if len({a.ndim for a in arrays}) > 1 or arrays[0].ndim == 0:
        raise ShapeError(f"concat needs tensors of one rank >= 1, got shapes {[a.shape for a in arrays]}")
    axis = normalize_axis(axis, arrays[0].ndim)
    first = arrays[0].shape
    for a in arrays:
        if a.shape[:axis] + a.shape[axis + 1:] != first[:axis] + first[axis + 1:]:
            raise ShapeError(f"concat: shapes {[a.shape for a in arrays]} differ outside axis {axis}")
    device = _same_device(arrays, "concat")
    shape = list(first)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    out = _core._empty(shape, result_type(*arrays).name, device)
    start = 0
    for a in arrays:
        stop = start + a.shape[axis]
        _core._copy_into(a, out[(slice(None),) * axis + (slice(start, stop),)])
        start = stop
    return out


def stack(arrays, /, axis=0) -> Tensor:
    """The tensors (of one shape) joined along a new axis."""
    if isinstance(arrays, Tensor) or not isinstance(arrays, Sequence) or not arrays:
        raise ArgumentError("stack expects a non-empty sequence of tensors")
    arrays = [_tensor(a, "each array") for a in arrays]
    if len({a.shape for a in arrays}) > 1:
        raise ShapeError(f"stack needs tensors of one shape, got {[a.shape for a in arrays]}")
    axis = normalize_axis(axis, arrays[0].ndim + 1)
    return concat([expand_dims(a, axis) for a in arrays], axis=axis)


def unstack(x, /, axis=0) -> tuple[Tensor, ...]:
    """Views of ``x``, one per index along ``axis``."""
    x = _tensor(x)
    if x.ndim == 0:
        raise ArgumentError("unstack needs a tensor of rank >= 1")
    axis = normalize_axis(axis, x.ndim)
    return tuple(x[(slice(None),) * axis + (i,)] for i in range(x.shape[axis]))


def _roll_axis(x: Tensor, shift: int, axis: int) -> Tensor:
    n = x.shape[axis]
    out = _core._empty(list(x.shape), x._dtype, x.device)
    shift = shift % n if n else 0
    lead = (slice(None),) * axis
    _core._copy_into(x[lead + (slice(0, n - shift),)], out[lead + (slice(shift, n),)])
    _core._copy_into(x[lead + (slice(n - shift, n),)], out[lead + (slice(0, shift),)])
    return out


def roll(x, /, shift, axis=None) -> Tensor:
    """Elements shifted along ``axis`` with wrap-around (over the flattened tensor when None)."""
    x = _tensor(x)
    if axis is None:
        return _roll_axis(x.reshape(-1), integer(shift, "shift"), 0).reshape(x.shape)
    axes = _axis_tuple(axis, x.ndim) if not isinstance(axis, numbers.Integral) else (normalize_axis(axis, x.ndim),)
    shifts = (shift,) * len(axes) if isinstance(shift, numbers.Integral) else tuple(shift)
    if len(shifts) != len(axes):
        raise ArgumentError("roll: shift and axis must have the same length")
    out = x
    for s, a in zip(shifts, axes):
        out = _roll_axis(out, integer(s, "shift"), a)
    return out if out is not x else x.clone()


def _copy_of_broadcast(view: Tensor, shape) -> Tensor:
    return _core._broadcast_to(view, list(shape)).clone()


def tile(x, repetitions, /) -> Tensor:
    """``x`` repeated ``repetitions[i]`` times along each axis (leading axes added as needed)."""
    x = _tensor(x)
    reps = _shape_tuple(repetitions, "repetitions")
    if any(r < 0 for r in reps):
        raise ArgumentError(f"tile: negative repetition in {reps}")
    ndim = max(len(reps), x.ndim)
    reps = (1,) * (ndim - len(reps)) + reps
    x = x.reshape((1,) * (ndim - x.ndim) + x.shape)
    # (d0, d1) -> (r0, d0, r1, d1) as a stride-0 view, copied on the device, then merged to (r0*d0, r1*d1).
    interleaved = x[tuple(item for _ in range(ndim) for item in (None, slice(None)))]
    shape = [n for r, d in zip(reps, x.shape) for n in (r, d)]
    return _copy_of_broadcast(interleaved, shape).reshape(tuple(r * d for r, d in zip(reps, x.shape)))


def repeat(x, repeats, /, axis=None) -> Tensor:
    """Each element repeated ``repeats`` times along ``axis`` (over the flattened tensor when None).
    ``repeats`` is an int or a host sequence of ints, one per element along the axis."""
    x = _tensor(x)
    if axis is None:
        x, axis = x.reshape(-1), 0
    axis = normalize_axis(axis, x.ndim)
    n = x.shape[axis]
    if isinstance(repeats, Tensor) and repeats.device != "cpu":
        raise _core.NotSupportedError(
            "repeat: repeats on a device would make the output's shape depend on device data; pass host integers")
    if isinstance(repeats, (Tensor, np.ndarray)):
        repeats = np.asarray(repeats).tolist()
    if isinstance(repeats, numbers.Integral):
        r = integer(repeats, "repeats")
        if r < 0:
            raise ArgumentError(f"repeat: negative count {r}")
        # (.., n, ..) -> (.., n, r, ..) as a stride-0 view, copied on the device, merged to (.., n*r, ..).
        view = x[(slice(None),) * (axis + 1) + (None,)]
        shape = x.shape[:axis + 1] + (r,) + x.shape[axis + 1:]
        return _copy_of_broadcast(view, shape).reshape(x.shape[:axis] + (n * r,) + x.shape[axis + 1:])
    counts = _shape_tuple(repeats, "repeats")
    if len(counts) == 1:
        return repeat(x, counts[0], axis=axis)
    if len(counts) != n or any(c < 0 for c in counts):
        raise ArgumentError(f"repeat: {len(counts)} non-negative counts are needed for an axis of extent {n}")
    shape = list(x.shape)
    shape[axis] = sum(counts)
    out = _core._empty(shape, x._dtype, x.device)
    lead, start = (slice(None),) * axis, 0
    for i, c in enumerate(counts):
        if c:
            _core._copy_into(x[lead + (slice(i, i + 1),)], out[lead + (slice(start, start + c),)])
        start += c
    return out


__all__ = ["AxisError", "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip",
           "matrix_transpose", "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile",
           "unstack"]
