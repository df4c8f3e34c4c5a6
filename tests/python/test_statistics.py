"""min, prod, var, std, all, any, count_nonzero and diff against NumPy on every device: dtypes, axes,
keepdims, views, empty selections, nan, and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import accelera as ac
from helpers import assert_close, inputs_unchanged, random_array

DEVICES = [d["device"] for d in ac.devices()]
SHAPES = [(1,), (13,), (7, 31), (3, 1, 127), (0, 5)]
AXES = [None, 0, -1, (0, -1)]


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


def cases(shapes=SHAPES, axes=AXES):
    for shape in shapes:
        for axis in axes:
            if axis is None or len(shape) > 1 or axis in (0, -1):
                yield shape, axis


def float64_reduction(fn, x, axis, keepdims, **kw):
    return fn(x.astype(np.float64), axis=axis, keepdims=keepdims, **kw)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("keepdims", [False, True])
def test_min_matches_numpy(device, dtype, keepdims, rng):
    for shape, axis in cases():
        x = random_array(rng, shape, dtype, -100, 100)
        reduced = [x.shape[a] for a in np.atleast_1d(axis if axis is not None else range(x.ndim))]
        kept = [n for a, n in enumerate(x.shape) if axis is not None and a % x.ndim not in np.atleast_1d(axis) % x.ndim]
        if 0 in reduced and 0 not in kept:  # NumPy: a zero-size reduction has no identity
            with pytest.raises(ValueError, match="empty"):
                ac.min(ac.asarray(x, device=device), axis=axis, keepdims=keepdims)
            continue
        with inputs_unchanged(x):
            got = ac.min(ac.asarray(x, device=device), axis=axis, keepdims=keepdims)
        assert_close(got, np.min(x, axis=axis, keepdims=keepdims), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_])
def test_prod_matches_numpy(device, dtype, rng):
    for shape, axis in cases():
        x = random_array(rng, shape, dtype, 0.8, 1.25) if np.dtype(dtype).kind == "f" else random_array(
            rng, shape, dtype, -3, 3)
        want = np.prod(x, axis=axis)  # NumPy's result dtype: int32 and bool give int64
        reference = float64_reduction(np.prod, x, axis, False) if want.dtype.kind == "f" else want
        got = ac.prod(ac.asarray(x, device=device), axis=axis)
        assert_close(got, reference, want.dtype, factor=4)


def test_integer_prod_wraps_as_numpy(device):
    x = np.full(70, 3, dtype=np.int64)  # 3^70 overflows int64
    assert_close(ac.prod(ac.asarray(x, device=device)), np.prod(x), np.int64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("correction", [0, 1, 2.5])
def test_var_and_std_match_numpy(device, dtype, correction, rng):
    for shape, axis in cases(shapes=[(1,), (13,), (7, 31), (3, 1, 127)]):
        x = random_array(rng, shape, dtype, -3, 3) + (1000 if np.dtype(dtype).kind == "f" else 0)
        x = x.astype(dtype)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NumPy warns where count <= correction
            want_var = np.var(x.astype(np.float64), axis=axis, ddof=correction)
        result_dtype = np.var(x, axis=axis).dtype
        # The deviations, not the offset of 1000, set the scale: the two-pass algorithm keeps it.
        scale = 1e3 * np.abs(want_var) + 1e-3 if result_dtype == np.float32 else None
        got = ac.var(ac.asarray(x, device=device), axis=axis, correction=correction)
        assert_close(got, want_var, result_dtype, scale=scale, factor=10)
        got_std = ac.asarray(x, device=device).std(axis=axis, ddof=correction)
        assert_close(got_std, np.sqrt(want_var), result_dtype, scale=None if scale is None else np.sqrt(scale),
                     factor=10)


def test_var_of_a_view_and_keepdims(device, rng):
    base = rng.standard_normal((9, 12))
    for view in (base.T, base[::2, 1::3], base[::-1]):
        got = ac.var(ac.asarray(view, device=device), axis=0, keepdims=True)
        assert_close(got, np.var(view, axis=0, keepdims=True), np.float64, factor=10)


def test_var_with_too_few_elements_is_inf_or_nan_as_numpy(device):
    x = np.array([1.0, 3.0])
    got = ac.var(ac.asarray(x, device=device), correction=2).numpy()
    assert np.isinf(got)
    got = ac.var(ac.asarray(np.zeros((0,)), device=device)).numpy()
    assert np.isnan(got)


@pytest.mark.parametrize("fn", ["all", "any", "count_nonzero"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_])
def test_truth_reductions_match_numpy(device, fn, dtype, rng):
    for shape, axis in cases():
        x = random_array(rng, shape, dtype, -1, 1)
        if np.dtype(dtype).kind == "f":
            x[rng.random(shape) < 0.5] = 0  # half zeros
        if x.size:
            x.flat[0] = np.nan if np.dtype(dtype).kind == "f" else x.flat[0]  # nan is nonzero
        for keepdims in (False, True):
            want = getattr(np, fn)(x, axis=axis, keepdims=keepdims)
            got = getattr(ac, fn)(ac.asarray(x, device=device), axis=axis, keepdims=keepdims)
            want = np.asarray(want, dtype=np.int64 if fn == "count_nonzero" else bool)
            assert_close(got, want, want.dtype)


def test_all_and_any_of_all_ones_and_all_zeros(device):
    ones, zeros = np.ones((5, 300), np.float32), np.zeros((5, 300), np.float32)
    assert ac.all(ac.asarray(ones, device=device)).item() is True
    assert ac.any(ac.asarray(zeros, device=device)).item() is False
    assert ac.asarray(ones, device=device).all(axis=1).numpy().tolist() == [True] * 5
    assert ac.asarray(zeros, device=device).any(axis=0).numpy().sum() == 0


@pytest.mark.parametrize("n", [0, 1, 2, 3])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_diff_matches_numpy(device, n, axis, rng):
    x = rng.standard_normal((6, 9))
    got = ac.diff(ac.asarray(x, device=device), axis=axis, n=n)
    assert_close(got, np.diff(x, n=n, axis=axis), np.float64, scale=2**n * np.abs(x).max())


def test_min_propagates_nan(device):
    x = np.array([[1.0, np.nan, -2.0], [4.0, 5.0, 6.0]], np.float32)
    got = ac.min(ac.asarray(x, device=device), axis=1).numpy()
    assert np.isnan(got[0]) and got[1] == 4.0


def test_bad_input_is_typed_and_leaves_inputs_alone(device):
    x = np.arange(12.0).reshape(3, 4)
    with inputs_unchanged(x):
        t = ac.asarray(x, device=device)
        with pytest.raises(TypeError):
            ac.var(t, correction="1")
        with pytest.raises(ValueError):
            ac.var(t, correction=-1)
        with pytest.raises(ValueError):
            ac.std(t, correction=1, ddof=2)
        with pytest.raises((ValueError, IndexError)):
            ac.min(t, axis=2)
        with pytest.raises(ValueError, match="duplicate"):
            ac.prod(t, axis=(0, 0))
        with pytest.raises(TypeError):
            ac.min(ac.asarray(np.ones(3, bool), device=device))
        with pytest.raises(IndexError):
            ac.diff(t, axis=5)
        with pytest.raises(ValueError):
            ac.diff(t, n=-1)


@pytest.mark.parametrize("fn", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("keepdims", [False, True])
def test_argmax_and_argmin_match_numpy(device, fn, dtype, keepdims, rng):
    for shape in [(1,), (13,), (7, 31), (3, 1, 127), (0, 5)]:
        for axis in [None] + list(range(-len(shape), len(shape))):
            x = random_array(rng, shape, dtype, -5, 5)  # few distinct values: ties, first one wins
            if 0 in (x.shape if axis is None else (x.shape[axis],)):  # nothing to choose from
                with pytest.raises(ValueError, match="empty"):
                    getattr(ac, fn)(ac.asarray(x, device=device), axis=axis, keepdims=keepdims)
                continue
            with inputs_unchanged(x):
                got = getattr(ac, fn)(ac.asarray(x, device=device), axis=axis, keepdims=keepdims)
            assert_close(got, getattr(np, fn)(x, axis=axis, keepdims=keepdims), np.int64)


@pytest.mark.parametrize("fn", ["argmax", "argmin"])
def test_the_first_nan_wins_as_in_numpy(device, fn):
    x = np.array([[1.0, np.nan, 3.0, np.nan], [2.0, 0.5, -1.0, 9.0], [np.nan, 1.0, 1.0, 1.0]], np.float32)
    for axis in (None, 0, 1):
        got = getattr(ac.asarray(x, device=device), fn)(axis=axis)
        assert_close(got, getattr(np, fn)(x, axis=axis), np.int64)


def test_argmax_of_a_long_row_split_across_threads(device):
    x = np.zeros(3_000_001, np.float32)
    x[[17, 2_000_000, 2_999_999]] = 5.0  # three equal maxima: the first is the answer
    assert ac.argmax(ac.asarray(x, device=device)).item() == 17
    x[2_500_000] = np.nan
    assert ac.argmax(ac.asarray(x, device=device)).item() == 2_500_000


# Lengths around the 16-lane vectors and the splits of a long run into parts (OpenCL's CPU-device form
# reduces contiguous chunks in vector lanes): a short run, one lane short of and past a vector, runs whose
# tail follows whole vectors, and runs split into parts.
RUN_LENGTHS = [5, 15, 16, 17, 47, 8_191, 8_209, 65_537, 1_000_003]


@pytest.mark.parametrize("n", RUN_LENGTHS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.uint16, np.int64])
def test_reductions_of_contiguous_runs_at_lane_and_part_boundaries(device, n, dtype, rng):
    x = random_array(rng, (n,), dtype)
    rows = random_array(rng, (3, n), dtype)
    for fn in ("sum", "max", "min", "argmax", "argmin"):
        for data, axis in ((x, None), (rows, 1)):
            dtype_wanted = getattr(np, fn)(data, axis=axis).dtype
            exact = fn != "sum" or data.dtype.kind != "f"
            want = getattr(np, fn)(data if exact else data.astype(np.float64), axis=axis)
            scale = None if exact else np.sum(np.abs(data.astype(np.float64)), axis=axis)
            assert_close(getattr(ac, fn)(ac.asarray(data, device=device), axis=axis), want, dtype_wanted, scale=scale)


# Column reductions: a few columns over many rows (OpenCL's CPU-device form splits the rows into parts), a
# row wider than one block of columns with a tail past whole vectors, and a kept axis before the reduced one.
@pytest.mark.parametrize("shape, axis", [((70_000, 3), 0), ((3_000, 7), 0), ((300, 2_500), 0), ((4, 700, 5), 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_column_reductions_of_narrow_and_wide_matrices(device, shape, axis, dtype, rng):
    x = random_array(rng, shape, dtype)
    t = ac.asarray(x, device=device)
    for fn in ("sum", "max", "min", "mean", "var"):
        dtype_wanted = getattr(np, fn)(x, axis=axis).dtype
        exact = fn in ("max", "min") or x.dtype.kind != "f" and fn == "sum"
        want = getattr(np, fn)(x if exact else x.astype(np.float64), axis=axis)
        scale = None if exact else np.sum(np.abs(x.astype(np.float64)), axis=axis) / (shape[axis] if fn != "sum" else 1)
        assert_close(getattr(ac, fn)(t, axis=axis), want, dtype_wanted, scale=scale, factor=10)


@pytest.mark.parametrize("n", RUN_LENGTHS)
@pytest.mark.parametrize("where", ["first", "lane", "tail", "last"])
def test_nan_and_ties_anywhere_in_a_run(device, n, where):
    # Three equal maxima and minima in other lanes: the first index wins; then a nan wins everything.
    x = np.zeros(n, np.float32)
    for i in sorted({0, n // 3, n - 1}):
        x[i], x[(i + 1) % n] = 2.0, -2.0
    t = ac.asarray(x, device=device)
    assert ac.argmax(t).item() == np.argmax(x) and ac.argmin(t).item() == np.argmin(x)
    at = {"first": 0, "lane": min(n - 1, 21), "tail": n - 1 - (n % 16) // 2, "last": n - 1}[where]
    x[at] = np.nan
    if at + 3 < n:
        x[at + 3] = np.nan  # a later nan does not win
    t = ac.asarray(x, device=device)
    assert ac.argmax(t).item() == at and ac.argmin(t).item() == at
    assert np.isnan(ac.max(t).item()) and np.isnan(ac.min(t).item()) and np.isnan(ac.sum(t).item())


def test_argmax_bad_input(device):
    t = ac.asarray(np.ones((2, 3)), device=device)
    with pytest.raises(TypeError):
        ac.argmax(t, axis=(0, 1))
    with pytest.raises((ValueError, IndexError)):
        ac.argmax(t, axis=2)
    with pytest.raises(TypeError):
        ac.argmin(ac.asarray(np.ones(3, bool), device=device))
