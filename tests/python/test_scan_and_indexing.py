"""cumulative_sum, cumulative_prod, nonzero and reading with integer-array and boolean-mask indices, against
NumPy on every device; bad input raises the standard's exception types and leaves the tensor untouched."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as ac

DEVICES = [d["device"] for d in ac.devices()]
SHAPES_AXES = [((7,), 0), ((1,), 0), ((0,), 0), ((13, 31), 0), ((13, 31), 1), ((3, 1, 127), 2), ((2, 3, 4, 5), 1),
               ((3, 20011), 1), ((20011, 3), 0)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool"])
def test_cumulative_sum_matches_numpy(device, dtype):
    rng = np.random.default_rng(2)
    for shape, axis in SHAPES_AXES:
        x = (rng.standard_normal(shape) * 10).astype(dtype)
        got = ac.cumulative_sum(ac.asarray(x, device=device), axis=axis)
        want = np.cumsum(x, axis=axis, dtype=np.int64 if dtype in ("int32", "bool") else None)
        assert got.dtype == str(want.dtype)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-3 * max(1, x.shape[axis]) ** 0.5)


@pytest.mark.parametrize("device", DEVICES)
def test_cumulative_prod_and_include_initial(device):
    rng = np.random.default_rng(3)
    for shape, axis in SHAPES_AXES:
        x = rng.uniform(0.99, 1.01, shape)
        t = ac.asarray(x, device=device)
        np.testing.assert_allclose(ac.cumulative_prod(t, axis=axis).numpy(), np.cumprod(x, axis=axis), rtol=1e-12)
        got = ac.cumulative_prod(t, axis=axis, include_initial=True).numpy()
        assert got.shape[axis] == x.shape[axis] + 1
        np.testing.assert_array_equal(np.take(got, 0, axis=axis), 1.0)
        np.testing.assert_allclose(np.take(got, range(1, got.shape[axis]), axis=axis), np.cumprod(x, axis=axis),
                                   rtol=1e-12)
        first = np.take(ac.cumulative_sum(t, axis=axis, include_initial=True).numpy(), 0, axis=axis)
        np.testing.assert_array_equal(first, 0.0)


@pytest.mark.parametrize("device", DEVICES)
def test_cumulative_integer_products_wrap_and_dtype_argument(device):
    x = np.full(70, 3, dtype=np.int64)
    t = ac.asarray(x, device=device)
    np.testing.assert_array_equal(ac.cumulative_prod(t).numpy(), np.cumprod(x))  # wraps modulo 2**64
    got = ac.cumulative_sum(ac.asarray(np.arange(10, dtype=np.int64), device=device), dtype="int32")
    assert got.dtype == "int32"
    np.testing.assert_array_equal(got.numpy(), np.cumsum(np.arange(10)))
    assert ac.cumulative_sum(ac.asarray(x, device=device), dtype=ac.float64).dtype == "float64"


@pytest.mark.parametrize("device", DEVICES)
def test_cumulative_bad_input(device):
    t = ac.asarray(np.ones((3, 4), dtype=np.float32), device=device)
    with pytest.raises(ValueError, match="axis is required"):
        ac.cumulative_sum(t)
    with pytest.raises(ValueError, match="at least one dimension"):
        ac.cumulative_sum(ac.asarray(np.float32(1), device=device))
    with pytest.raises(ValueError, match="out of bounds"):
        ac.cumulative_prod(t, axis=2)
    with pytest.raises(TypeError):
        ac.cumulative_sum(t, axis=1.5)
    np.testing.assert_array_equal(t.numpy(), 1.0)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_nonzero_matches_numpy(device, dtype):
    rng = np.random.default_rng(4)
    for shape in [(1,), (7,), (0, 5), (13, 31), (3, 1, 127), (2, 3, 4, 5), (100003,)]:
        x = rng.integers(-1, 2, shape).astype(dtype)
        got = ac.nonzero(ac.asarray(x, device=device))
        want = np.nonzero(x)
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == "int64"
            np.testing.assert_array_equal(g.numpy(), w)
    x = np.array([[0.0, -0.0, np.nan], [1e-45, 0.0, np.inf]], dtype=np.float32)
    for g, w in zip(ac.nonzero(ac.asarray(x, device=device)), np.nonzero(x)):
        np.testing.assert_array_equal(g.numpy(), w)
    with pytest.raises(ValueError, match="0-d"):
        ac.nonzero(ac.asarray(np.float32(1), device=device))


KEYS = [
    [0, 2, -1], [[1, 0], [3, 3]], (0, slice(None), [1, 2]), ([0, 1], slice(None), 0), (slice(None), [0, 1], [2, 3]),
    ([[0], [1]], [0, 1, 2]), (Ellipsis, [1, -1]), (None, [1, 2]), (slice(1, None), [0, 0, 1], slice(None, None, 2)),
    ([1, 0], [2, 1], [3, 4]), (np.array([0, 3]), 1), [], (slice(None), []),
]


@pytest.mark.parametrize("device", DEVICES)
def test_integer_array_indexing_matches_numpy(device):
    x = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
    t = ac.asarray(x, device=device)
    for key in KEYS:
        want = x[key]
        got = t[key]
        assert tuple(got.shape) == want.shape, key
        np.testing.assert_array_equal(got.numpy(), want, err_msg=str(key))
    index = ac.asarray(np.array([3, 0], dtype=np.int32), device=device)
    np.testing.assert_array_equal(t[index].numpy(), x[[3, 0]])
    np.testing.assert_array_equal(t.T[[1, 2]].numpy(), x.T[[1, 2]])  # a strided view


@pytest.mark.parametrize("device", DEVICES)
def test_boolean_mask_indexing_matches_numpy(device):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 5, 6))
    t = ac.asarray(x, device=device)
    for mask in [x > 0, x[:, :, 0] > 0, x[:, 0, 0] > 0, np.zeros((4, 5, 6), bool), np.ones((4,), bool)]:
        np.testing.assert_array_equal(t[ac.asarray(mask, device=device)].numpy(), x[mask])
        np.testing.assert_array_equal(t[mask].numpy(), x[mask])  # a NumPy mask is uploaded
    m = x[0] > 0
    np.testing.assert_array_equal(t[1:, m].numpy(), x[1:, m])
    np.testing.assert_array_equal(t[..., x[0, 0] > 0].numpy(), x[..., x[0, 0] > 0])
    np.testing.assert_array_equal(t[x[:, 0, 0] > 0, 1:3, [0, 2] * 0 + [1]].numpy(), x[x[:, 0, 0] > 0, 1:3, [1]])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint16", "int64", "bool", "complex64",
                                   "complex128"])
def test_masks_over_every_axis_keep_elements_in_order(device, dtype):
    # x[mask] over every axis compacts directly (Note [Compaction]): sizes of several chunks on every
    # device, masks with long runs of true and false, strided x and mask, and empty results.
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((3, 70001)) * 100).astype(dtype)
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(x.shape).astype(dtype)
    t = ac.asarray(x, device=device)
    runs = np.repeat(rng.random(3 * 70001 // 5000 + 1) > 0.5, 5000)[:3 * 70001].reshape(3, 70001)
    for mask in [rng.random(x.shape) > 0.6, runs, np.zeros(x.shape, bool), np.ones(x.shape, bool)]:
        np.testing.assert_array_equal(t[ac.asarray(mask, device=device)].numpy(), x[mask])
    # Strided x and mask (a transposed view, every other column).
    mask = rng.random((70001, 3)) > 0.5
    np.testing.assert_array_equal(t.T[ac.asarray(mask, device=device)].numpy(), x.T[mask])
    np.testing.assert_array_equal(t[:, ::2][ac.asarray(mask.T[:, ::2], device=device)].numpy(),
                                  x[:, ::2][mask.T[:, ::2]])


@pytest.mark.parametrize("device", DEVICES)
def test_bad_indices_raise_and_leave_the_tensor_untouched(device):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = ac.asarray(x, device=device)
    with pytest.raises(IndexError, match="out of bounds"):
        t[[0, 3]]
    with pytest.raises(IndexError, match="out of bounds"):
        t[[0, 1], [4, 0]]
    with pytest.raises(IndexError, match="out of bounds"):
        t[[-4], [0]]
    with pytest.raises(IndexError, match="does not match"):
        t[np.ones(4, bool)]
    with pytest.raises(IndexError, match="integer or boolean"):
        t[np.array([0.0, 1.0])]
    with pytest.raises(IndexError, match="too many indices"):
        t[[0], [0], [0]]
    with pytest.raises(IndexError):
        t[[0, 1], [0, 1, 2]]  # the index arrays do not broadcast
    np.testing.assert_array_equal(t.numpy(), x)


ZERO_D_BOOLEAN_KEYS = [True, False, (0, True), (Ellipsis, False), (True, 1), (np.bool_(True), slice(None), None),
                       (None, False, 0), (slice(1, None), np.array(False), Ellipsis)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("key", ZERO_D_BOOLEAN_KEYS, ids=repr)
def test_zero_d_boolean_indices_add_an_axis_as_numpy(device, key):
    """True adds an axis of length 1 and False one of length 0, wherever they stand in the key; a 0-d bool
    tensor is the same index. Assignment through them writes everything or nothing."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = ac.asarray(x, device=device)
    np.testing.assert_array_equal(t[key].numpy(), x[key])
    assert t[key].shape == x[key].shape
    device_key = tuple(ac.asarray(k, device=device) if isinstance(k, (bool, np.bool_, np.ndarray)) else k
                       for k in (key if isinstance(key, tuple) else (key,)))
    assert t[device_key].shape == x[key].shape
    expected = x.copy()
    expected[key] = -1.0
    t[key] = -1.0
    np.testing.assert_array_equal(t.numpy(), expected)
    with pytest.raises(ac.NotSupportedError, match="0-d boolean index together with index arrays"):
        t[True, [0, 1]]


