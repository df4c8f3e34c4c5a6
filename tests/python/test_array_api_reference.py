"""accelera against array-api-strict, the standard's executable reference (NumPy underneath), on every device.

Each function runs on the same inputs in both: special values (nan, +-inf, +-0, subnormals, the integer
extremes), several dtypes, shapes with empty and length-1 axes, axis and keepdims variants. Where the
reference computes a result, ours must match its dtype and shape, its nan positions, and its values:
exactly (signed zeros included) for the functions that round once or not at all, within a few ulp for the
transcendental ones. Where the reference refuses an input that NumPy takes (a float function of integers, a
logical function of numbers, ...), accelera follows NumPy; docs/array-api.md lists those differences.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import accelera as ac

st = pytest.importorskip("array_api_strict")

DEVICES = [d["device"] for d in ac.devices()]
DTYPES = ["float32", "float64", "int8", "uint8", "int16", "int32", "int64", "uint64", "bool"]
RNG = np.random.default_rng(2024)

UNARY = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp", "expm1",
         "floor", "isfinite", "isinf", "isnan", "log", "log1p", "log2", "log10", "negative", "positive", "round",
         "sign", "signbit", "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc", "reciprocal",
         "bitwise_invert", "logical_not"]
BINARY = ["add", "atan2", "bitwise_and", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
          "copysign", "divide", "equal", "floor_divide", "greater", "greater_equal", "hypot", "less", "less_equal",
          "logaddexp", "logical_and", "logical_or", "logical_xor", "maximum", "minimum", "multiply", "nextafter",
          "not_equal", "pow", "remainder", "subtract"]
# Correctly rounded (or exact) in IEEE arithmetic: compared bit for bit, the sign of zero included.
EXACT = {"abs", "ceil", "floor", "trunc", "round", "sign", "signbit", "isnan", "isinf", "isfinite", "negative",
         "positive", "square", "sqrt", "bitwise_invert", "logical_not", "reciprocal", "add", "subtract",
         "multiply", "divide", "equal", "greater", "greater_equal", "less", "less_equal", "not_equal", "maximum",
         "minimum", "copysign", "nextafter", "floor_divide", "remainder", "bitwise_and", "bitwise_or",
         "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "logical_and", "logical_or", "logical_xor"}


def special_values(dtype: str) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        fixed = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 1e-40, -1e-40, 1e30,
                 -1e30, np.pi, 3.5, -2.5, 0.49999997, 100.0, -100.0, 1e-4]
        return np.concatenate([fixed, RNG.uniform(-10, 10, 64)]).astype(dt)
    if dt.kind == "b":
        return RNG.integers(0, 2, 64).astype(bool)
    info = np.iinfo(dt)
    fixed = np.array([info.min, info.max, 0, 1, 2, 3, 7], dtype=dt)
    return np.concatenate([fixed, RNG.integers(max(int(info.min), -100), min(int(info.max), 100), 64).astype(dt)])


def reference(function, *arrays, **kwargs):
    """The reference's result as NumPy arrays, or None where it refuses the input."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = function(*[st.asarray(a) for a in arrays], **kwargs)
        except (TypeError, ValueError):
            return None
    return [np.asarray(r) for r in result] if isinstance(result, (tuple, list)) else np.asarray(result)


def ours(function, device, *arrays, **kwargs):
    result = function(*[ac.asarray(a, device=device) for a in arrays], **kwargs)
    return [r.numpy() for r in result] if isinstance(result, (tuple, list)) else result.numpy()


