"""sort, argsort, searchsorted and unique_* against NumPy / the array API's reference semantics on every
device: stability in both directions, NaNs (last ascending, first descending; each distinct in unique),
signed zeros, every dtype, axes and views; bad arguments raise typed errors and leave inputs untouched."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as ac

DEVICES = [d["device"] for d in ac.devices()]
DTYPES = ["float32", "float64", "float16", "int32", "int64", "bool"]


def _with_specials(rng, shape, dtype):
    """Values with many ties; floats also with signed zeros, infinities and NaNs."""
    x = rng.integers(-4, 5, shape).astype(np.float64)
    if np.dtype(dtype).kind == "f":
        specials = np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 0.5])
        mask = rng.random(shape) < 0.3
        x[mask] = rng.choice(specials, int(mask.sum()))
    return x.astype(dtype)


def _stable_argsort(x, axis, descending):
    """The array API's order: NumPy's stable sort, descending = flip, stable sort, flip (NaNs first)."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    flipped = np.flip(x, axis)
    order = np.argsort(flipped, axis=axis, kind="stable")
    return np.flip(n - 1 - order, axis)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_and_argsort_match_the_stable_order(device, dtype):
    rng = np.random.default_rng(3)
    for shape in [(1,), (7,), (13, 31), (3, 1, 127), (2, 3, 4, 5), (0, 5), (2, 1031)]:
        x = _with_specials(rng, shape, dtype)
        t = ac.asarray(x, device=device)
        for axis in range(-x.ndim, x.ndim):
            for descending in (False, True):
                want = _stable_argsort(x, axis, descending)
                got = ac.argsort(t, axis=axis, descending=descending)
                assert got.dtype == ac.int64
                np.testing.assert_array_equal(got.numpy(), want)
                values = ac.sort(t, axis=axis, descending=descending, stable=False).numpy()
                np.testing.assert_array_equal(values, np.take_along_axis(x, want, axis))


@pytest.mark.parametrize("device", DEVICES)
def test_sort_of_views_and_large_rows(device):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((64, 300)).astype(np.float32)
    t = ac.asarray(x, device=device)
    np.testing.assert_array_equal(ac.sort(t.T, axis=0).numpy(), np.sort(x.T, axis=0))
    np.testing.assert_array_equal(ac.argsort(t[::3, ::-2]).numpy(), np.argsort(x[::3, ::-2], kind="stable"))
    big = rng.standard_normal(300_001).astype(np.float32)
    np.testing.assert_array_equal(ac.sort(ac.asarray(big, device=device)).numpy(), np.sort(big))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_numpy(device, side):
    rng = np.random.default_rng(5)
    for dtype in DTYPES:
        x1 = np.sort(_with_specials(rng, (41,), dtype))
        x2 = _with_specials(rng, (3, 17), dtype)
        got = ac.searchsorted(ac.asarray(x1, device=device), ac.asarray(x2, device=device), side=side)
        np.testing.assert_array_equal(got.numpy(), np.searchsorted(x1, x2, side=side))
        shuffled = rng.permutation(x1)
        sorter = np.argsort(shuffled, kind="stable")
        got = ac.searchsorted(ac.asarray(shuffled, device=device), ac.asarray(x2, device=device), side=side,
                              sorter=ac.asarray(sorter, device=device))
        np.testing.assert_array_equal(got.numpy(), np.searchsorted(shuffled, x2, side=side, sorter=sorter))
    # Mixed dtypes promote: a float needle among integers.
    got = ac.searchsorted(ac.asarray(np.arange(5), device=device), ac.asarray([1.5, -1.0], device=device))
    np.testing.assert_array_equal(got.numpy(), [2, 0])