SET_KEYS = [
    ([0, 2], 7.0), ((slice(None), [1, 3]), np.arange(30.0).reshape(3, 2, 5)),
    ((0, slice(None), [1, 2]), np.arange(8.0).reshape(2, 4)), ((slice(None), 0, [1, 2]), np.arange(6.0).reshape(3, 2)),
    (([0, 1], [1, 2], [3, 4]), [-1.0, -2.0]), ((slice(1, None), [1, 2], [0, 4]), np.arange(4.0).reshape(2, 2)),
    ((Ellipsis, [-1]), 3.0),
]


@pytest.mark.parametrize("device", DEVICES)
def test_integer_array_assignment_matches_numpy(device):
    x = np.arange(60.0).reshape(3, 4, 5)
    for key, value in SET_KEYS:
        want = x.copy()
        want[key] = value
        t = ac.asarray(x, device=device)
        t[key] = ac.asarray(value, device=device) if isinstance(value, np.ndarray) else value
        np.testing.assert_array_equal(t.numpy(), want, err_msg=str(key))
    # A transposed view whose indexed axes do not merge: the scatter goes through a contiguous copy.
    base = ac.asarray(x, device=device)
    view = base.T
    view[[1, 2], [0, 1]] = -5.0
    want = x.copy()
    want.T[[1, 2], [0, 1]] = -5.0
    np.testing.assert_array_equal(base.numpy(), want)
    # Values read from the tensor itself are read before the writes.
    t = ac.asarray(np.arange(6.0), device=device)
    t[[0, 1, 2]] = t[1:4]
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0, 3.0, 3.0, 4.0, 5.0])


