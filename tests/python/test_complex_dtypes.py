"""complex64 and complex128 computed on every device: the element-wise functions against NumPy's complex128
values of the same inputs (sizes 1, primes, views), sums, products, means, variances, products of matrices,
moves (take, put, where, masks), conversions and exchange, and the standard's errors for what complex numbers
do not define."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as ac
from array_api_support import device, tensors_unchanged, view_pairs  # noqa: F401 (fixture)

COMPLEX = ["complex64", "complex128"]
# Relative tolerances against the complex128 reference, per dtype: a few ulps of the part type times the
# conditioning of the function on the sampled region.
TOLERANCE = {"complex64": 2e-5, "complex128": 1e-12}


def needs_fp64(dtype: str, device: str) -> None:
    if dtype == "complex128" and not ac.supports(device, "copy", "float64"):
        pytest.skip(f"{device} has no float64")


def sample(shape, dtype: str, seed: int = 0, scale: float = 2.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    z = rng.uniform(-scale, scale, shape) + 1j * rng.uniform(-scale, scale, shape)
    return z.astype(dtype)


def close(result: ac.Tensor, expected: np.ndarray, dtype: str, device: str, tol: float | None = None) -> None:
    assert result.device == device
    assert result.shape == expected.shape
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    got = result.numpy().astype(np.complex128 if np.iscomplexobj(expected) else np.float64)
    tol = TOLERANCE[dtype] if tol is None else tol
    scale = max(float(np.max(np.abs(expected), initial=0.0)), 1.0)
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * scale)


# Functions whose reference NumPy computes in complex128 from the complex64 inputs (so the comparison is
# against float64-accurate values), with the region where each is well conditioned.
UNARY = {
    "exp": 2.0, "log": 2.0, "sqrt": 2.0, "sin": 2.0, "cos": 2.0, "tan": 1.0, "sinh": 2.0, "cosh": 2.0, "tanh": 1.0,
    "asin": 2.0, "acos": 2.0, "atan": 0.9, "asinh": 2.0, "acosh": 2.0, "atanh": 0.9, "expm1": 2.0, "log1p": 2.0,
    "log2": 2.0, "log10": 2.0, "reciprocal": 2.0, "square": 2.0, "sign": 2.0, "negative": 2.0, "positive": 2.0,
    "conj": 2.0, "round": 2.0,
}


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("shape", [(1,), (13,), (7, 31)])
def test_unary_functions_match_float64_references(name, dtype, shape, device):
    needs_fp64(dtype, device)
    z = sample(shape, dtype, seed=len(name), scale=UNARY[name])
    reference = getattr(np, name)(z.astype(np.complex128))
    if name == "round":
        reference = np.round(z.real.astype(np.float64)) + 1j * np.round(z.imag.astype(np.float64))
    t = ac.asarray(z, device=device)
    with tensors_unchanged(t):
        result = getattr(ac, name)(t)
    close(result, reference.astype(dtype), dtype, device)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_functions_accurate_near_zero(dtype, device):
    # expm1 and log1p keep their relative accuracy where exp(z) - 1 and log(1 + z) would cancel (NumPy's own
    # complex expm1 and log1p do cancel: their references are the series, exact to 1e-18 at |z| ~ 1e-6).
    needs_fp64(dtype, device)
    z = (sample((64,), "complex128", seed=3) * 1e-6).astype(dtype)
    t = ac.asarray(z, device=device)
    w = z.astype(np.complex128)
    series = {"expm1": w + w**2 / 2 + w**3 / 6, "log1p": w - w**2 / 2 + w**3 / 3}
    for name in ("expm1", "log1p", "asinh", "atanh", "asin", "atan", "sin", "tanh"):
        reference = series[name] if name in series else getattr(np, name)(w)
        got = getattr(ac, name)(t).numpy().astype(np.complex128)
        relative = np.abs(got - reference) / np.abs(reference)
        assert np.max(relative) < 10 * np.finfo(dtype).eps, name


# C99 Annex G's special values (zeros of either sign, +-1, huge finite values, infinities, nan, in every
# combination), with NumPy's functions (FreeBSD's Annex G implementations) as the reference: the functions
# every device matches case by case, including the sign of each zero and which part is nan
# (docs/array-api.md says which differ on OpenCL).
ANNEX_G_ON_EVERY_DEVICE = {"atanh": np.arctanh, "atan": np.arctan, "exp": np.exp, "log": np.log, "log1p": np.log1p,
                           "log2": np.log2, "log10": np.log10, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos,
                           "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asin": np.arcsin,
                           "asinh": np.arcsinh, "acos": np.arccos, "acosh": np.arccosh}


def _same_special(got, want):
    both_nan = np.isnan(got) & np.isnan(want)
    equal = (got == want) & (np.signbit(got) == np.signbit(want))
    with np.errstate(all="ignore"):
        close = np.isfinite(want) & (want != 0) & (np.abs(got - want) <= 1e-6 * np.abs(want))
    return both_nan | equal | close


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", sorted(ANNEX_G_ON_EVERY_DEVICE))
def test_special_values_follow_annex_g(name, dtype, device):
    needs_fp64(dtype, device)
    parts = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e300, -1e300, np.inf, -np.inf, np.nan]
    with np.errstate(all="ignore"):
        z = np.array([complex(a, b) for a in parts for b in parts], dtype=np.complex128).astype(dtype)
        want = ANNEX_G_ON_EVERY_DEVICE[name](z)
    got = getattr(ac, name)(ac.asarray(z, device=device)).numpy()
    for part in (np.real, np.imag):
        ok = _same_special(part(got), part(want))
        assert ok.all(), [(z[i], want[i], got[i]) for i in np.flatnonzero(~ok)[:4]]


def _complex(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.empty(x.shape, np.result_type(x.dtype, np.complex64))
    out.real, out.imag = x, y
    return out


def _unit_or_zero(v: np.ndarray, where: np.ndarray) -> None:
    v[where] = np.copysign(np.where(np.isinf(v[where]), 1.0, 0.0), v[where])


def _nan_to_zero(v: np.ndarray, where: np.ndarray) -> None:
    where = where & np.isnan(v)
    v[where] = np.copysign(0.0, v[where])


def c_multiply(z: np.ndarray, w: np.ndarray) -> np.ndarray:
    """C99 Annex G's multiply (its example G.5.1, C's __muldc3): the textbook formula with each product
    rounded on its own, and where both parts come out nan, C's infinities recovered."""
    a, b, c, d = (np.array(v) for v in (z.real, z.imag, w.real, w.imag))
    with np.errstate(all="ignore"):
        ac_, bd, ad, bc = a * c, b * d, a * d, b * c
        x, y = ac_ - bd, ad + bc
        lost = np.isnan(x) & np.isnan(y)
        z_infinite = lost & (np.isinf(a) | np.isinf(b))
        w_infinite = lost & (np.isinf(c) | np.isinf(d))
        overflowed = lost & ~z_infinite & ~w_infinite & (np.isinf(ac_) | np.isinf(bd) | np.isinf(ad) | np.isinf(bc))
        for v in (a, b):
            _unit_or_zero(v, z_infinite)
            _nan_to_zero(v, w_infinite | overflowed)
        for v in (c, d):
            _unit_or_zero(v, w_infinite)
            _nan_to_zero(v, z_infinite | overflowed)
        redo = z_infinite | w_infinite | overflowed
        x[redo] = (np.inf * (a * c - b * d))[redo]
        y[redo] = (np.inf * (a * d + b * c))[redo]
    return _complex(x, y)