def _unique_reference(x):
    """unique_all of the array API: NumPy's, with each NaN kept distinct."""
    flat = x.reshape(-1)
    order = np.argsort(flat, kind="stable")
    s = flat[order]
    starts = np.ones(s.size, dtype=bool)
    if s.size:
        starts[1:] = (s[1:] != s[:-1]) | np.isnan(s[1:]) if s.dtype.kind == "f" else s[1:] != s[:-1]
    group = np.cumsum(starts) - 1
    inverse = np.empty(flat.size, dtype=np.int64)
    inverse[order] = group
    bounds = np.append(np.flatnonzero(starts), s.size)
    return s[starts], order[starts], inverse.reshape(x.shape), np.diff(bounds)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unique_functions(device, dtype):
    rng = np.random.default_rng(6)
    for shape in [(), (0,), (1,), (9,), (13, 31), (2, 0, 3), (3, 4, 5)]:
        x = _with_specials(rng, shape, dtype)
        t = ac.asarray(x, device=device)
        values, indices, inverse, counts = _unique_reference(x)
        r = ac.unique_all(t)
        assert r._fields == ("values", "indices", "inverse_indices", "counts")
        np.testing.assert_array_equal(r.values.numpy(), values)
        np.testing.assert_array_equal(r.indices.numpy(), indices)
        np.testing.assert_array_equal(r.inverse_indices.numpy(), inverse)
        np.testing.assert_array_equal(r.counts.numpy(), counts)
        np.testing.assert_array_equal(ac.unique_values(t).numpy(), values)
        c = ac.unique_counts(t)
        np.testing.assert_array_equal(c.counts.numpy(), counts)
        i = ac.unique_inverse(t)
        np.testing.assert_array_equal(i.inverse_indices.numpy(), inverse)


def test_nans_are_distinct_in_unique_as_the_standard_says():
    x = ac.asarray([np.nan, 1.0, np.nan, 1.0])
    r = ac.unique_counts(x)
    np.testing.assert_array_equal(r.values.numpy(), [1.0, np.nan, np.nan])
    np.testing.assert_array_equal(r.counts.numpy(), [2, 1, 1])


def test_bad_arguments_raise_typed_errors_and_leave_inputs_untouched():
    x = np.array([3.0, 1.0, 2.0])
    t = ac.asarray(x)
    with pytest.raises(ValueError):
        ac.sort(t, axis=1)
    with pytest.raises(ValueError):
        ac.argsort(ac.asarray(np.float32(1.0)))
    with pytest.raises(TypeError):
        ac.sort(t, descending="yes")
    with pytest.raises(TypeError):
        ac.argsort(t, axis=0.5)
    with pytest.raises(ValueError):
        ac.searchsorted(t, t, side="middle")
    with pytest.raises(ValueError):
        ac.searchsorted(ac.asarray(np.ones((2, 2))), t)
    with pytest.raises(TypeError):
        ac.searchsorted(t, t, sorter=ac.asarray([0.0, 1.0, 2.0]))
    with pytest.raises(ValueError):
        ac.searchsorted(t, t, sorter=ac.asarray([0, 1]))
    with pytest.raises(IndexError):
        ac.searchsorted(t, t, sorter=ac.asarray([0, 1, 7]))
    np.testing.assert_array_equal(t.numpy(), x)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES + ["uint8", "complex64"])
def test_isin_matches_numpy(device, dtype):
    rng = np.random.default_rng(17)
    for shape1, shape2 in [((1,), (1,)), ((7,), (3,)), ((13, 31), (5, 2)), ((2, 3, 5), (0,)), ((), (11,)),
                           ((1031,), (257,))]:
        real = np.dtype(dtype).kind != "c"
        x1 = _with_specials(rng, shape1, dtype) if real else (rng.integers(-4, 5, shape1) + 1j).astype(dtype)
        x2 = _with_specials(rng, shape2, dtype) if real else (rng.integers(-4, 5, shape2) + 1j).astype(dtype)
        t1, t2 = ac.asarray(x1, device=device), ac.asarray(x2, device=device)
        for invert in (False, True):
            result = ac.isin(t1, t2, invert=invert)
            assert result.dtype == "bool" and result.shape == x1.shape and result.device == device
            # NaN is in nothing (NumPy agrees: nan != nan); -0.0 is in [+0.0].
            np.testing.assert_array_equal(result.numpy(), np.isin(x1, x2, invert=invert))
        np.testing.assert_array_equal(t1.numpy(), x1)
        np.testing.assert_array_equal(t2.numpy(), x2)


def test_isin_promotes_and_takes_scalars_and_numpy_calls():
    for device in DEVICES:
        x = ac.asarray(np.array([1, 2, 3, 300], np.int16), device=device)
        np.testing.assert_array_equal(ac.isin(x, ac.asarray(np.array([2.0, 300.5]), device=device)).numpy(),
                                      [False, True, False, False])
        np.testing.assert_array_equal(ac.isin(x, 3).numpy(), [False, False, True, False])
        np.testing.assert_array_equal(ac.isin(3, x).numpy(), True)
        np.testing.assert_array_equal(ac.isin(np.float32(-0.0), ac.asarray([0.0], device=device)).numpy(), True)
        result = np.isin(x, [1, 300])
        assert isinstance(result, ac.Tensor) and result.device == device
        with pytest.raises(TypeError, match="invert must be True or False"):
            ac.isin(x, x, invert=1)