@pytest.mark.parametrize("device", DEVICES)
def test_boolean_mask_assignment_with_arrays(device):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 5))
    for mask in [x > 0, x[:, 0] > 0]:
        want = x.copy()
        count = int(mask.sum())
        values = np.arange(count * (1 if mask.ndim == 2 else 5), dtype=np.float64).reshape((count,) + x.shape[mask.ndim:])
        want[mask] = values
        t = ac.asarray(x, device=device)
        t[ac.asarray(mask, device=device)] = ac.asarray(values, device=device)
        np.testing.assert_array_equal(t.numpy(), want)
    t = ac.asarray(x, device=device)
    t[x > 0] = 0.0  # a NumPy mask and a scalar
    np.testing.assert_array_equal(t.numpy(), np.where(x > 0, 0.0, x))


@pytest.mark.parametrize("device", DEVICES)
def test_bad_assignments_leave_the_tensor_untouched(device):
    x = np.arange(12.0).reshape(3, 4)
    t = ac.asarray(x, device=device)
    with pytest.raises(IndexError, match="out of bounds"):
        t[[0, 1], [0, 4]] = 1.0
    with pytest.raises(IndexError, match="out of bounds"):
        t[[2, -4]] = 1.0
    with pytest.raises(ValueError):
        t[[0, 1]] = np.ones((3, 4))  # the values do not broadcast to (2, 4)
    with pytest.raises(ValueError):
        t[x > 5] = np.ones(5)  # 6 elements are selected
    np.testing.assert_array_equal(t.numpy(), x)
