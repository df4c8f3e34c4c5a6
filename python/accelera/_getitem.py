"""Integer-array and boolean-mask indices (NumPy's advanced indexing), read (``Tensor.__getitem__``) and
written (``assign``, for ``Tensor.__setitem__``).

Basic keys (integers, slices, ``...``, ``None``) go straight to the C++ view code and never copy. A key
with an index array (a Tensor, a NumPy array or a list of integers or bools) gathers on the tensor's
device with ``take``:

- one boolean mask: the positions of its true elements (``flat_nonzero``, one count read back) index
  the mask's axes merged into one; a read through a mask over every axis (``x[x > 0]``) keeps the
  elements directly (``masked_select``: one pass, one count read back);
- integer arrays (and integers beside them, which NumPy treats as 0-d arrays): they broadcast together,
  each is checked against its axis and wrapped when negative, and they combine into one position in
  the indexed axes taken together. The broadcast shape replaces the indexed axes where they were when
  they are adjacent in the key, and comes first otherwise (NumPy's rule).

Writes scatter with ``put`` through the same positions, after every index is checked, so a bad index
leaves the tensor untouched. Where an index repeats, which value lands is unspecified (the standard's rule).
"""

from __future__ import annotations

import numbers

import numpy as np

from . import _core
from ._core import DeviceError, IndexOutOfBoundsError, ShapeError, Tensor

_basic_getitem = Tensor.__getitem__


def _is_array_index(item) -> bool:
    if isinstance(item, (Tensor, np.ndarray)):
        return item.ndim > 0  # a 0-d boolean is split_scalar_booleans's, a 0-d integer an integer
    return isinstance(item, list)


def _is_scalar_boolean(item) -> bool:
    if isinstance(item, (bool, np.bool_)):
        return True
    if isinstance(item, Tensor):
        return item.ndim == 0 and item.dtype == "bool"
    return isinstance(item, np.ndarray) and item.ndim == 0 and item.dtype == np.bool_


def has_scalar_booleans(key) -> bool:
    """Whether the key holds a 0-d boolean index (without reading a device tensor's value)."""
    return any(_is_scalar_boolean(item) for item in (key if isinstance(key, tuple) else (key,)))


def split_scalar_booleans(key, ndim: int):
    """NumPy's 0-d boolean indices (True, False, a 0-d bool array or tensor) each add an axis, of length 1
    for True and 0 for False: the key with None in their place, and the result's axes that must then be
    emptied (None when the key holds no such index)."""
    if not has_scalar_booleans(key):
        return key, None
    items = list(key) if isinstance(key, tuple) else [key]
    if any(_is_array_index(item) for item in items):
        raise _core.NotSupportedError("a 0-d boolean index together with index arrays is not supported")
    consumed = sum(not (item is None or item is Ellipsis or _is_scalar_boolean(item)) for item in items)
    replaced, empty, axis = [], [], 0
    for item in items:
        if _is_scalar_boolean(item):
            truth = item.to("cpu").numpy() if isinstance(item, Tensor) else item
            if not bool(truth):
                empty.append(axis)
            replaced.append(None)
            axis += 1
        elif item is Ellipsis:
            replaced.append(item)
            axis += ndim - consumed
        else:
            replaced.append(item)
            axis += 1 if item is None or isinstance(item, slice) else 0  # an integer removes its axis
    return tuple(replaced), empty


def _index_tensor(item, tensor: Tensor) -> Tensor:
    from ._creation import asarray

    if isinstance(item, Tensor):
        if item.device != tensor.device:
            raise DeviceError(f"an index array on {item.device} cannot index a tensor on {tensor.device}")
        index = item
    else:
        index = asarray(np.asarray(item) if isinstance(item, list) else item, device=tensor.device)
        if isinstance(item, list) and len(item) == 0:
            index = index.astype("int64")  # NumPy's rule for []: an empty integer index
    if index.dtype not in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
        raise IndexError(f"arrays used as indices must be of integer or boolean type, not {index.dtype}")
    return index