def c_divide(z: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Division as C's library computes it (__divsc3, __divdc3): complex64 by the textbook formula in
    double, complex128 by Smith's; then Annex G's recovery of infinities and zeros that came out nan."""
    a, b, c, d = (np.array(v) for v in (z.real, z.imag, w.real, w.imag))
    with np.errstate(all="ignore"):
        if z.dtype == np.complex64:
            a64, b64, c64, d64 = (v.astype(np.float64) for v in (a, b, c, d))
            denom = c64 * c64 + d64 * d64
            x = ((a64 * c64 + b64 * d64) / denom).astype(np.float32)
            y = ((b64 * c64 - a64 * d64) / denom).astype(np.float32)
        else:
            tiny = np.finfo(a.dtype).tiny
            by_d = np.abs(c) < np.abs(d)
            ratio = np.where(by_d, c / d, d / c)
            denom = np.where(by_d, c * ratio + d, d * ratio + c)
            normal = np.abs(ratio) > tiny
            x = np.where(by_d, np.where(normal, a * ratio + b, c * (a / d) + b),
                         np.where(normal, b * ratio + a, a + d * (b / c))) / denom
            y = np.where(by_d, np.where(normal, b * ratio - a, c * (b / d) - a),
                         np.where(normal, b - a * ratio, b - d * (a / c))) / denom
        lost = np.isnan(x) & np.isnan(y)
        over_zero = lost & (c == 0) & (d == 0) & ~(np.isnan(a) & np.isnan(b))
        x[over_zero] = (np.copysign(np.inf, c) * a)[over_zero]
        y[over_zero] = (np.copysign(np.inf, c) * b)[over_zero]
        infinite = lost & ~over_zero & (np.isinf(a) | np.isinf(b)) & np.isfinite(c) & np.isfinite(d)
        _unit_or_zero(a, infinite)
        _unit_or_zero(b, infinite)
        x[infinite] = (np.inf * (a * c + b * d))[infinite]
        y[infinite] = (np.inf * (b * c - a * d))[infinite]
        by_infinite = lost & ~over_zero & ~infinite & (np.isinf(c) | np.isinf(d)) & np.isfinite(a) & np.isfinite(b)
        _unit_or_zero(c, by_infinite)
        _unit_or_zero(d, by_infinite)
        x[by_infinite] = (0.0 * (a * c + b * d))[by_infinite]
        y[by_infinite] = (0.0 * (b * c - a * d))[by_infinite]
    return _complex(x, y)


ARITHMETIC_AS_C = {"multiply": c_multiply, "divide": c_divide,
                   "square": lambda z: c_multiply(z, z), "reciprocal": lambda z: c_divide(np.ones_like(z), z)}


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", sorted(ARITHMETIC_AS_C))
def test_arithmetic_special_values_follow_c(name, dtype, device):
    # Every pair of special parts (huge: its square overflows), against the C library's algorithms written
    # out above, so that a program gets the same infinities, nans and signs of zero on every device.
    needs_fp64(dtype, device)
    huge = 1e300 if dtype == "complex128" else 1e30
    parts = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, huge, -huge, np.inf, -np.inf, np.nan]
    z = np.array([complex(a, b) for a in parts for b in parts]).astype(dtype)
    if name in ("multiply", "divide"):
        operands = (np.repeat(z, z.size), np.tile(z, z.size))
    else:
        operands = (z,)
    want = ARITHMETIC_AS_C[name](*operands)
    assert want.dtype == dtype
    got = getattr(ac, name)(*(ac.asarray(o, device=device) for o in operands)).numpy()
    for part in (np.real, np.imag):
        ok = _same_special(part(got), part(want))
        assert ok.all(), [tuple(o[i] for o in operands) + (want[i], got[i]) for i in np.flatnonzero(~ok)[:4]]


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", ["abs", "isnan", "isinf", "isfinite"])
def test_projections_to_real_and_bool(name, dtype, device):
    needs_fp64(dtype, device)
    z = sample((5, 11), dtype, seed=7)
    z[0, :4] = [complex(np.nan, 1), complex(1, np.inf), complex(-np.inf, np.nan), complex(3, 4)]
    expected = getattr(np, name)(z)
    result = getattr(ac, name)(ac.asarray(z, device=device))
    if name == "abs":
        assert result.dtype == {"complex64": "float32", "complex128": "float64"}[dtype]
        finite = np.isfinite(z)
        np.testing.assert_allclose(result.numpy()[finite], expected[finite], rtol=TOLERANCE[dtype])
        assert np.all(np.isinf(result.numpy()[np.isinf(z)]))  # an infinite part wins over a nan one, as hypot
        np.testing.assert_array_equal(np.isnan(result.numpy()), np.isnan(expected))
    else:
        np.testing.assert_array_equal(result.numpy(), expected)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "pow", "equal", "not_equal"])
def test_binary_functions_broadcast_and_promote(name, dtype, device):
    needs_fp64(dtype, device)
    a = sample((7, 1, 5), dtype, seed=1)
    b = sample((3, 5), dtype, seed=2)
    if name in ("equal", "not_equal"):
        b[1] = a[2, 0]  # some equal elements
    if name == "pow":
        a, b = a / 2, b / 2
    reference = getattr(np, name)(a.astype(np.complex128), b.astype(np.complex128))
    ta, tb = ac.asarray(a, device=device), ac.asarray(b, device=device)
    result = getattr(ac, name)(ta, tb)
    if name in ("equal", "not_equal"):
        np.testing.assert_array_equal(result.numpy(), reference)
    else:
        close(result, reference.astype(dtype), dtype, device, tol=10 * TOLERANCE[dtype])
    # A real operand promotes as NumPy does: float64 with complex64 gives complex128.
    mixed = getattr(ac, name)(ta, ac.asarray(b.real.astype(np.float64), device=device))
    assert mixed.dtype == getattr(np, name)(a, b.real.astype(np.float64)).dtype


@pytest.mark.parametrize("dtype", COMPLEX)
def test_operators_and_python_scalars(dtype, device):
    needs_fp64(dtype, device)
    z = sample((9,), dtype, seed=5)
    t = ac.asarray(z, device=device)
    tol = 10 * TOLERANCE[dtype]
    close(t * 2j + 1.5, (z * 2j + 1.5).astype(dtype), dtype, device, tol)
    close(t / (1 - 1j), (z / (1 - 1j)).astype(dtype), dtype, device, tol)
    close(t**2, (z.astype(np.complex128) ** 2).astype(dtype), dtype, device, tol)
    close(abs(t), np.abs(z), dtype, device, tol)
    close(-t, -z, dtype, device)
    # A complex Python scalar beside a real tensor makes the tensor's complex counterpart.
    real = ac.asarray(np.arange(4, dtype=np.float32), device=device)
    assert (real * 1j).dtype == "complex64"
    assert (ac.asarray(np.arange(4), device=device) + 1j).dtype == "complex128"


@pytest.mark.parametrize("dtype", COMPLEX)
def test_parts_conversions_and_exchange(dtype, device):
    needs_fp64(dtype, device)
    z = sample((4, 6), dtype, seed=9)
    z[0, 0] = 1j  # a nonzero with a zero real part: True as bool
    z[0, 1] = 0
    for label, (view, t) in view_pairs(z, device).items():
        np.testing.assert_array_equal(ac.real(t).numpy(), np.real(view), err_msg=label)
        np.testing.assert_array_equal(ac.imag(t).numpy(), np.imag(view), err_msg=label)
        np.testing.assert_array_equal(t.conj().numpy(), np.conj(view), err_msg=label)
        np.testing.assert_array_equal(t.numpy(), view, err_msg=label)
    t = ac.asarray(z, device=device)
    np.testing.assert_array_equal(t.astype("bool").numpy(), z.astype(bool))
    np.testing.assert_array_equal(t.astype("float32").numpy(), z.real.astype(np.float32))
    other = "complex128" if dtype == "complex64" else "complex64"
    np.testing.assert_array_equal(t.astype(other).numpy(), z.astype(other))
    np.testing.assert_array_equal(ac.asarray(np.arange(5), device=device).astype(dtype).numpy(),
                                  np.arange(5).astype(dtype))
    np.testing.assert_array_equal(ac.full((2, 3), 1 - 2j, dtype=dtype, device=device).numpy(),
                                  np.full((2, 3), 1 - 2j, dtype))
    assert ac.full((2,), 3j, device=device).dtype == "complex64"  # the default complex dtype
    np.testing.assert_array_equal(ac.eye(3, dtype=dtype, device=device).numpy(), np.eye(3, dtype=dtype))
    np.testing.assert_array_equal(ac.real(ac.asarray([1.0, 2.0], device=device)).numpy(), [1.0, 2.0])
    if device == "cpu":
        np.testing.assert_array_equal(np.from_dlpack(t), z)  # DLPack code 5 (complex), zero-copy
    assert complex(ac.asarray(z[1, 2], device=device)) == complex(z[1, 2])


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's std of one element with ddof=1
@pytest.mark.parametrize("shape, axes", [((1,), None), ((13,), None), ((6, 7), (0,)), ((3, 5, 4), (0, 2))])
def test_reductions(dtype, shape, axes, device):
    needs_fp64(dtype, device)
    z = sample(shape, dtype, seed=11, scale=1.0)
    t = ac.asarray(z, device=device)
    ref = z.astype(np.complex128)
    tol = 10 * TOLERANCE[dtype]
    close(ac.sum(t, axis=axes), np.sum(ref, axis=axes).astype(dtype), dtype, device, tol)
    close(ac.mean(t, axis=axes), np.mean(ref, axis=axes).astype(dtype), dtype, device, tol)
    close(ac.prod(t, axis=axes), np.prod(ref, axis=axes).astype(dtype), dtype, device, tol)
    close(ac.prod(t, axis=axes, keepdims=True), np.prod(ref, axis=axes, keepdims=True).astype(dtype), dtype, device, tol)
    real = np.float32 if dtype == "complex64" else np.float64
    close(ac.var(t, axis=axes), np.var(ref, axis=axes).astype(real), dtype, device, tol)
    close(ac.std(t, axis=axes, correction=1), np.std(ref, axis=axes, ddof=1).astype(real), dtype, device, tol)
    if len(shape) >= 2:
        close(ac.cumulative_sum(t, axis=1), np.cumsum(ref, axis=1).astype(dtype), dtype, device, tol)
    close(ac.prod(t[:0]), np.prod(ref[:0]).astype(dtype), dtype, device)  # the empty product is 1
    assert bool(ac.any(t)) and ac.count_nonzero(t).numpy() == np.count_nonzero(z)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("m, k, n", [(1, 1, 1), (5, 7, 3), (17, 13, 11)])
def test_matmul_vecdot_and_norms(dtype, m, k, n, device):
    needs_fp64(dtype, device)
    a, b = sample((2, m, k), dtype, seed=1, scale=1.0), sample((k, n), dtype, seed=2, scale=1.0)
    ta, tb = ac.asarray(a, device=device), ac.asarray(b, device=device)
    tol = 20 * TOLERANCE[dtype]
    close(ta @ tb, (a.astype(np.complex128) @ b).astype(dtype), dtype, device, tol)
    close(ta[0] @ tb[:, 0], (a[0].astype(np.complex128) @ b[:, 0]).astype(dtype), dtype, device, tol)
    # vecdot conjugates its first operand, as the standard says (np.vecdot too).
    close(ac.vecdot(ta, ta), np.vecdot(a.astype(np.complex128), a).astype(dtype), dtype, device, tol)
    close(ac.linalg.vector_norm(ta), np.linalg.norm(a.astype(np.complex128).ravel()).astype(a.real.dtype), dtype,
          device, tol)
    close(ac.linalg.matrix_norm(ta), np.linalg.norm(a.astype(np.complex128), axis=(-2, -1)).astype(a.real.dtype),
          dtype, device, tol)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_moves_take_put_where_and_masks(dtype, device):
    needs_fp64(dtype, device)
    z = sample((5, 7), dtype, seed=4)
    t = ac.asarray(z, device=device)
    idx = ac.asarray(np.array([4, 0, -1]), device=device)
    np.testing.assert_array_equal(ac.take(t, idx, axis=1).numpy(), np.take(z, [4, 0, -1], axis=1))
    np.testing.assert_array_equal(ac.take(t, idx).numpy(), np.take(z, [4, 0, -1]))
    order = np.argsort(z.real, axis=1)
    np.testing.assert_array_equal(ac.take_along_axis(t, ac.asarray(order, device=device), axis=1).numpy(),
                                  np.take_along_axis(z, order, axis=1))
    mask = z.real > 0
    np.testing.assert_array_equal(t[ac.asarray(mask, device=device)].numpy(), z[mask])
    np.testing.assert_array_equal(ac.where(ac.asarray(mask, device=device), t, 1j).numpy(),
                                  np.where(mask, z, 1j).astype(dtype))
    u = ac.asarray(z, device=device)
    u[1:3, ::2] = 2 - 1j
    expected = z.copy()
    expected[1:3, ::2] = 2 - 1j
    np.testing.assert_array_equal(u.numpy(), expected)
    u[ac.asarray(mask, device=device)] = 0
    expected[mask] = 0
    np.testing.assert_array_equal(u.numpy(), expected)
    np.testing.assert_array_equal(ac.concat([t, t[:1]]).numpy(), np.concatenate([z, z[:1]]))
    np.testing.assert_array_equal(ac.flip(ac.roll(t, 2, axis=1)).numpy(), np.flip(np.roll(z, 2, axis=1)))


def test_namespace_describes_the_complex_dtypes():
    assert ac.isdtype(ac.complex64, "complex floating") and ac.isdtype(ac.complex128, "numeric")
    assert not ac.isdtype(ac.complex64, "real floating")
    assert ac.result_type(ac.complex64, ac.float64) == ac.complex128
    assert ac.result_type(ac.float32, 1j) == ac.complex64
    assert ac.result_type(ac.int64, ac.complex64) == ac.complex128
    assert ac.can_cast(ac.float32, ac.complex64) and not ac.can_cast(ac.complex64, ac.float64)
    assert ac.finfo(ac.complex128).eps == np.finfo(np.float64).eps
    info = ac.__array_namespace_info__()
    assert info.default_dtypes()["complex floating"] == ac.complex64
    assert set(info.dtypes(device="cpu", kind="complex floating")) == {"complex64", "complex128"}
    assert ac.complex128.itemsize == 16 and ac.dtype("c64") == ac.complex64


@pytest.mark.parametrize("name", ["less", "greater", "maximum", "minimum", "floor_divide", "remainder", "atan2"])
def test_undefined_binary_functions_raise_dtype_errors(name, device):
    t = ac.asarray(np.array([1 + 1j, 2]), device=device)
    with tensors_unchanged(t), pytest.raises(ac.DTypeError, match=f"{name} is not defined for complex128"):
        getattr(ac, name)(t, t)


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "signbit", "sort", "argmax", "max", "min"])
def test_undefined_unary_functions_raise_dtype_errors(name, device):
    t = ac.asarray(np.array([1 + 1j, 2], dtype=np.complex64), device=device)
    with tensors_unchanged(t), pytest.raises(ac.DTypeError, match="not defined for complex64"):
        getattr(ac, name)(t)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_factorisations_of_complex_matrices(dtype, device):
    needs_fp64(dtype, device)
    a = sample((3, 6, 6), dtype, seed=21, scale=1.0) + 3 * np.eye(6, dtype=dtype)
    b = sample((3, 6, 2), dtype, seed=22, scale=1.0)
    ref_a, ref_b = a.astype(np.complex128), b.astype(np.complex128)
    ta, tb = ac.asarray(a, device=device), ac.asarray(b, device=device)
    tol = 50 * TOLERANCE[dtype]
    with tensors_unchanged(ta, tb):
        close(ac.linalg.solve(ta, tb), np.linalg.solve(ref_a, ref_b).astype(dtype), dtype, device, tol)
        close(ac.linalg.inv(ta), np.linalg.inv(ref_a).astype(dtype), dtype, device, tol)
        close(ac.linalg.det(ta), np.linalg.det(ref_a).astype(dtype), dtype, device, tol)
        sign, logabs = ac.linalg.slogdet(ta)
        want_sign, want_logabs = np.linalg.slogdet(ref_a)
        close(sign, want_sign.astype(dtype), dtype, device, tol)
        close(logabs, want_logabs.astype(a.real.dtype), dtype, device, tol)  # real, as NumPy's
        close(ac.linalg.matrix_power(ta, -2), np.linalg.matrix_power(ref_a, -2).astype(dtype), dtype, device, tol)
    h = ref_a @ np.conj(np.swapaxes(ref_a, -1, -2))
    th = ac.asarray(h.astype(dtype), device=device)
    lower = np.linalg.cholesky(h)
    close(ac.linalg.cholesky(th), lower.astype(dtype), dtype, device, tol)
    close(ac.linalg.cholesky(th, upper=True), np.conj(np.swapaxes(lower, -1, -2)).astype(dtype), dtype, device, tol)
    # Hermitian eigenproblems and SVDs: real eigenvalues and singular values, unitary vectors.
    w, v = ac.linalg.eigh(th)
    assert w.dtype == a.real.dtype
    close(w, np.linalg.eigvalsh(h).astype(a.real.dtype), dtype, device, tol)
    close(v @ (ac.asarray(np.eye(6, dtype=a.real.dtype), device=device) * w[..., None, :]) @ ac.conj(ac.matrix_transpose(v)),
          h.astype(dtype), dtype, device, tol)
    for x in (a[:, :, :4], np.swapaxes(a[:, :, :4], -1, -2)):  # tall and wide
        u, s, vh = ac.linalg.svd(ac.asarray(x, device=device), full_matrices=False)
        close(s, np.linalg.svd(x.astype(np.complex128), compute_uv=False).astype(a.real.dtype), dtype, device, tol)
        close((u * s[..., None, :]) @ vh, x, dtype, device, tol)
        close(ac.linalg.pinv(ac.asarray(x, device=device)), np.linalg.pinv(x.astype(np.complex128)).astype(dtype),
              dtype, device, tol)
    close(ac.linalg.matrix_norm(ta, ord="nuc"), np.linalg.norm(ref_a, "nuc", axis=(-2, -1)).astype(a.real.dtype),
          dtype, device, tol)
    for mode in ("reduced", "complete"):
        q, r = ac.linalg.qr(ta[:, :, :4], mode=mode)
        close(q @ r, a[:, :, :4], dtype, device, tol)
        qh = ac.conj(ac.matrix_transpose(q))
        close(qh @ q, np.broadcast_to(np.eye(q.shape[-1], dtype=dtype), (3, q.shape[-1], q.shape[-1])), dtype, device, tol)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_unique_of_complex_tensors(dtype, device):
    needs_fp64(dtype, device)
    rng = np.random.default_rng(31)
    x = (rng.integers(0, 3, (4, 7)) + 1j * rng.integers(0, 3, (4, 7))).astype(dtype)
    x[1, 2] = complex(np.nan, 0)  # each nan is its own value (the standard's rule)
    x[3, 0] = complex(0, np.nan)
    t = ac.asarray(x, device=device)
    values, indices, inverse, counts = ac.unique_all(t)
    want_values, want_indices, want_inverse, want_counts = np.unique(
        x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False)
    finite = ~np.isnan(want_values)
    np.testing.assert_array_equal(values.numpy()[: finite.sum()], want_values[finite])  # lexicographic order
    assert np.isnan(values.numpy()[finite.sum():]).all() and values.shape == want_values.shape
    np.testing.assert_array_equal(indices.numpy()[: finite.sum()], want_indices[finite])  # first occurrences
    np.testing.assert_array_equal(counts.numpy()[: finite.sum()], want_counts[finite])
    np.testing.assert_array_equal(values.numpy()[inverse.numpy()][~np.isnan(x)], x[~np.isnan(x)])
    assert inverse.shape == x.shape and counts.numpy().sum() == x.size
    np.testing.assert_array_equal(ac.unique_values(t[:0]).numpy(), np.zeros(0, dtype))


def test_complex_fill_values_need_complex_dtypes(device):
    with pytest.raises(ac.DTypeError, match="complex number"):
        ac.full((2,), 1j, dtype="float32", device=device)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_logarithms_and_roots_of_the_largest_magnitudes(dtype, device):
    """|z| overflows for parts near the top of the range, but log z and sqrt z do not: they must come out
    finite (OpenCL's gave inf for log(1e308 + 1e308j) and sqrt(1.5e308 + 1.5e308j))."""
    needs_fp64(dtype, device)
    top = float(np.finfo(np.float32 if dtype == "complex64" else np.float64).max)
    parts = [(0.9 * top, 0.9 * top), (top, 0.0), (-0.9 * top, 0.6 * top), (0.6 * top, -top), (-top, -top)]
    z = np.array([complex(a, b) for a, b in parts], dtype)
    t = ac.asarray(z, device=device)
    wide = z.astype(np.complex128) if dtype == "complex64" else z
    for name, reference in [("log", np.log), ("sqrt", np.sqrt), ("log2", np.log2), ("log10", np.log10)]:
        got = getattr(ac, name)(t).numpy()
        assert np.isfinite(got).all(), (name, got)
        rtol = 4e-6 if dtype == "complex64" else 1e-14
        np.testing.assert_allclose(got, reference(wide).astype(dtype), rtol=rtol, err_msg=name)
