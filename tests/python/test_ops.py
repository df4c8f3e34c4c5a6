"""Every op against a float64 NumPy reference: shapes (0-d, empty, 1, primes), strided NumPy inputs,
broadcasting, NumPy's result dtypes, weak Python scalars, special values and random (Hypothesis) cases."""

from __future__ import annotations

import math
import warnings

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import accelera as ac
from helpers import SHAPES, assert_close, check_result_type, inputs_unchanged, noncontiguous_views, random_array
from helpers import shape_id

F32, F64, I32, I64, BOOL = (np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64, np.bool_))


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _relu(x):
    return np.maximum(x, 0)


# name -> (NumPy reference, input range): the reference applied to the original dtype gives NumPy's
# result dtype, applied to float64 it gives the values.
UNARY = {
    "negative": (np.negative, (-3.0, 3.0)),
    "exp": (np.exp, (-10.0, 10.0)),
    "log": (np.log, (0.01, 50.0)),
    "tanh": (np.tanh, (-4.0, 4.0)),
    "relu": (_relu, (-3.0, 3.0)),
    "sigmoid": (_sigmoid, (-12.0, 12.0)),
}

BINARY = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
}

OPERATOR = {"add": "__add__", "subtract": "__sub__", "multiply": "__mul__", "divide": "__truediv__"}


def _numpy_dtype(fn, *arrays):
    """The dtype NumPy gives for ``fn`` on tiny arrays of the same dtypes (no warnings, no values)."""
    with np.errstate(all="ignore"):
        return np.asarray(fn(*(np.ones((1,), dtype=a.dtype) for a in arrays))).dtype


def _reference(fn, *arrays):
    """Values of ``fn`` in float64 (or exactly, in the original dtypes, when NumPy's result is an integer)."""
    dtype = _numpy_dtype(fn, *arrays)
    with np.errstate(all="ignore"):
        if dtype.kind == "f":
            return np.asarray(fn(*(a.astype(np.float64) for a in arrays))), dtype
        return np.asarray(fn(*arrays)), dtype


def _unary_input(rng, name, shape, dtype):
    low, high = UNARY[name][1]
    if np.dtype(dtype).kind == "i":
        low, high = (1, 9) if name == "log" else (-9, 9)
        return rng.integers(low, high + 1, size=shape).astype(dtype)
    return random_array(rng, shape, dtype, low, high)


# ----------------------------------------------------------------------------------------------------------
# Unary ops


@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
@pytest.mark.parametrize("dtype", [F32, F64, I32, I64], ids=str)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_matches_numpy(name, dtype, shape, rng):
    x = _unary_input(rng, name, shape, dtype)
    want, want_dtype = _reference(UNARY[name][0], x)
    with inputs_unchanged(x):
        got = getattr(ac, name)(x)
    assert_close(got, want, want_dtype)
    # The same op on a Tensor operand gives the same result.
    assert_close(getattr(ac, name)(ac.asarray(x)), want, want_dtype)


@pytest.mark.parametrize("view", list(noncontiguous_views(np.zeros((7, 13)))))
@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_strided_numpy_inputs(name, dtype, view, rng):
    base = _unary_input(rng, name, (13, 7), dtype)
    x = noncontiguous_views(base)[view]
    want, want_dtype = _reference(UNARY[name][0], x)
    with inputs_unchanged(base, x):
        assert_close(getattr(ac, name)(x), want, want_dtype)


@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_special_values(name, dtype):
    x = np.array([0.0, -0.0, 1e-30, -1e-30, 88.0, -88.0, 100.0, -100.0, 710.0, -750.0, np.inf, -np.inf, np.nan,
                  -1.0, 1.0], dtype=dtype)
    want, want_dtype = _reference(UNARY[name][0], x)
    assert_close(getattr(ac, name)(x), want, want_dtype)


def test_tensor_methods_match_functions(rng):
    x = random_array(rng, (7, 13), F64, 0.1, 2.0)
    t = ac.asarray(x)
    assert_close(t.exp(), np.exp(x), F64)
    assert_close(t.log(), np.log(x), F64)
    assert_close(t.tanh(), np.tanh(x), F64)


# ----------------------------------------------------------------------------------------------------------
# Binary ops with broadcasting and promotion

