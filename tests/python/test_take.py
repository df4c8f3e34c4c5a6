"""take and take_along_axis against NumPy on every device: axes, negative indices, both index dtypes,
strided inputs, empty results; out-of-range indices raise IndexError and leave the inputs untouched."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as ac

DEVICES = [d["device"] for d in ac.devices()]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_take_matches_numpy(device, index_dtype):
    rng = np.random.default_rng(1)
    for shape in [(7,), (1,), (13, 31), (3, 1, 127), (2, 3, 4, 5), (0, 5)]:
        x = rng.standard_normal(shape).astype(np.float32)
        t = ac.asarray(x, device=device)
        for axis in [None, *range(-x.ndim, x.ndim)]:
            size = x.size if axis is None else x.shape[axis]
            for ind_shape in [(5,), (), (0,), (3, 2)]:
                if size == 0 and np.prod(ind_shape, dtype=int) > 0:
                    continue
                ind = rng.integers(-size, max(size, 1), ind_shape).astype(index_dtype)
                got = ac.take(t, ac.asarray(ind, device=device), axis=axis)
                np.testing.assert_array_equal(got.numpy(), np.take(x, ind, axis=axis))


@pytest.mark.parametrize("device", DEVICES)
def test_take_of_views_and_dtypes(device):
    x = np.arange(60).reshape(6, 10)
    t = ac.asarray(x, device=device)
    ind = np.array([9, -1, 0, 3])
    np.testing.assert_array_equal(ac.take(t.T, ind, axis=0).numpy(), np.take(x.T, ind, axis=0))
    np.testing.assert_array_equal(ac.take(t[::2, ::-3], [1, -1], axis=1).numpy(), np.take(x[::2, ::-3], [1, -1], axis=1))
    for dtype in ["float64", "float16", "int32", "bool"]:
        y = (x % 3).astype(dtype)
        np.testing.assert_array_equal(ac.take(ac.asarray(y, device=device), ind, axis=1).numpy(), np.take(y, ind, axis=1))


@pytest.mark.parametrize("device", DEVICES)
def test_take_along_axis_matches_numpy(device):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 7, 5))
    t = ac.asarray(x, device=device)
    for axis in range(-3, 3):
        shape = list(x.shape)
        shape[axis] = 3
        ind = rng.integers(-x.shape[axis], x.shape[axis], shape)
        np.testing.assert_array_equal(ac.take_along_axis(t, ac.asarray(ind, device=device), axis).numpy(),
                                      np.take_along_axis(x, ind, axis))
    order = np.argsort(x, axis=1)  # the classic use: sorting by an argsort along an axis
    np.testing.assert_array_equal(ac.take_along_axis(t, order, axis=1).numpy(), np.sort(x, axis=1))
    # Broadcasting outside the axis.
    ind = rng.integers(0, 7, (1, 2, 5))
    np.testing.assert_array_equal(ac.take_along_axis(t, ind, axis=1).numpy(), np.take_along_axis(x, ind, axis=1))


@pytest.mark.parametrize("device", DEVICES)
def test_out_of_range_indices_raise_index_error(device):
    x = np.arange(12.0).reshape(3, 4)
    t = ac.asarray(x, device=device)
    for bad in ([0, 4], [-5], [100]):
        ind = ac.asarray(np.array(bad), device=device)
        with pytest.raises(IndexError, match="out of bounds for axis 1 with size 4"):
            ac.take(t, ind, axis=1)
        with pytest.raises(ac.IndexOutOfBoundsError):
            ac.take_along_axis(t, ac.asarray(np.array([bad]), device=device), axis=1)
        np.testing.assert_array_equal(ind.numpy(), bad)
    with pytest.raises(IndexError):
        ac.take(t, [12])
    with pytest.raises(IndexError):
        ac.take(ac.asarray(np.zeros((0, 3)), device=device), [0], axis=0)
    np.testing.assert_array_equal(t.numpy(), x)


def test_bad_take_arguments():
    t = ac.asarray(np.arange(6.0).reshape(2, 3))
    with pytest.raises(TypeError):
        ac.take(t, np.array([0.0, 1.0]), axis=0)
    with pytest.raises(TypeError):
        ac.take(t, np.array([True, False]), axis=0)
    with pytest.raises(ValueError):
        ac.take(t, [0], axis=2)
    with pytest.raises(ValueError):
        ac.take_along_axis(t, np.array([0, 1]), axis=0)  # ranks differ
    with pytest.raises(TypeError):
        ac.take(t, [0], axis=1.0)
    if "opencl:0" in DEVICES:
        with pytest.raises(RuntimeError):
            ac.take(t.to("opencl:0"), ac.asarray(np.array([0])), axis=0)