def assert_matches(got, want, exact: bool, what: str, signed_zeros: bool = True) -> None:
    """``signed_zeros=False``: -0 and +0 are interchangeable (min and max of a -0 beside a +0 may give
    either; the standard leaves it to the implementation)."""
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), what
        for g, w in zip(got, want):
            assert_matches(g, w, exact, what, signed_zeros)
        return
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, reference {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, reference {want.shape}"
    if got.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{what}: nan positions")
    kept = ~np.isnan(want)
    if exact:
        np.testing.assert_array_equal(got[kept], want[kept], err_msg=what)
        if got.dtype.kind == "f" and signed_zeros:
            np.testing.assert_array_equal(np.signbit(got[kept]), np.signbit(want[kept]), err_msg=f"{what}: zero signs")
    else:
        eps = np.finfo(got.dtype).eps
        np.testing.assert_allclose(got[kept], want[kept], rtol=8 * eps, atol=0, err_msg=what)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_match_the_reference(device, name):
    for dtype in DTYPES:
        x = special_values(dtype)
        want = reference(getattr(st, name), x)
        if want is not None:
            assert_matches(ours(getattr(ac, name), device, x), want, name in EXACT, f"{name}({dtype})")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", BINARY)
def test_binary_functions_match_the_reference(device, name):
    for dtype in DTYPES:
        x1, x2 = special_values(dtype), np.roll(special_values(dtype), 7)
        if "shift" in name and np.dtype(dtype).kind in "iu":  # counts from 0 to past the width
            x2 = (np.abs(x2.astype(np.int64)) % (8 * np.dtype(dtype).itemsize + 3)).astype(dtype)
        want = reference(getattr(st, name), x1, x2)
        if want is not None:
            assert_matches(ours(getattr(ac, name), device, x1, x2), want, name in EXACT, f"{name}({dtype})")
        # Broadcasting a row against a column.
        want = reference(getattr(st, name), x1[:5, None], x2[None, :6])
        if want is not None:
            got = ours(getattr(ac, name), device, x1[:5, None], x2[None, :6])
            assert_matches(got, want, name in EXACT, f"{name}({dtype}) broadcast")


def sample(dtype: str, shape) -> np.ndarray:
    """Random values with a nan, a -0 and an inf among the floats."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        x = RNG.uniform(-5, 5, shape).astype(dt)
        if x.size > 4:
            x.reshape(-1)[RNG.choice(x.size, 3, replace=False)] = [np.nan, -0.0, np.inf]
        return x
    if dt.kind == "b":
        return RNG.integers(0, 2, shape).astype(bool)
    return RNG.integers(-5 if dt.kind == "i" else 0, 6, shape).astype(dt)


SHAPES = [(7,), (3, 5), (2, 3, 4), (0, 3), (1, 1)]
STATISTICS = ["sum", "prod", "min", "max", "mean", "std", "var", "all", "any", "count_nonzero", "argmax", "argmin"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", STATISTICS)
def test_statistics_match_the_reference(device, name):
    for dtype in ["float32", "float64", "int8", "int64", "uint8", "bool"]:
        for shape in SHAPES:
            x = sample(dtype, shape)
            axes = [None, 0, -1] + ([(0, 1)] if len(shape) >= 2 and name not in ("argmax", "argmin") else [])
            for axis in axes:
                for keepdims in (False, True):
                    kwargs = {"axis": axis, "keepdims": keepdims}
                    want = reference(getattr(st, name), x, **kwargs)
                    if want is None:
                        continue
                    exact = dtype not in ("float32", "float64") or name in ("min", "max", "all", "any",
                                                                             "count_nonzero", "argmax", "argmin")
                    got = ours(getattr(ac, name), device, x, **kwargs)
                    what = f"{name}({dtype}{shape}, {kwargs})"
                    if exact:
                        assert_matches(got, want, True, what, signed_zeros=name not in ("min", "max"))
                    else:  # sums in another order: within a few ulp of the magnitudes summed
                        assert got.dtype == want.dtype and got.shape == want.shape, what
                        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-5, equal_nan=True, err_msg=what)


# name -> (accelera's call, the reference's call): same signature in both namespaces.
def _both(name, **kwargs):
    return (lambda *a: getattr(ac, name)(*a, **kwargs), lambda *a: getattr(st, name)(*a, **kwargs))


STRUCTURAL = {
    "cumulative_sum": _both("cumulative_sum", axis=0), "cumulative_sum initial": _both(
        "cumulative_sum", axis=-1, include_initial=True),
    "cumulative_prod": _both("cumulative_prod", axis=0), "diff": _both("diff", axis=0), "diff n=2": _both(
        "diff", axis=-1, n=2),
    "sort": _both("sort", axis=0), "sort descending": _both("sort", descending=True),
    "argsort": _both("argsort", axis=0), "argsort descending": _both("argsort", descending=True),
    "unique_values": _both("unique_values"), "unique_counts": _both("unique_counts"),
    "unique_inverse": _both("unique_inverse"), "unique_all": _both("unique_all"), "nonzero": _both("nonzero"),
    "flip": _both("flip"), "roll": _both("roll", shift=2), "roll axis": _both("roll", shift=-3, axis=0),
    "reshape": _both("reshape", shape=(-1,)), "expand_dims": _both("expand_dims", axis=-1),
    "tile": _both("tile", repetitions=(2, 1)), "repeat": _both("repeat", repeats=2, axis=0),
    "repeat flat": _both("repeat", repeats=3), "moveaxis": _both("moveaxis", source=0, destination=-1),
    "stack": (lambda x: ac.stack([x, x], axis=-1), lambda x: st.stack([x, x], axis=-1)),
    "concat": (lambda x: ac.concat([x, x]), lambda x: st.concat([x, x])),
    "concat flat": (lambda x: ac.concat([x, x], axis=None), lambda x: st.concat([x, x], axis=None)),
    "unstack": _both("unstack"), "astype float64": (lambda x: ac.astype(x, ac.float64),
                                                    lambda x: st.astype(x, st.float64)),
    "where": (lambda x: ac.where(ac.astype(x, ac.bool), x, ac.zeros_like(x)),
              lambda x: st.where(st.astype(x, st.bool), x, st.zeros_like(x))),
    "searchsorted": (lambda x: ac.searchsorted(ac.sort(ac.reshape(x, (-1,))), x),
                     lambda x: st.searchsorted(st.sort(st.reshape(x, (-1,))), x)),
    "isin": (lambda x: ac.isin(x, ac.flip(x)), lambda x: st.isin(x, st.flip(x))),
}
MATRIX_ONLY = {
    "tril": _both("tril", k=1), "triu": _both("triu", k=-1), "matrix_transpose": _both("matrix_transpose"),
    "vecdot": (lambda x: ac.vecdot(x, x), lambda x: st.vecdot(x, x)),
    "clip": (lambda x: ac.clip(x, ac.min(x, axis=0), 2), lambda x: st.clip(x, st.min(x, axis=0), 2)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(STRUCTURAL) + sorted(MATRIX_ONLY))
def test_structural_functions_match_the_reference(device, name):
    mine, theirs = STRUCTURAL.get(name) or MATRIX_ONLY[name]
    for dtype in ["float32", "float64", "int8", "int64", "uint64", "bool"]:
        for shape in SHAPES:
            if name in MATRIX_ONLY and len(shape) < 2:
                continue
            x = sample(dtype, shape)
            want = reference(theirs, x)
            if want is None:
                continue
            exact = name not in ("vecdot", "cumulative_sum", "cumulative_sum initial", "cumulative_prod") or \
                dtype not in ("float32", "float64")
            got = ours(mine, device, x)
            if exact:
                assert_matches(got, want, True, f"{name}({dtype}{shape})")
            else:
                assert got.dtype == want.dtype and got.shape == want.shape, name
                np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-5, equal_nan=True)


@pytest.mark.parametrize("device", DEVICES)
def test_linear_algebra_matches_the_reference(device):
    for dtype in ["float32", "float64", "complex64", "complex128"]:
        tol = 1e-3 if dtype in ("float32", "complex64") else 1e-9
        for shape in [(4, 4), (2, 3, 3), (1, 1), (0, 0)]:
            a = RNG.standard_normal(shape) + (1j * RNG.standard_normal(shape) if dtype.startswith("complex") else 0)
            a = a.astype(dtype)
            spd = (a @ np.conj(np.swapaxes(a, -1, -2)) + 4 * np.eye(shape[-1])).astype(dtype)
            calls = {"cholesky": [spd], "det": [a], "eigvalsh": [spd], "inv": [spd], "pinv": [a], "slogdet": [spd],
                     "solve": [spd, a], "svdvals": [a], "trace": [a], "diagonal": [a], "matrix_rank": [a]}
            for name, args in calls.items():
                want = reference(getattr(st.linalg, name), *args)
                if want is None:
                    continue
                got = ours(getattr(ac.linalg, name), device, *args)
                assert_matches_close(got, want, tol, f"linalg.{name}({dtype}{shape})")
            for ord in ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]:
                want = reference(st.linalg.matrix_norm, a, ord=ord)
                if want is not None:
                    got = ours(ac.linalg.matrix_norm, device, a, ord=ord)
                    assert_matches_close(got, want, tol, f"matrix_norm({dtype}{shape}, {ord})")
            for ord in [1, 2, np.inf, -np.inf, 0, -1]:
                want = reference(st.linalg.vector_norm, a, ord=ord, axis=-1)
                if want is not None:
                    got = ours(ac.linalg.vector_norm, device, a, ord=ord, axis=-1)
                    assert_matches_close(got, want, tol, f"vector_norm({dtype}{shape}, {ord})")


def assert_matches_close(got, want, tol: float, what: str) -> None:
    if isinstance(want, list):
        for g, w in zip(got, want):
            assert_matches_close(g, w, tol, what)
        return
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype, got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("device", DEVICES)
def test_fourier_transforms_match_the_reference(device):
    for dtype in ["float32", "float64", "complex64", "complex128"]:
        tol = 1e-4 if dtype in ("float32", "complex64") else 1e-10
        for n in [1, 7, 16]:
            x = RNG.standard_normal((3, n)) + (1j * RNG.standard_normal((3, n)) if dtype.startswith("complex") else 0)
            x = x.astype(dtype)
            for name in ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft"]:
                for norm in ["backward", "ortho", "forward"]:
                    want = reference(getattr(st.fft, name), x, norm=norm)
                    if want is not None:
                        got = ours(getattr(ac.fft, name), device, x, norm=norm)
                        assert_matches_close(got, want, tol, f"fft.{name}({dtype}, n={n}, {norm})")
            assert_matches(ours(ac.fft.fftshift, device, x), reference(st.fft.fftshift, x), True, "fftshift")