def _check_in_range(index: Tensor, size: int, axis: int) -> Tensor:
    """index (int64) wrapped into [0, size); IndexError naming the first index outside [-size, size)."""
    from ._elementwise import logical_or, where

    if index.size == 0:
        return index
    zero = _core._full([], 0.0, "int64", index.device)
    bad = logical_or(_core.less(index, _core._full([], float(-size), "int64", index.device)),
                     _core.greater_equal(index, _core._full([], float(size), "int64", index.device)))
    if bool(_core.any(bad, None, False).to("cpu").numpy()):
        host = index.to("cpu").numpy().reshape(-1)
        first = host[(host < -size) | (host >= size)][0]
        raise IndexOutOfBoundsError(f"index {first} is out of bounds for axis {axis} with size {size}")
    return where(_core.less(index, zero), _core.add(index, _core._full([], float(size), "int64", index.device)),
                 index)


def _expand_ellipsis(items: list, ndim: int) -> list:
    consumed = sum(item.ndim if isinstance(item, Tensor) and item.dtype == "bool" else 1
                   for item in items if item is not None and item is not Ellipsis)
    if sum(item is Ellipsis for item in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        raise IndexError(f"too many indices for a tensor of rank {ndim}: {consumed} were given")
    if Ellipsis not in items:
        return items + [slice(None)] * (ndim - consumed)
    at = next(i for i, item in enumerate(items) if item is Ellipsis)
    return items[:at] + [slice(None)] * (ndim - consumed) + items[at + 1:]


class _Selection:
    """Where an advanced key reads and writes: ``take(flat, index, axis)``, permuted by ``order`` when given,
    is the result; ``flat`` is ``source`` reshaped, a view of the tensor when the strides allow it."""

    def __init__(self, source: Tensor, flat_shape: tuple, index: Tensor, axis: int, order: tuple | None):
        self.source, self.flat_shape, self.index, self.axis, self.order = source, flat_shape, index, axis, order

    def read(self) -> Tensor:
        result = _core.take(self.source.reshape(self.flat_shape), self.index, self.axis)
        return result if self.order is None else _permute(result, self.order)

    def write(self, values: Tensor) -> None:
        from ._manipulation import broadcast_to

        taken_shape = (tuple(self.source.shape[:self.axis]) + tuple(self.index.shape)
                       + tuple(self.flat_shape[self.axis + 1:]))
        if self.order is not None:
            # values come in the result's axis order; put takes them in take's order.
            result_shape = tuple(taken_shape[a] for a in self.order)
            inverse = tuple(sorted(range(len(self.order)), key=lambda k: self.order[k]))
            values = _permute(broadcast_to(values, result_shape), inverse)
        flat = self.source.reshape(self.flat_shape)
        if flat.shares_memory(self.source):
            _core.put(flat, self.index, values, self.axis)
            return
        # The strides do not allow a view: scatter into a contiguous copy, then copy it back whole.
        work = self.source.contiguous()
        _core.put(work.reshape(self.flat_shape), self.index, values, self.axis)
        _core._copy_into(work, self.source)


class _MaskSelection(_Selection):
    """A boolean mask over the axes ``axis`` to ``axis + mask.ndim`` of ``source``. A read through a mask
    over every axis keeps the elements in one pass (``masked_select``, Note [Compaction] in
    src/ops/compress.hpp); other reads and writes go through the positions of the true elements, found
    when first needed."""

    def __init__(self, source: Tensor, flat_shape: tuple, mask: Tensor, axis: int):
        self.source, self.flat_shape, self.mask, self.axis, self.order = source, flat_shape, mask, axis, None
        self._positions = None

    @property
    def index(self) -> Tensor:
        if self._positions is None:
            self._positions = _core.flat_nonzero(self.mask)
        return self._positions

    def read(self) -> Tensor:
        if self.axis == 0 and self.mask.ndim == self.source.ndim:
            return _core.masked_select(self.source, self.mask)
        return super().read()


def _permute(tensor: Tensor, order: tuple) -> Tensor:
    from ._manipulation import permute_dims

    return permute_dims(tensor, order)


def _select(tensor: Tensor, key) -> _Selection:
    items = list(key) if isinstance(key, tuple) else [key]
    items = [item if item is None or item is Ellipsis or isinstance(item, slice) else
             (_index_tensor(item, tensor) if _is_array_index(item) or isinstance(item, (numbers.Integral, Tensor,
                                                                                        np.ndarray, np.generic))
              else item)
             for item in items]
    for item in items:
        if not (item is None or item is Ellipsis or isinstance(item, (slice, Tensor))):
            raise IndexError("only integers, slices (:), ellipsis (...), None and integer or boolean arrays are "
                             f"valid indices, not {type(item).__name__}")
    items = _expand_ellipsis(items, tensor.ndim)
    # Index arrays become full slices of a view; positions[k] is the view axis of array k.
    basic, arrays, positions, axis = [], [], [], 0
    for item in items:
        if isinstance(item, Tensor):
            arrays.append(item)
            positions.append(axis)
            width = item.ndim if item.dtype == "bool" else 1
            basic.extend([slice(None)] * width)
            axis += width
        else:
            basic.append(item)
            axis += 1
    view = _basic_getitem(tensor, tuple(basic))
    if len(arrays) == 1 and arrays[0].dtype == "bool":
        return _masked(view, arrays[0], positions[0])
    return _gathered(view, arrays, positions)


def _advanced_getitem(tensor: Tensor, key) -> Tensor:
    return _select(tensor, key).read()


def assign(tensor: Tensor, key, values: Tensor) -> None:
    """``tensor[key] = values`` for a key with index arrays (values already on the tensor's device)."""
    _select(tensor, key).write(values)


def _masked(view: Tensor, mask: Tensor, at: int) -> _Selection:
    extents = tuple(view.shape[at:at + mask.ndim])
    if extents != tuple(mask.shape):
        raise IndexError(f"a boolean index of shape {tuple(mask.shape)} does not match the indexed axes "
                         f"{extents}")
    flat_shape = tuple(view.shape[:at]) + (-1,) + tuple(view.shape[at + mask.ndim:])
    return _MaskSelection(view, flat_shape, mask, at)


def _gathered(view: Tensor, arrays: list, positions: list) -> _Selection:
    from ._manipulation import broadcast_arrays

    # Booleans among several indices stand for the coordinates of their true elements (NumPy's rule).
    expanded, axes = [], []
    for array, at in zip(arrays, positions):
        if array.dtype == "bool":
            coordinates = _core.nonzero(array)
            expanded.extend(coordinates)
            axes.extend(range(at, at + len(coordinates)))
        else:
            expanded.append(array.astype("int64") if array.dtype != "int64" else array)
            axes.append(at)
    if len(expanded) == 1:
        return _Selection(view, tuple(view.shape), expanded[0], axes[0], None)
    try:
        indices = broadcast_arrays(*expanded)
    except ShapeError as error:
        shapes = ", ".join(str(tuple(i.shape)) for i in expanded)
        raise IndexError(f"index arrays of shapes {shapes} cannot be broadcast together") from error
    rest = [a for a in range(view.ndim) if a not in axes]
    moved = _permute(view, tuple(axes) + tuple(rest))
    position = None
    for index, a in zip(indices, axes):
        extent = view.shape[a]
        term = _check_in_range(index, extent, a)
        position = term if position is None else _core.add(
            _core.multiply(position, _core._full([], float(extent), "int64", view.device)), term)
    flat_shape = (-1,) + tuple(moved.shape[len(axes):])
    adjacent = axes == list(range(axes[0], axes[0] + len(axes)))
    if not adjacent or axes[0] == 0:
        return _Selection(moved, flat_shape, position, 0, None)
    # The broadcast axes go where the indexed ones were: after the view's axes that preceded them.
    b, total = position.ndim, position.ndim + len(rest)
    order = tuple(range(b, b + axes[0])) + tuple(range(b)) + tuple(range(b + axes[0], total))
    return _Selection(moved, flat_shape, position, 0, order)


def is_advanced(key) -> bool:
    """Whether ``key`` holds an index array (a Tensor or NumPy array of rank >= 1, a boolean one, a list)."""
    if isinstance(key, tuple):
        return any(_is_array_index(item) for item in key)
    return _is_array_index(key)


def _getitem(self: Tensor, key):
    key, empty = split_scalar_booleans(key, self.ndim)
    result = _advanced_getitem(self, key) if is_advanced(key) else _basic_getitem(self, key)
    for axis in empty or ():
        result = _basic_getitem(result, (slice(None),) * axis + (slice(0, 0),))
    return result


def install() -> None:
    Tensor.__getitem__ = _getitem
