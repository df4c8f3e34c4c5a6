"""``Tensor.__setitem__``: ``t[key] = value`` writes into the tensor's own memory on its device.

Basic keys (integers, slices, ``...``, ``None``) select a view, and the value is converted to the
tensor's dtype and broadcast into it (NumPy's copyto). A boolean mask (a bool Tensor of the tensor's shape,
or of its leading dimensions) with a scalar value sets the elements where the mask holds in one pass.
Keys with index arrays (integer arrays, masks with array values) scatter through ``_getitem.assign``. A
value read from the tensor itself (``t[1:] = t[:-1]``) is read before anything is written.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import _core
from ._core import NotSupportedError, ShapeError, Tensor
from ._creation import asarray
from ._elementwise import where
from ._getitem import assign, has_scalar_booleans, is_advanced


def _value_on(tensor: Tensor, value) -> Tensor:
    if isinstance(value, Tensor):
        return value  # copy_into raises DeviceError when it lives elsewhere: no silent move
    return asarray(value, dtype=tensor.dtype, device=tensor.device)


def _set_masked(tensor: Tensor, mask: Tensor, value) -> None:
    if mask.device != tensor.device:
        raise _core.DeviceError(f"the mask is on {mask.device} but the tensor is on {tensor.device}")
    if tuple(mask.shape) != tuple(tensor.shape[: mask.ndim]):
        raise ShapeError(f"a boolean mask of shape {tuple(mask.shape)} does not match the leading dimensions of "
                         f"{tuple(tensor.shape)}")
    full_mask = mask.reshape(tuple(mask.shape) + (1,) * (tensor.ndim - mask.ndim))
    _core._copy_into(where(full_mask, _value_on(tensor, value), tensor), tensor)


def _is_scalar(value) -> bool:
    return isinstance(value, (numbers.Number, np.generic)) or (isinstance(value, Tensor) and value.ndim == 0)


def _setitem(self: Tensor, key, value) -> None:
    if isinstance(key, Tensor) and key.dtype == "bool" and _is_scalar(value):
        _set_masked(self, key, value)  # one pass, no count read back
        return
    if not has_scalar_booleans(key) and is_advanced(key):  # a 0-d boolean goes through self[key] below
        assign(self, key, _value_on(self, value))
        return
    view = self[key]  # basic keys only: __getitem__ names what it does not support
    if not isinstance(view, Tensor):
        raise NotSupportedError(f"cannot assign through index {key!r}")
    _core._copy_into(_value_on(self, value), view)


def install() -> None:
    Tensor.__setitem__ = _setitem
