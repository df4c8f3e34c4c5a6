"""The integer dtypes int8, int16, uint8, uint16, uint32 and uint64 (and int32, int64 beside them), computed on
every device: exactly NumPy's values and dtypes over each type's whole range, wrapping where NumPy wraps."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as ac
from array_api_support import device, tensors_unchanged  # noqa: F401 (fixture)

INTEGERS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
NEW = ["int8", "int16", "uint8", "uint16", "uint32", "uint64"]


def full_range(dtype: str, shape, seed: int = 0) -> np.ndarray:
    """Values over the whole range of ``dtype``, its extremes, 0, 1 and -1 included."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    values = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    flat = values.reshape(-1)
    specials = np.array([info.min, info.max, 0, 1, info.max - 1], dtype=dtype)
    if info.min < 0:
        specials = np.concatenate([specials, np.array([-1, info.min + 1], dtype=dtype)])
    flat[: min(flat.size, specials.size)] = specials[: flat.size]
    return values


def same(result: ac.Tensor, expected: np.ndarray) -> None:
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    got = result.numpy()
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", INTEGERS)
def test_round_trip_and_views(dtype, device):
    x = full_range(dtype, (7, 13))
    t = ac.asarray(x, device=device)
    assert t.dtype == dtype and ac.isdtype(t.dtype, "integral")
    same(t, x)
    same(t.T[::2, ::-1], x.T[::2, ::-1])
    same(ac.zeros((3,), dtype=dtype, device=device), np.zeros(3, dtype))
    same(ac.full((2, 2), np.iinfo(dtype).max, dtype=dtype, device=device), np.full((2, 2), np.iinfo(dtype).max, dtype))


ARITHMETIC = ["add", "subtract", "multiply", "maximum", "minimum", "floor_divide", "remainder", "bitwise_and",
              "bitwise_or", "bitwise_xor", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]


@pytest.mark.parametrize("dtype", INTEGERS)
@pytest.mark.parametrize("name", ARITHMETIC)
def test_binary_functions_wrap_as_numpy(dtype, name, device):
    a, b = full_range(dtype, (5, 11), seed=1), full_range(dtype, (5, 11), seed=2)
    b[0, :3] = 0  # division and remainder by zero give 0, as in NumPy
    if np.iinfo(dtype).min < 0:
        a[1, 0], b[1, 0] = np.iinfo(dtype).min, -1  # MIN // -1 wraps to MIN
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(a, b)
    ta, tb = ac.asarray(a, device=device), ac.asarray(b, device=device)
    with tensors_unchanged(ta, tb):
        same(getattr(ac, name)(ta, tb), expected)


@pytest.mark.parametrize("dtype", INTEGERS)
def test_shifts_past_the_width_shift_every_bit_out(dtype, device):
    bits = np.iinfo(dtype).bits
    a = full_range(dtype, (4, bits + 3), seed=3)
    counts = np.tile(np.arange(bits + 3, dtype=dtype), (4, 1))
    ta, tc = ac.asarray(a, device=device), ac.asarray(counts, device=device)
    same(ac.bitwise_left_shift(ta, tc), np.left_shift(a, counts))
    same(ac.bitwise_right_shift(ta, tc), np.right_shift(a, counts))


@pytest.mark.parametrize("dtype", INTEGERS)
def test_unary_functions(dtype, device):
    x = full_range(dtype, (6, 9), seed=4)
    t = ac.asarray(x, device=device)
    with np.errstate(all="ignore"):
        for name, expected in [("negative", np.negative(x)), ("abs", np.abs(x)), ("sign", np.sign(x)),
                               ("square", np.square(x)), ("positive", x), ("bitwise_invert", np.invert(x)),
                               ("floor", np.floor(x)), ("round", np.round(x))]:
            same(getattr(ac, name)(t), expected)
    small = (x % 5).astype(dtype)
    same(ac.pow(ac.asarray(small, device=device), ac.asarray(small, device=device)), np.power(small, small))


@pytest.mark.parametrize("dtype", INTEGERS)
def test_float_functions_take_numpys_float_dtype(dtype, device):
    x = np.arange(1, 40, dtype=dtype).reshape(3, 13)
    t = ac.asarray(x, device=device)
    for name in ("sqrt", "exp", "log", "sin"):
        expected = getattr(np, name)(x)
        result = getattr(ac, name)(t)
        assert result.dtype == expected.dtype
        np.testing.assert_allclose(result.numpy().astype(np.float64), expected.astype(np.float64),
                                   rtol=2e-3 if expected.dtype == np.float16 else 1e-6)
    quotient = ac.divide(t, t[:, ::-1])
    assert quotient.dtype == (x / x[:, ::-1]).dtype == np.float64


@pytest.mark.parametrize("a", INTEGERS + ["bool", "float16", "float32", "float64"])
@pytest.mark.parametrize("b", INTEGERS)
def test_mixed_dtypes_promote_as_numpy(a, b, device):
    x = np.arange(-3, 9).astype(a) if a != "bool" else np.arange(12) % 2 == 0
    y = np.arange(12, 0, -1).astype(b)
    expected = np.add(x, y)
    result = ac.add(ac.asarray(x, device=device), ac.asarray(y, device=device))
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result.numpy(), expected)