BROADCAST_PAIRS = [
    ((), ()),
    ((7,), ()),
    ((), (13,)),
    ((127,), (127,)),
    ((7, 13), (13,)),
    ((7, 1), (1, 13)),
    ((2, 7, 13), (7, 1)),
    ((13, 1, 7), (1, 5, 1)),
    ((0, 13), (13,)),
    ((7, 0), (7, 1)),
    ((1,), (0,)),
    ((3, 0, 5), (1, 5)),
]

DTYPE_PAIRS = [
    (F32, F32),
    (F64, F64),
    (F32, F64),  # -> float64
    (I32, F32),  # -> float64 (NumPy: int32 and float32 meet at float64)
    (F32, I64),  # -> float64
    (I32, I32),
    (I64, I32),  # -> int64
    (BOOL, F32),  # -> float32
    (I32, BOOL),  # -> int32
    (np.dtype(np.float16), F32),  # -> float32
]


def _binary_inputs(rng, name, sa, sb, da, db):
    a = random_array(rng, sa, da)
    b = random_array(rng, sb, db)
    if name == "divide" and b.dtype.kind == "f":
        b = np.where(np.abs(b) < 0.1, b.dtype.type(0.5), b).astype(db)  # keep quotients well-conditioned
    return a, b


@pytest.mark.parametrize("da, db", DTYPE_PAIRS, ids=lambda d: str(d))
@pytest.mark.parametrize("sa, sb", BROADCAST_PAIRS, ids=lambda s: shape_id(s))
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_matches_numpy(name, sa, sb, da, db, rng):
    a, b = _binary_inputs(rng, name, sa, sb, da, db)
    want, want_dtype = _reference(BINARY[name], a, b)
    with inputs_unchanged(a, b):
        assert_close(getattr(ac, name)(a, b), want, want_dtype)
        # Operators on Tensors give the same result.
        assert_close(getattr(ac.asarray(a), OPERATOR[name])(ac.asarray(b)), want, want_dtype)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("view", list(noncontiguous_views(np.zeros((7, 13)))))
@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_strided_numpy_inputs(name, dtype, view, side, rng):
    base = random_array(rng, (13, 7), dtype, 0.5, 3.0)
    v = noncontiguous_views(base)[view]
    other = random_array(rng, v.shape, dtype, 0.5, 3.0)
    a, b = (v, other) if side == "left" else (other, v)
    want, want_dtype = _reference(BINARY[name], a, b)
    with inputs_unchanged(base, v, other):
        assert_close(getattr(ac, name)(a, b), want, want_dtype)
    # Two strided operands broadcasting against each other: a row view and a column view.
    row, col = base[::-2, :1].T, base[1::3, ::-1][:, :1]
    want, want_dtype = _reference(BINARY[name], row, col)
    assert_close(getattr(ac, name)(row, col), want, want_dtype)


@pytest.mark.parametrize(
    "op, da, db, expected",
    [
        (ac.add, F32, F64, F64),
        (ac.multiply, F64, F32, F64),
        (ac.add, I32, F32, F64),  # int32 + float32 -> float64, as NumPy
        (ac.subtract, F32, I32, F64),
        (ac.add, I32, I64, I64),
        (ac.divide, I32, I32, F64),  # true division of integers -> float64
        (ac.divide, I64, I64, F64),
        (ac.divide, F32, F32, F32),
        (ac.add, BOOL, I32, I32),
        (ac.matmul, F32, F64, F64),
    ],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_promotion_table(op, da, db, expected):
    a = np.ones((2, 2), dtype=da)
    b = np.ones((2, 2), dtype=db)
    np_op = {ac.add: np.add, ac.subtract: np.subtract, ac.multiply: np.multiply, ac.divide: np.divide,
             ac.matmul: np.matmul}[op]
    assert np_op(a, b).dtype == expected  # the table is NumPy's
    got = op(a, b)
    assert got.dtype == expected and got.numpy().dtype == expected
    got = op(ac.asarray(a), ac.asarray(b))
    assert got.dtype == expected


def test_integer_division_gives_float64():
    a = np.array([7, -7, 0, 3, 5], dtype=np.int32)
    b = np.array([2, 2, 1, -4, 0], dtype=np.int32)
    with np.errstate(divide="ignore"):
        want = np.divide(a, b)
    assert want.dtype == F64
    assert_close(ac.divide(a, b), want, F64)  # 5 / 0 -> inf, as in NumPy
    assert_close(ac.asarray(a.astype(np.int64)) / ac.asarray(b), want, F64)


def test_integer_arithmetic_is_exact_and_wraps_like_numpy():
    a = np.array([2**31 - 1, -(2**31), 12345], dtype=np.int32)
    b = np.array([1, -1, 54321], dtype=np.int32)
    with np.errstate(over="ignore"):
        for name, fn in [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply)]:
            want = fn(a, b)
            got = getattr(ac, name)(a, b)
            check_result_type(got, want)
            np.testing.assert_array_equal(got.numpy(), want)
    big = np.array([2**62, -(2**62)], dtype=np.int64)
    np.testing.assert_array_equal(ac.add(big, np.int64(3)).numpy(), big + 3)


