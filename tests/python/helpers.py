"""Helpers shared by the test modules: shapes, random inputs, strided views, comparison with NumPy."""

from __future__ import annotations

import contextlib

import numpy as np

import accelera as ac

# Relative tolerances by result dtype: element-wise ops; reductions and matmul scale them (see below).
RTOL = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}

# Shapes for element-wise ops and reductions: 0-d, empty in any axis, extents of 1, and primes (7, 13, 127)
# that defeat vector widths and blocking.
SHAPES = [
    (),
    (0,),
    (1,),
    (7,),
    (127,),
    (7, 13),
    (13, 7),
    (0, 7),
    (7, 0),
    (1, 1),
    (1, 127),
    (3, 0, 5),
    (2, 7, 13),
    (13, 1, 7),
]


def shape_id(shape) -> str:
    return "x".join(map(str, shape)) if shape else "0d"


def random_array(rng: np.random.Generator, shape, dtype, low=-3.0, high=3.0) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.uniform(low, high, size=shape).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(int(low) - 5, int(high) + 6, size=shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    raise AssertionError(f"no random generator for {dtype}")


def noncontiguous_views(base: np.ndarray) -> dict[str, np.ndarray]:
    """Strided views with the same shape-family as ``base`` (2-D, at least 3 x 3): the views NumPy users make."""
    assert base.ndim == 2
    return {
        "transposed": base.T,
        "step2": base[::2, 1::2],
        "negstep": base[::-1, ::-3],
        "negstep_rows": base[::-2],
        "broadcast_row": np.broadcast_to(base[:1], base.shape),  # stride 0 on axis 0
        "broadcast_col": np.broadcast_to(base[:, :1], base.shape),  # stride 0 on axis 1
        "broadcast_scalar": np.broadcast_to(base[0, 0], (5, 3)),  # all strides 0
        "fortran": np.asfortranarray(base),
    }


def check_result_type(result, expected: np.ndarray) -> None:
    """``result`` is a Tensor with exactly NumPy's shape and dtype."""
    assert isinstance(result, ac.Tensor), f"expected an accelera.Tensor, got {type(result).__name__}"
    expected = np.asarray(expected)
    assert result.shape == expected.shape, f"shape {result.shape} != NumPy's {expected.shape}"
    assert result.dtype == expected.dtype, f"dtype {result.dtype!r} != NumPy's {expected.dtype}"
    assert result.numpy().dtype == expected.dtype


def assert_close(result, want, dtype, *, scale=None, factor: float = 1.0) -> None:
    """Compare a Tensor with a reference: NumPy's result ``dtype`` (checked, with the shape) and values.

    ``want`` holds float64 values for floating results, computed from the very same inputs. Floating
    results must be within ``rtol * factor * (|want| + scale)``, where rtol depends on the result dtype
    (float32 1e-5, float64 1e-12) and ``scale`` (default 0) is the magnitude of the terms combined into
    each element (sum |x| for reductions, |A| @ |B| for matmul). Non-finite references must be matched
    exactly; integer and bool results must be exact.
    """
    dtype = np.dtype(dtype)
    want = np.asarray(want)
    check_result_type(result, np.empty(want.shape, dtype=dtype))
    got = result.numpy()
    if dtype.kind != "f":
        np.testing.assert_array_equal(got, want.astype(dtype))
        return
    got = got.astype(np.float64)
    want = want.astype(np.float64)
    with np.errstate(all="ignore"):
        rounded = want.astype(dtype).astype(np.float64)  # the reference rounded to the result dtype
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg="nan at different places")
        # Infinities (also float32 overflow of a finite float64 value) must be matched exactly.
        infinite = np.isinf(rounded)
        np.testing.assert_array_equal(got[infinite], rounded[infinite], err_msg="infinities differ")
        finite = np.isfinite(rounded)
        rtol = RTOL[dtype] * factor
        magnitude = np.abs(want) + (0.0 if scale is None else np.asarray(scale, dtype=np.float64))
        bound = rtol * magnitude + np.finfo(dtype).tiny  # subnormal results may be flushed to zero
        err = np.abs(got - want)
        bad = finite & ~(err <= bound)  # a nan or inf where a finite value is expected is bad too
    assert not bad.any(), (
        f"{int(bad.sum())} of {bad.size} elements out of tolerance (dtype {dtype}); worst error "
        f"{float(np.max(err[bad]))}, bound there {float(bound[bad][np.argmax(err[bad])])}; "
        f"got {got[bad][:5]}, expected {want[bad][:5]}"
    )


@contextlib.contextmanager
def inputs_unchanged(*arrays: np.ndarray):
    """Assert that the NumPy arrays have the same values, dtype, shape and strides after the block."""
    saved = [(a, a.copy(), a.dtype, a.shape, a.strides) for a in arrays if isinstance(a, np.ndarray)]
    yield  # an exception from the block propagates as is
    for a, copy, dtype, shape, strides in saved:
        assert a.dtype == dtype and a.shape == shape and a.strides == strides
        if a.dtype.kind == "f":
            np.testing.assert_array_equal(a, copy)  # nan == nan here
        else:
            assert np.array_equal(a, copy)