@pytest.mark.parametrize("dtype", INTEGERS)
def test_reductions(dtype, device):
    x = full_range(dtype, (9, 170), seed=5)  # rows long enough for the vectorised max and min
    t = ac.asarray(x, device=device)
    for axis in (None, 0, 1):
        with np.errstate(all="ignore"):
            same(ac.sum(t, axis=axis), np.sum(x, axis=axis))
            same(ac.prod(t, axis=axis), np.prod(x, axis=axis))
        same(ac.max(t, axis=axis), np.max(x, axis=axis))
        same(ac.min(t, axis=axis), np.min(x, axis=axis))
        same(ac.argmax(t, axis=axis), np.argmax(x, axis=axis))
        same(ac.argmin(t, axis=axis), np.argmin(x, axis=axis))
        np.testing.assert_allclose(ac.mean(t, axis=axis).numpy(), np.mean(x, axis=axis), rtol=1e-12)
    with np.errstate(all="ignore"):
        same(ac.cumulative_sum(t, axis=1), np.cumsum(x, axis=1))
        same(ac.cumulative_prod(t, axis=0), np.cumprod(x, axis=0))


@pytest.mark.parametrize("dtype", INTEGERS)
def test_sorting_and_sets(dtype, device):
    x = full_range(dtype, (4, 301), seed=6)
    x[:, 100:140] = x[:, :40]  # repeated values
    t = ac.asarray(x, device=device)
    same(ac.sort(t, axis=1), np.sort(x, axis=1))
    same(ac.sort(t, axis=1, descending=True), np.sort(x, axis=1)[:, ::-1])
    same(ac.argsort(t, axis=1, stable=True), np.argsort(x, axis=1, kind="stable"))
    values, counts = ac.unique_counts(ac.reshape(t, (-1,)))
    want_values, want_counts = np.unique(x, return_counts=True)
    same(values, want_values)
    same(counts, want_counts)
    same(ac.searchsorted(ac.sort(t[0]), t[1]), np.searchsorted(np.sort(x[0]), x[1]))
    sorter = np.argsort(x[0], kind="stable").astype(np.uint16)  # any integer dtype sorts
    same(ac.searchsorted(t[0], t[1], sorter=ac.asarray(sorter, device=device)),
         np.searchsorted(x[0], x[1], sorter=sorter))
    with pytest.raises(ac.DTypeError):
        ac.searchsorted(t[0], t[1], sorter=ac.asarray(sorter.astype(np.float32), device=device))


@pytest.mark.parametrize("dtype", NEW)
def test_conversions_follow_numpy_in_range_and_wrap_between_integers(dtype, device):
    info = np.iinfo(dtype)
    top = float(info.max) if float(info.max) <= info.max else float(np.nextafter(float(info.max), 0.0))
    floats = np.array([info.min, top, 0.0, 1.9, -0.9, top - 0.5], dtype=np.float64)
    same(ac.asarray(floats, device=device).astype(dtype), floats.astype(dtype))
    wide = full_range("int64", (50,), seed=7)
    same(ac.asarray(wide, device=device).astype(dtype), wide.astype(dtype))
    x = full_range(dtype, (50,), seed=8)
    for target in ("float16", "float32", "float64", "int64", "uint64", "bool"):
        same(ac.asarray(x, device=device).astype(target), x.astype(target))


def test_float_to_unsigned_out_of_range_keeps_the_low_bits_of_int64(device):
    # NumPy leaves out-of-range conversions undefined; Accelera converts through int64, as NumPy does on x86.
    floats = np.array([-1.0, -2.0, 256.0, 2.0**63, 2.0**64 - 2048], dtype=np.float64)
    result = ac.asarray(floats, device=device).astype("uint8").numpy()
    np.testing.assert_array_equal(result[:3], np.array([255, 254, 0], np.uint8))
    big = ac.asarray(floats[3:], device=device).astype("uint64").numpy()
    np.testing.assert_array_equal(big, np.array([2**63, 2**64 - 2048], np.uint64))


def test_indices_of_any_integer_dtype(device):
    x = np.arange(40.0).reshape(8, 5)
    t = ac.asarray(x, device=device)
    for dtype in INTEGERS:
        idx = np.array([7, 0, 3], dtype=dtype)
        same(ac.take(t, ac.asarray(idx, device=device), axis=0), np.take(x, idx, axis=0))
        same(t[ac.asarray(idx, device=device)], x[idx])
    with pytest.raises(IndexError):
        ac.take(t, ac.asarray(np.array([2**64 - 1], np.uint64), device=device), axis=0)


def test_python_integers_beside_small_types(device):
    t = ac.asarray(np.array([250, 3], np.uint8), device=device)
    same(t + 10, np.array([250, 3], np.uint8) + np.uint8(10))
    assert (t + 1).dtype == "uint8" and (t * 2.5).dtype == np.result_type(np.uint8, 2.5)
    with pytest.raises(ac.OutOfRangeError):
        t + 256
    with pytest.raises(ac.OutOfRangeError):
        t - (-1)


@pytest.mark.parametrize("dtype", NEW)
def test_random_integers(dtype, device):
    rng = ac.random.default_rng(5)
    info = np.iinfo(dtype)
    low, high = max(int(info.min), -1000), min(int(info.max), 1000)
    draw = rng.integers(low, high, size=(4000,), dtype=dtype, device=device)
    assert draw.dtype == dtype
    values = draw.numpy()
    assert values.min() >= low and values.max() < high and len(np.unique(values)) > 100
    with pytest.raises(ValueError):
        rng.integers(0, int(info.max) + 2, size=(3,), dtype=dtype, device=device)


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint8"])
def test_dlpack_with_torch(dtype):
    torch = pytest.importorskip("torch")
    x = full_range(dtype, (3, 4))
    t = ac.asarray(x)
    shared = torch.from_dlpack(t)
    assert str(shared.dtype) == f"torch.{dtype}"
    np.testing.assert_array_equal(shared.numpy(), x)
    back = ac.from_dlpack(torch.from_numpy(x.copy()))
    same(back, x)
