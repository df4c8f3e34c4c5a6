"""A hostile but fair user: garbage into every public function, operands on either side, callbacks that
are not callable or that refer back to their engine, nan where it hurts. Every failure must be a typed
accelera.Error (which also derives from the built-in exception a Python user expects) and leave the inputs
as they were; nothing may crash, hang or leak."""

from __future__ import annotations

import gc
import inspect
import subprocess
import sys
import weakref

import numpy as np
import pytest

import accelera as ac
from helpers import inputs_unchanged

DEVICES = [d["device"] for d in ac.devices()]
OTHER_DEVICES = [d for d in DEVICES if d != "cpu"]

BAD_VALUES = [None, "x", object(), 2**70, -(2**70), float("nan"), float("inf"), np.ones(3, dtype=complex),
              [1, [2]], (), {}, b"x", 1j, -1, 0, True, np.ones((2, 2), np.float32)]


def _signature(f):
    try:
        return inspect.signature(f)
    except (TypeError, ValueError):  # a function of the compiled module, exported as is
        return None


_CALLABLES = sorted(n for n in ac.__all__ if callable(getattr(ac, n)) and not isinstance(getattr(ac, n), type))
# The compiled module's functions exported as they are take no arguments (queries such as compiled_backends);
# every function that takes arguments goes through a Python wrapper that checks them.
PUBLIC_FUNCTIONS = [n for n in _CALLABLES if _signature(getattr(ac, n)) is not None]
CORE_QUERIES = [n for n in _CALLABLES if _signature(getattr(ac, n)) is None]


@pytest.mark.parametrize("name", CORE_QUERIES)
def test_functions_exported_from_the_core_take_no_arguments(name):
    getattr(ac, name)()


def _probe(f, args, kwargs):
    try:
        f(*args, **kwargs)
    except ac.Error:
        return None
    except Exception as err:  # noqa: BLE001 - the point of the probe: anything that is not ours is a leak
        return f"{type(err).__name__}: {err}"
    return None


@pytest.mark.parametrize("name", PUBLIC_FUNCTIONS)
def test_bad_arguments_raise_accelera_errors_only(name):
    f = getattr(ac, name)
    sig = _signature(f)
    positional = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    optional = [p.name for p in sig.parameters.values() if p.default is not p.empty and p.kind != p.POSITIONAL_ONLY]
    # Optional positional-only parameters (the array API's eye(n_rows, n_cols=None, /)) are given by position.
    optional_positional = [i for i, p in enumerate(positional) if p.default is not p.empty and p.kind == p.POSITIONAL_ONLY]
    good = np.ones((2, 3), np.float32)
    leaks = []
    for bad in BAD_VALUES:
        for position in range(len(required)):
            args = [good] * len(required)
            args[position] = bad
            if (leak := _probe(f, args, {})) is not None:
                leaks.append(f"{name}(argument {position} = {bad!r:.30}) -> {leak}")
        for keyword in optional:
            if (leak := _probe(f, [good] * len(required), {keyword: bad})) is not None:
                leaks.append(f"{name}({keyword}={bad!r:.30}) -> {leak}")
        for position in optional_positional:
            if (leak := _probe(f, [good] * position + [bad], {})) is not None:
                leaks.append(f"{name}(argument {position} = {bad!r:.30}) -> {leak}")
    assert not leaks, "\n".join(leaks[:10])


@pytest.mark.parametrize("device", OTHER_DEVICES)
def test_a_numpy_operand_joins_the_device_on_either_side(device):
    rng = np.random.default_rng(3)
    a_host = rng.random((5, 5), dtype=np.float32)
    o = rng.random((5, 5), dtype=np.float32)
    a = ac.asarray(a_host, device=device)
    with inputs_unchanged(o):
        for result, expected in [(a @ o, a_host @ o), (o @ a, o @ a_host), (a + o, a_host + o), (o + a, o + a_host),
                                 (ac.add(a, o), a_host + o), (ac.matmul(o, a), o @ a_host),
                                 (ac.maximum(o, a), np.maximum(o, a_host))]:
            assert result.device == device
            np.testing.assert_allclose(result.to("cpu").numpy(), expected, rtol=1e-5)


def test_values_a_dtype_cannot_hold_are_typed_errors():
    with pytest.raises(ac.OutOfRangeError) as info:
        ac.full((2,), 2**40, dtype=ac.int32)
    assert isinstance(info.value, OverflowError)
    with pytest.raises(ac.ArgumentError, match="nan"):
        ac.full((2,), float("nan"), dtype=ac.int32)
    x = np.ones((2, 3), np.float32)
    with inputs_unchanged(x), pytest.raises(ac.DTypeError, match="eps"):
        ac.layer_norm(x, eps="x")
    with pytest.raises(ac.OutOfRangeError):
        ac.asarray(np.ones(3, np.int32)) + 2**40


def test_a_progress_callback_that_is_not_callable_is_refused_at_once():
    engine = ac.MatrixEngine(device="cpu", enable_progress=False)
    with pytest.raises(ac.DTypeError, match="callable"):
        engine.set_progress_callback(42)
    engine.set_progress_callback(None)


def test_an_engine_whose_callback_refers_to_it_is_freed():
    engine = ac.MatrixEngine(device="cpu", memory_budget="1MB", enable_progress=False)
    engine.set_progress_callback(lambda progress: engine.last_run is not None)  # a cycle through C++
    engine.matmul(np.ones((300, 200), np.float32), np.ones((200, 300), np.float32))
    alive = weakref.ref(engine)
    del engine
    gc.collect()
    assert alive() is None


def test_no_leak_report_at_exit_with_a_self_referring_callback():
    code = ("import numpy as np, accelera as acc\n"
            "engine = acc.MatrixEngine(device='cpu', memory_budget='1MB', enable_progress=False)\n"
            "engine.set_progress_callback(lambda p: engine.last_run is not None)\n"
            "engine.matmul(np.ones((300, 200), np.float32), np.ones((200, 300), np.float32))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0 and "leaked" not in proc.stderr, proc.stderr[-2000:]


@pytest.mark.parametrize("device", DEVICES)
def test_nan_in_a_query_makes_its_attention_row_nan(device):
    rng = np.random.default_rng(4)
    q = rng.standard_normal((1, 1, 6, 16)).astype(np.float32)
    k = rng.standard_normal((1, 1, 6, 16)).astype(np.float32)
    q[0, 0, 2, 3] = np.nan
    out, lse = ac.attention(ac.asarray(q, device=device), ac.asarray(k, device=device),
                            ac.asarray(k, device=device), return_lse=True)
    out, lse = out.to("cpu").numpy(), lse.to("cpu").numpy()
    assert np.isnan(out[0, 0, 2]).all() and np.isnan(lse[0, 0, 2])
    assert np.isfinite(np.delete(out[0, 0], 2, axis=0)).all() and np.isfinite(np.delete(lse[0, 0], 2)).all()
