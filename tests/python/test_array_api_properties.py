"""Property tests in the manner of the standard's conformance suite, against array-api-strict.

Hypothesis draws the inputs through accelera's own namespace (``hypothesis.extra.array_api``, which builds
them with asarray, full, zeros, indexing and the dtype functions, so those are exercised too): every real
dtype and bool, shapes up to 3-D, mutually broadcastable shapes for the binary functions, and elements
anywhere in the dtype's range (nan, infinities, signed zeros and subnormals included). Each element-wise
function must then agree with the reference wherever the reference computes a result, on every device.
The draws are derandomised, so a run is reproducible and a failure prints its smallest example.
"""

from __future__ import annotations

import numpy as np
import pytest

import accelera as ac
from test_array_api_reference import BINARY, EXACT, UNARY, assert_matches, reference

hypothesis = pytest.importorskip("hypothesis")
st = pytest.importorskip("array_api_strict")
from hypothesis import HealthCheck, given, settings, strategies  # noqa: E402
from hypothesis.extra.array_api import make_strategies_namespace  # noqa: E402

DEVICES = [d["device"] for d in ac.devices()]
xps = make_strategies_namespace(ac)
DTYPES = xps.real_dtypes() | xps.boolean_dtypes()
PROPERTY_SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                             suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _host(t: ac.Tensor) -> np.ndarray:
    return t.to_device("cpu").numpy()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", UNARY)
def test_unary_function_agrees_with_the_reference(device, name):
    @PROPERTY_SETTINGS
    @given(xps.arrays(dtype=DTYPES, shape=xps.array_shapes(min_dims=0, max_dims=3, max_side=5)))
    def check(x):
        values = _host(x)
        want = reference(getattr(st, name), values)
        if want is not None:
            got = getattr(ac, name)(x.to_device(device))
            assert got.device == device
            assert_matches(_host(got), want, name in EXACT, f"{name}({values!r})")

    check()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", BINARY)
def test_binary_function_agrees_with_the_reference(device, name):
    @PROPERTY_SETTINGS
    @given(strategies.data())
    def check(data):
        dtype = data.draw(DTYPES, label="dtype")
        shapes = data.draw(xps.mutually_broadcastable_shapes(2, min_dims=0, max_dims=3, max_side=4), label="shapes")
        x1 = data.draw(xps.arrays(dtype=dtype, shape=shapes.input_shapes[0]), label="x1")
        x2 = data.draw(xps.arrays(dtype=dtype, shape=shapes.input_shapes[1]), label="x2")
        a, b = _host(x1), _host(x2)
        want = reference(getattr(st, name), a, b)
        if want is not None:
            got = getattr(ac, name)(x1.to_device(device), x2.to_device(device))
            assert got.device == device
            assert_matches(_host(got), want, name in EXACT, f"{name}({a!r}, {b!r})")

    check()


STATISTICS = ["sum", "prod", "min", "max", "mean", "std", "var", "all", "any", "count_nonzero", "argmax", "argmin",
              "cumulative_sum", "cumulative_prod"]
# Order-insensitive or integer results: bit for bit (min and max up to the sign of a zero, which the standard
# leaves open).
EXACT_STATISTICS = {"min", "max", "all", "any", "count_nonzero", "argmax", "argmin"}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", STATISTICS)
def test_statistic_agrees_with_the_reference(device, name):
    @PROPERTY_SETTINGS
    @given(strategies.data())
    def check(data):
        x = data.draw(xps.arrays(dtype=DTYPES, shape=xps.array_shapes(min_dims=1, max_dims=3, max_side=5)), label="x")
        if name.startswith("cumulative"):
            kwargs = {"axis": data.draw(strategies.integers(-x.ndim, x.ndim - 1), label="axis")}
        elif name.startswith("arg"):
            axis = data.draw(strategies.none() | strategies.integers(-x.ndim, x.ndim - 1), label="axis")
            kwargs = {"axis": axis, "keepdims": data.draw(strategies.booleans(), label="keepdims")}
        else:
            axis = data.draw(strategies.none() | xps.valid_tuple_axes(x.ndim), label="axis")
            kwargs = {"axis": axis, "keepdims": data.draw(strategies.booleans(), label="keepdims")}
        values = _host(x)
        want = reference(getattr(st, name), values, **kwargs)
        if want is None:
            return
        got = _host(getattr(ac, name)(x.to_device(device), **kwargs))
        what = f"{name}({values!r}, {kwargs})"
        if name in EXACT_STATISTICS or values.dtype.kind != "f":
            assert_matches(got, want, True, what, signed_zeros=name not in ("min", "max"))
            return
        assert got.dtype == want.dtype and got.shape == want.shape, what
        # Sums and products accumulate in another order (and in float64 on the CPU): close, not equal; and
        # where NumPy's float32 running product overflowed, ours may not have.
        kept = np.isfinite(want) if name.endswith("prod") else np.ones(want.shape, bool)
        np.testing.assert_allclose(got[kept], want[kept], rtol=1e-4, atol=1e-5, equal_nan=True, err_msg=what)

    check()