# ----------------------------------------------------------------------------------------------------------
# Python scalars are weak (NEP 50): they take the tensor's dtype when they can; NumPy scalars are strong.

SCALARS = [2, -3, 1.5, -0.25, True]
# bool with a bool scalar is a logical op in NumPy, and Accelera does not compute bool: left out.
SCALAR_CASES = [(d, s) for d in (F32, F64, I32, I64, BOOL) for s in SCALARS if not (d == BOOL and s is True)]


@pytest.mark.parametrize("dtype, scalar", SCALAR_CASES, ids=str)
@pytest.mark.parametrize("name", list(BINARY))
def test_python_scalars_are_weak(name, dtype, scalar, rng):
    x = random_array(rng, (7, 13), dtype, 0.5, 3.0)
    if dtype.kind == "i":
        x = np.where(x == 0, 1, x).astype(dtype)
    t = ac.asarray(x)
    fn = BINARY[name]
    cases = [
        (getattr(ac, name)(t, scalar), False),
        (getattr(ac, name)(scalar, t), True),
        (getattr(t, OPERATOR[name])(scalar), False),
        (getattr(t, "__r" + OPERATOR[name][2:])(scalar), True),
    ]
    for got, reflected in cases:
        with np.errstate(all="ignore"):
            want = fn(scalar, x) if reflected else fn(x, scalar)  # NumPy's result, with its dtype
            exact = fn(scalar, x.astype(np.float64)) if reflected else fn(x.astype(np.float64), scalar)
        if want.dtype.kind == "f":
            assert_close(got, exact, want.dtype)
        else:
            check_result_type(got, want)
            np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("dtype, scalar", [(F32, 1.5), (F32, 2), (I32, 2)], ids=str)
def test_python_scalars_are_weak_next_to_numpy_arrays(dtype, scalar):
    """A NumPy array operand is an array too: ac.add(np_float32, 2) is float32, as np.add gives."""
    x = np.arange(1, 8).astype(dtype)
    for name, fn in BINARY.items():
        want = fn(x, scalar)
        for got in (getattr(ac, name)(x, scalar), getattr(ac, name)(scalar, x)):
            assert got.dtype == want.dtype, (
                f"accelera.{name}(<{dtype} ndarray>, {scalar!r}) gives {got.dtype!r}, NumPy gives {want.dtype}")


@pytest.mark.parametrize(
    "dtype, scalar, expected",
    [
        (F32, 1.5, F32),  # float32 tensor + Python float stays float32
        (I32, 2, I32),  # int32 tensor + Python int stays int32
        (I32, 1.5, F64),  # int tensor + Python float -> float64
        (I64, 1.5, F64),
        (BOOL, 2, I64),
        (F32, 2, F32),
        (F64, 2, F64),
    ],
)
def test_weak_scalar_result_dtypes(dtype, scalar, expected):
    t = ac.asarray(np.ones((3,), dtype=dtype))
    for result in (t + scalar, scalar + t, t - scalar, scalar - t, t * scalar, scalar * t):
        assert result.dtype == expected
        assert result.numpy().dtype == expected
    assert (t / scalar).dtype == (expected if expected.kind == "f" else F64)


def test_numpy_scalars_are_strong():
    t = ac.asarray(np.ones((3,), dtype=np.float32))
    assert (t + np.float64(2.0)).dtype == np.result_type(np.float32, np.float64) == F64
    assert (np.float64(2.0) + t).dtype == F64
    assert isinstance(np.float64(2.0) + t, ac.Tensor)
    assert (t * np.float32(2.0)).dtype == F32
    ti = ac.asarray(np.ones((3,), dtype=np.int32))
    assert (ti + np.int64(1)).dtype == I64


