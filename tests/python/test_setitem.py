"""t[key] = value on every device: basic keys write through views, boolean masks take scalars, the value
is converted and broadcast, overlapping reads are safe, and bad input leaves the tensor unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as ac

DEVICES = [d["device"] for d in ac.devices()]


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


KEYS = [0, -1, slice(1, None), slice(None, None, -2), (1, slice(None, None, 3)), (Ellipsis, 2), (slice(2, 5), None),
        (), (slice(0, 0),)]


@pytest.mark.parametrize("key", KEYS, ids=repr)
@pytest.mark.parametrize("value", ["scalar", "array", "tensor"])
def test_basic_keys_match_numpy(device, key, value, rng):
    base = rng.standard_normal((6, 7)).astype(np.float32)
    want = base.copy()
    t = ac.asarray(base.copy(), device=device)
    shape = want[key].shape
    v = {"scalar": 2.5, "array": rng.standard_normal(shape[-1:] or ()).astype(np.float64),
         "tensor": None}[value]
    if value == "tensor":
        v = ac.asarray(rng.standard_normal(shape).astype(np.float32), device=device)
    want[key] = np.asarray(v)
    t[key] = v
    np.testing.assert_array_equal(t.numpy(), want)


def test_overlapping_value_is_read_first(device):
    x = np.arange(10.0)
    t = ac.asarray(x.copy(), device=device)
    t[1:] = t[:-1]
    x[1:] = x[:-1].copy()
    np.testing.assert_array_equal(t.numpy(), x)


@pytest.mark.parametrize("mask_shape", [(4, 5), (4,)])
def test_boolean_mask_with_a_scalar(device, mask_shape, rng):
    x = rng.standard_normal((4, 5))
    mask = rng.random(mask_shape) < 0.5
    t = ac.asarray(x.copy(), device=device)
    t[ac.asarray(mask, device=device)] = -7
    x[mask] = -7
    np.testing.assert_array_equal(t.numpy(), x)
    t[t > 0] = 0.0  # the seed guides' clipping idiom
    x[x > 0] = 0.0
    np.testing.assert_array_equal(t.numpy(), x)


def test_integer_tensor_takes_converted_values(device):
    t = ac.asarray(np.zeros(4, np.int32), device=device)
    t[1:3] = np.array([7.9, -2.1])
    np.testing.assert_array_equal(t.numpy(), np.array([0, 7, -2, 0], np.int32))


def test_bad_assignments_leave_the_tensor_unchanged(device):
    x = np.arange(12.0).reshape(3, 4)
    t = ac.asarray(x.copy(), device=device)
    with pytest.raises(ValueError):  # does not broadcast
        t[0] = np.ones(3)
    with pytest.raises(IndexError):
        t[5] = 1.0
    with pytest.raises(ValueError):  # 6 elements are selected, not 5
        t[ac.asarray(x > 5, device=device)] = np.ones(5)
    with pytest.raises(ValueError):
        t[ac.asarray(np.ones(3, bool), device=device)[:2]] = 1.0
    with pytest.raises(IndexError):
        t[np.array([0, 3])] = 1.0
    np.testing.assert_array_equal(t.numpy(), x)