def _same_call(name: str, **kwargs):
    """accelera's and the reference's function ``name`` with the same keyword arguments."""
    return (lambda t: getattr(ac, name)(t, **kwargs), lambda t: getattr(st, name)(t, **kwargs))


def _axis(x):
    return strategies.integers(-x.ndim, x.ndim - 1)


# name -> draws the arguments of one call for the array x: (accelera's call, the reference's call).
STRUCTURAL = {
    "sort": lambda data, x: _same_call("sort", axis=data.draw(_axis(x)), descending=data.draw(strategies.booleans())),
    "argsort": lambda data, x: _same_call("argsort", axis=data.draw(_axis(x)),
                                          descending=data.draw(strategies.booleans())),
    "unique_all": lambda data, x: _same_call("unique_all"),
    "unique_inverse": lambda data, x: _same_call("unique_inverse"),
    "nonzero": lambda data, x: _same_call("nonzero"),
    "flip": lambda data, x: _same_call("flip", axis=data.draw(strategies.none() | xps.valid_tuple_axes(x.ndim))),
    "roll": lambda data, x: _same_call("roll", shift=data.draw(strategies.integers(-7, 7)),
                                       axis=data.draw(strategies.none() | _axis(x))),
    "diff": lambda data, x: _same_call("diff", axis=data.draw(_axis(x)), n=data.draw(strategies.integers(0, 3))),
    "repeat": lambda data, x: _same_call("repeat", repeats=data.draw(strategies.integers(0, 3)),
                                         axis=data.draw(strategies.none() | _axis(x))),
    "tile": lambda data, x: _same_call("tile", repetitions=tuple(data.draw(
        strategies.lists(strategies.integers(0, 3), min_size=1, max_size=4)))),
    "moveaxis": lambda data, x: _same_call("moveaxis", source=data.draw(_axis(x)), destination=data.draw(_axis(x))),
    "cumulative_sum": lambda data, x: _same_call("cumulative_sum", axis=data.draw(_axis(x)), include_initial=True),
    # Floats to integers are undefined outside the integers' range (nan and inf included): not drawn.
    "astype": lambda data, x: (lambda dtype: (lambda t: ac.astype(t, getattr(ac, dtype)),
                                              lambda t: st.astype(t, getattr(st, dtype))))(
        data.draw(strategies.sampled_from(["float32", "float64", "bool"] + (
            [] if x.dtype in (ac.float32, ac.float64) else ["int8", "uint16", "int64"])))),
    "searchsorted": lambda data, x: (lambda side: (
        lambda t: ac.searchsorted(ac.sort(ac.reshape(t, (-1,))), t, side=side),
        lambda t: st.searchsorted(st.sort(st.reshape(t, (-1,))), t, side=side)))(
        data.draw(strategies.sampled_from(["left", "right"]))),
    "isin": lambda data, x: (lambda t: ac.isin(t, ac.flip(t)), lambda t: st.isin(t, st.flip(t))),
    "where": lambda data, x: (lambda t: ac.where(ac.astype(t, ac.bool), t, ac.flip(t)),
                              lambda t: st.where(st.astype(t, st.bool), t, st.flip(t))),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(STRUCTURAL))
def test_structural_function_agrees_with_the_reference(device, name):
    @PROPERTY_SETTINGS
    @given(strategies.data())
    def check(data):
        x = data.draw(xps.arrays(dtype=DTYPES, shape=xps.array_shapes(min_dims=1, max_dims=3, max_side=5)), label="x")
        mine, theirs = STRUCTURAL[name](data, x)
        values = _host(x)
        want = reference(theirs, values)
        if want is None:
            return
        result = mine(x.to_device(device))
        got = [_host(r) for r in result] if isinstance(result, (tuple, list)) else _host(result)
        assert_matches(got, want, True, f"{name}({values!r})")

    check()