def test_python_int_out_of_range_for_int32_raises_overflow_error():
    t = ac.asarray(np.ones((3,), dtype=np.int32))
    with pytest.raises(OverflowError):
        np.ones((3,), dtype=np.int32) + 2**40  # NumPy's behaviour ...
    with pytest.raises(OverflowError):
        t + 2**40  # ... and Accelera's


# ----------------------------------------------------------------------------------------------------------
# Reductions


def _axis_choices(ndim):
    choices = [None, ()]
    for i in range(ndim):
        choices += [i, i - ndim]
    if ndim >= 2:
        choices += [(0, ndim - 1), (-1, 0), tuple(range(ndim))]
    if ndim >= 3:
        choices += [(0, 2), (-2,)]
    return choices


REDUCTIONS = {"sum": np.sum, "mean": np.mean, "max": np.max}
REDUCE_CASES = [(shape, axis) for shape in SHAPES for axis in _axis_choices(len(shape))]


def _reduce_reference(name, x, axis, keepdims):
    """(values, dtype, scale) of NumPy's reduction; raises what NumPy raises."""
    fn = REDUCTIONS[name]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # mean of an empty slice is nan, with a warning
        dtype = np.asarray(fn(x, axis=axis, keepdims=keepdims)).dtype
        if dtype.kind != "f":
            return np.asarray(fn(x, axis=axis, keepdims=keepdims)), dtype, None
        xf = x.astype(np.float64)
        want = np.asarray(fn(xf, axis=axis, keepdims=keepdims))
        scale = None
        if name == "sum":
            scale = np.asarray(np.sum(np.abs(xf), axis=axis, keepdims=keepdims))
        elif name == "mean":
            scale = np.asarray(np.mean(np.abs(xf), axis=axis, keepdims=keepdims))
        return want, dtype, scale


@pytest.mark.parametrize("keepdims", [False, True], ids=["drop", "keep"])
@pytest.mark.parametrize("shape, axis", REDUCE_CASES, ids=lambda v: shape_id(v) if isinstance(v, tuple) else repr(v))
@pytest.mark.parametrize("dtype", [F32, F64, I32, I64], ids=str)
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduction_matches_numpy(name, dtype, shape, axis, keepdims, rng):
    x = random_array(rng, shape, dtype)
    try:
        want, want_dtype, scale = _reduce_reference(name, x, axis, keepdims)
    except ValueError:
        # NumPy: max of an empty selection has no identity. Accelera raises its ArgumentError (a ValueError).
        with inputs_unchanged(x), pytest.raises(ac.ArgumentError):
            getattr(ac, name)(x, axis=axis, keepdims=keepdims)
        return
    with inputs_unchanged(x):
        got = getattr(ac, name)(x, axis=axis, keepdims=keepdims)
    assert_close(got, want, want_dtype, scale=scale)
    # The Tensor method is the same function.
    assert_close(getattr(ac.asarray(x), name)(axis=axis, keepdims=keepdims), want, want_dtype, scale=scale)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1), (1, 0)], ids=repr)
@pytest.mark.parametrize("view", list(noncontiguous_views(np.zeros((7, 13)))))
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduction_strided_numpy_inputs(name, view, axis, rng):
    for dtype in (F32, F64, I32):
        base = random_array(rng, (13, 7), dtype)
        x = noncontiguous_views(base)[view]
        for keepdims in (False, True):
            want, want_dtype, scale = _reduce_reference(name, x, axis, keepdims)
            with inputs_unchanged(base, x):
                assert_close(getattr(ac, name)(x, axis=axis, keepdims=keepdims), want, want_dtype, scale=scale)


@pytest.mark.parametrize(
    "name, dtype, expected",
    [
        ("sum", I32, I64),  # NumPy sums int32 as int64
        ("sum", I64, I64),
        ("sum", BOOL, I64),
        ("sum", F32, F32),
        ("mean", I32, F64),  # mean of integers is float64
        ("mean", I64, F64),
        ("mean", BOOL, F64),
        ("mean", F32, F32),
        ("max", I32, I32),
        ("max", F32, F32),
    ],
)
def test_reduction_result_dtypes(name, dtype, expected):
    x = (np.arange(12) % 5).astype(dtype).reshape(3, 4)
    assert np.asarray(REDUCTIONS[name](x)).dtype == expected  # the table is NumPy's
    for axis in (None, 0, (0, 1)):
        got = getattr(ac, name)(x, axis=axis)
        want = np.asarray(REDUCTIONS[name](x, axis=axis))
        check_result_type(got, want)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_int32_sum_does_not_overflow():
    x = np.full((1000,), 2**30, dtype=np.int32)
    got = ac.sum(x)
    assert got.dtype == I64
    assert int(got.numpy()) == 1000 * 2**30 == int(np.sum(x))


def test_large_float32_sum_is_accurate(rng):
    x = rng.uniform(0.0, 1.0, size=(1_000_003,)).astype(np.float32)
    want = np.sum(x.astype(np.float64))
    got = float(ac.sum(x).numpy())
    assert abs(got - want) <= 1e-5 * want


def test_max_with_nan_propagates_like_numpy():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])
    for axis in (None, 0, 1):
        np.testing.assert_array_equal(ac.max(x, axis=axis).numpy(), np.max(x, axis=axis))


def test_max_of_negative_values():
    x = -np.arange(1, 128, dtype=np.float32).reshape(127, 1)
    np.testing.assert_array_equal(ac.max(x, axis=0).numpy(), np.array([-1.0], dtype=np.float32))
    np.testing.assert_array_equal(ac.max(x.astype(np.int32)).numpy(), np.int32(-1))


# ----------------------------------------------------------------------------------------------------------
# matmul

MATMUL_SHAPES = [
    ((7, 13), (13, 127)),
    ((1, 1), (1, 1)),
    ((127, 7), (7, 1)),
    ((13, 127), (127, 7)),
    ((0, 7), (7, 13)),
    ((7, 0), (0, 13)),  # K = 0: zeros
    ((7, 13), (13, 0)),
    ((13,), (13,)),  # 1-D . 1-D -> 0-d
    ((0,), (0,)),
    ((13,), (13, 7)),
    ((7, 13), (13,)),
    ((1,), (1, 127)),
    ((2, 1, 3, 4), (5, 4, 6)),  # batch axes broadcast: (2, 5, 3, 6)
    ((5, 4, 6), (6,)),
    ((4,), (2, 4, 3)),
    ((1, 7, 13), (3, 13, 1)),
    ((3, 0, 2), (2, 5)),
    ((2, 7, 13), (13, 127)),
    ((7, 13), (2, 13, 7)),
    ((0, 2, 3), (3, 4)),
]


def _matmul_check(a, b):
    """Compare accelera.matmul(a, b) with NumPy: dtype, shape, and values within rtol * sqrt(K) of |A| @ |B|."""
    with np.errstate(all="ignore"):
        want_dtype = np.matmul(np.ones((1, 1), a.dtype), np.ones((1, 1), b.dtype)).dtype
        want = np.matmul(a.astype(np.float64), b.astype(np.float64))
        scale = np.matmul(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
    k = a.shape[-1]
    with inputs_unchanged(a, b):
        got = ac.matmul(a, b)
    assert_close(got, want, want_dtype, scale=scale, factor=max(1.0, math.sqrt(k)))
    return got


@pytest.mark.parametrize("sa, sb", MATMUL_SHAPES, ids=lambda s: shape_id(s))
@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
def test_matmul_matches_numpy(dtype, sa, sb, rng):
    a = random_array(rng, sa, dtype)
    b = random_array(rng, sb, dtype)
    got = _matmul_check(a, b)
    assert got.shape == np.matmul(a, b).shape
    # The @ operator on Tensors, and mixed Tensor / NumPy operands, give the same result.
    np.testing.assert_array_equal((ac.asarray(a) @ ac.asarray(b)).numpy(), got.numpy())
    np.testing.assert_array_equal((ac.asarray(a) @ b).numpy(), got.numpy())


def test_matmul_batched_broadcasting_shape():
    a = np.ones((2, 1, 3, 4), dtype=np.float32)
    b = np.ones((5, 4, 6), dtype=np.float32)
    got = ac.matmul(a, b)
    assert got.shape == (2, 5, 3, 6) == np.matmul(a, b).shape
    np.testing.assert_array_equal(got.numpy(), np.full((2, 5, 3, 6), 4.0, dtype=np.float32))


@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
def test_matmul_transposed_and_strided_operands(dtype, rng):
    a = random_array(rng, (13, 7), dtype)
    b = random_array(rng, (127, 13), dtype)
    _matmul_check(a.T, b.T)  # (7, 13) @ (13, 127), both transposed
    _matmul_check(a.T, random_array(rng, (13, 5), dtype))
    _matmul_check(random_array(rng, (5, 7), dtype), a.T[:, ::-1].T[::-1].T)  # negative strides
    _matmul_check(a[::-2, 1::2], random_array(rng, (3, 11), dtype))  # (7, 3) @ (3, 11)
    batch = random_array(rng, (3, 13, 7), dtype)
    _matmul_check(np.swapaxes(batch, -1, -2), random_array(rng, (3, 13, 4), dtype))  # batched, transposed
    _matmul_check(np.broadcast_to(a[:1], (9, 7)), random_array(rng, (7, 2), dtype))  # zero row stride
    _matmul_check(np.broadcast_to(a[0, 0], (4, 6)), np.broadcast_to(a[1, 1], (6, 3)))  # all strides zero
    _matmul_check(np.broadcast_to(batch[:1], (5, 13, 7)), random_array(rng, (7, 2), dtype))  # zero batch stride
    _matmul_check(a[:, 3], a[::-1])  # 1-D strided (13,) @ (13, 7)
    _matmul_check(np.asfortranarray(b), random_array(rng, (13, 3), dtype))


@pytest.mark.parametrize("da, db", [(F32, F64), (F64, F32), (I32, F32), (F32, I64), (BOOL, F64)], ids=str)
def test_matmul_dtype_promotion(da, db, rng):
    a = random_array(rng, (7, 13), da)
    b = random_array(rng, (13, 5), db)
    got = _matmul_check(a, b)
    assert got.dtype == np.matmul(a, b).dtype


def test_matmul_large_k_float32_accuracy(rng):
    a = rng.standard_normal((4, 4099)).astype(np.float32)
    b = rng.standard_normal((4099, 3)).astype(np.float32)
    _matmul_check(a, b)


# ----------------------------------------------------------------------------------------------------------
# Property tests (Hypothesis, derandomized)

FLOAT_DTYPES = st.sampled_from([F32, F64])


def _float_arrays(dtype, shape, low=-100.0, high=100.0):
    low, high = (float(dtype.type(v)) for v in (low, high))  # bounds representable in the dtype
    return hnp.arrays(dtype, shape, elements=st.floats(low, high, width=dtype.itemsize * 8))


@given(data=st.data(), name=st.sampled_from(list(BINARY)), dtype=FLOAT_DTYPES,
       shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, min_side=0, max_side=5))
def test_property_binary_broadcasting(data, name, dtype, shapes):
    sa, sb = shapes.input_shapes
    a = data.draw(_float_arrays(dtype, sa), label="a")
    b = data.draw(_float_arrays(dtype, sb, 0.5, 100.0) if name == "divide" else _float_arrays(dtype, sb), label="b")
    want, want_dtype = _reference(BINARY[name], a, b)
    assert want.shape == shapes.result_shape
    assert_close(getattr(ac, name)(a, b), want, want_dtype)


@given(data=st.data(), name=st.sampled_from(list(UNARY)), dtype=FLOAT_DTYPES,
       shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=8))
def test_property_unary_on_basic_index_views(data, name, dtype, shape):
    low, high = UNARY[name][1]
    x = data.draw(_float_arrays(dtype, shape, low, high), label="x")
    view = x[data.draw(hnp.basic_indices(shape, allow_newaxis=True), label="index")]
    want, want_dtype = _reference(UNARY[name][0], view)
    assert_close(getattr(ac, name)(view), want, want_dtype)


@given(data=st.data(), name=st.sampled_from(list(REDUCTIONS)), dtype=st.sampled_from([F32, F64, I32, I64]),
       shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=6), keepdims=st.booleans())
def test_property_reductions(data, name, dtype, shape, keepdims):
    if dtype.kind == "f":
        x = data.draw(_float_arrays(dtype, shape), label="x")
    else:
        x = data.draw(hnp.arrays(dtype, shape, elements=st.integers(-1000, 1000)), label="x")
    axis = data.draw(st.none() | hnp.valid_tuple_axes(len(shape)) | st.integers(-len(shape), max(len(shape) - 1, -1))
                     if shape else st.none() | st.just(()), label="axis")
    want, want_dtype, scale = _reduce_reference(name, x, axis, keepdims)
    assert_close(getattr(ac, name)(x, axis=axis, keepdims=keepdims), want, want_dtype, scale=scale)


@given(data=st.data(), dtype=FLOAT_DTYPES,
       shapes=hnp.mutually_broadcastable_shapes(signature=np.matmul.signature, max_dims=2, max_side=9))
def test_property_matmul(data, dtype, shapes):
    sa, sb = shapes.input_shapes
    a = data.draw(_float_arrays(dtype, sa, -10.0, 10.0), label="a")
    b = data.draw(_float_arrays(dtype, sb, -10.0, 10.0), label="b")
    got = _matmul_check(a, b)
    assert got.shape == shapes.result_shape


# ----------------------------------------------------------------------------------------------------------
# Sizes beyond one vector block / one thread chunk, and several Python threads at once (the GIL is released)


@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
def test_large_strided_inputs(dtype, rng):
    a = random_array(rng, (1031, 1013), dtype)
    b = random_array(rng, (1013,), dtype, 0.5, 2.0)
    want, want_dtype = _reference(np.add, a, b)
    assert_close(ac.add(a, b), want, want_dtype)
    want, want_dtype = _reference(np.multiply, a.T, a.T[::-1])
    assert_close(ac.multiply(a.T, a.T[::-1]), want, want_dtype)
    want, want_dtype = _reference(np.divide, a[::-1, ::-2], b[::2])
    assert_close(ac.divide(a[::-1, ::-2], b[::2]), want, want_dtype)
    want, want_dtype = _reference(np.exp, a[::-1, ::-2])
    assert_close(ac.exp(a[::-1, ::-2]), want, want_dtype)
    for name, axis in [("sum", 0), ("sum", (1,)), ("mean", None), ("max", 1), ("max", None), ("mean", -2)]:
        for x in (a, a[::-1].T):
            want, want_dtype, scale = _reduce_reference(name, x, axis, False)
            assert_close(getattr(ac, name)(x, axis=axis), want, want_dtype, scale=scale)
    _matmul_check(random_array(rng, (251, 509), dtype), random_array(rng, (509, 257), dtype))
    _matmul_check(random_array(rng, (3, 1, 65, 33), dtype), random_array(rng, (4, 33, 70), dtype))
    _matmul_check(a[:257:2, ::-1], random_array(rng, (1013, 3), dtype))


def test_ops_from_several_threads(rng):
    import threading

    a = rng.standard_normal((200, 200))
    want_mm = a @ a.T + 1.0
    want_sum = np.sum(np.exp(a[::2]), axis=0)
    failures = []

    def work():
        try:
            for _ in range(10):
                got = (ac.matmul(a, a.T) + 1.0).numpy()
                np.testing.assert_allclose(got, want_mm, rtol=1e-12, atol=1e-12 * np.abs(a).sum())
                np.testing.assert_allclose(ac.sum(ac.exp(a[::2]), axis=0).numpy(), want_sum, rtol=1e-12)
        except Exception as err:  # noqa: BLE001 - reported below
            failures.append(repr(err))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert not failures, failures[0]


# Element-wise functions added through the one-line definitions (src/ops/elementwise.hpp): the same
# results as NumPy, nan propagation included, on every device.
@pytest.mark.parametrize("device", [d["device"] for d in ac.devices()])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_abs_square_sqrt_maximum_minimum_match_numpy(device, dtype):
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((6, 7)) * 10).astype(dtype)
    b = (rng.standard_normal((7,)) * 10).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a[0, 0], b[1] = np.nan, np.nan
    for ours, theirs in [(ac.abs(ac.asarray(a, device=device)), np.abs(a)),
                         (ac.square(ac.asarray(a, device=device)), np.square(a)),
                         (ac.maximum(ac.asarray(a, device=device), ac.asarray(b, device=device)), np.maximum(a, b)),
                         (ac.minimum(ac.asarray(a, device=device), ac.asarray(b, device=device)), np.minimum(a, b))]:
        np.testing.assert_allclose(ours.to("cpu").numpy(), theirs, rtol=1e-6)
        assert ours.dtype == theirs.dtype
    expected = np.sqrt(np.abs(a).astype(np.float64) if np.dtype(dtype).kind == "i" else np.abs(a))
    np.testing.assert_allclose(ac.sqrt(ac.abs(ac.asarray(a, device=device))).to("cpu").numpy(), expected, rtol=1e-6)
