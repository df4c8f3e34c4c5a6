"""MatrixEngine(fallback_strategy=...) and engine.memory_manager: what the engine does when the device runs
out of memory mid-call, and the memory figures it plans with."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as ac
from accelera import _core

DEVICES = [d["device"] for d in ac.devices()]
BUDGET = 12_000  # a few tiles of the 60 x 40 @ 40 x 50 product below


def operands(seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (60, 40)).astype(np.float32), rng.uniform(-1, 1, (40, 50)).astype(np.float32)


def check(c, a, b):
    np.testing.assert_allclose(np.asarray(c), a.astype(np.float64) @ b, rtol=0, atol=8 * 40 * 6e-8)


def run(engine, a, b, nth, out=None):
    """engine.matmul with the engine device's nth allocation failing (0: none)."""
    _core._fail_nth_allocation(engine.device, nth)
    try:
        return engine.matmul(a, b, out=out)
    finally:
        _core._fail_nth_allocation(engine.device, 0)


# (budget, nth): without a budget the product fits, and the in-core attempt's first allocation fails; with
# BUDGET it streams, and the failures hit the pipeline's buffers before or between tiles.
FAILURES = [(None, 1), (BUDGET, 1), (BUDGET, 2), (BUDGET, 3), (BUDGET, 5)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("budget, nth", FAILURES)
def test_cpu_fallback_finishes_on_the_cpu(device, budget, nth):
    a, b = operands(nth)
    before = ac.memory_stats(device)["current_bytes"]
    engine = ac.MatrixEngine(device=device, memory_budget=budget, fallback_strategy="cpu", enable_progress=False)
    # In core on the CPU, the result is the one allocation that can fail; when streaming, `out` is filled.
    out = None if budget is None else np.full((60, 50), np.nan, np.float32)
    result = run(engine, a, b, nth, out=out)
    check(result if out is not None else result.numpy(), a, b)
    stats = engine.last_run
    assert stats["completed"] and stats["fallbacks"] == 1
    assert "CPU" in stats["fallback_log"][0] and "resuming" not in stats["fallback_log"][0]
    del result  # a host result counts on the CPU device
    assert ac.memory_stats(device)["current_bytes"] == before


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("nth", [1, 3, 5])
def test_default_chunk_shrinks_and_resumes(device, nth):
    a, b = operands(10 + nth)
    engine = ac.MatrixEngine(device=device, memory_budget=BUDGET, enable_progress=False)
    assert engine.fallback_strategy == "default_chunk"
    out = np.full((60, 50), np.nan, np.float32)  # a result the engine allocates could be the failing one
    check(run(engine, a, b, nth, out=out), a, b)
    assert engine.last_run["fallbacks"] >= 1 and "resuming" in engine.last_run["fallback_log"][0]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("budget, nth", FAILURES)
def test_error_raises_and_leaves_nothing(device, budget, nth):
    a, b = operands(20 + nth)
    a0, b0 = a.copy(), b.copy()
    before = ac.memory_stats(device)["current_bytes"]
    engine = ac.MatrixEngine(device=device, memory_budget=budget, fallback_strategy="error", enable_progress=False)
    with pytest.raises(ac.OutOfMemoryError):
        run(engine, a, b, nth)
    assert engine.last_run["fallbacks"] == 0 and not engine.last_run["completed"]
    assert ac.memory_stats(device)["current_bytes"] == before
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)
    check(run(engine, a, b, 0).numpy(), a, b)  # without a failure it computes as usual


def test_budget_too_small_for_any_tile():
    a, b = operands(30)
    with pytest.raises(ac.OutOfMemoryError):  # the caller's budget, not a failure: no fallback by default
        ac.MatrixEngine(memory_budget=100, enable_progress=False).matmul(a, b)
    engine = ac.MatrixEngine(memory_budget=100, fallback_strategy="cpu", enable_progress=False)
    check(engine.matmul(a, b).numpy(), a, b)
    assert engine.last_run["strategy"] == "cpu" and engine.last_run["fallbacks"] == 1


def test_fallback_strategy_is_checked_and_settable():
    engine = ac.MatrixEngine(enable_progress=False)
    engine.fallback_strategy = "error"
    assert engine.fallback_strategy == "error"
    for bad in ("gpu", "", "CPU", None, 1):
        with pytest.raises(ac.ArgumentError, match="fallback_strategy"):
            ac.MatrixEngine(fallback_strategy=bad)
        with pytest.raises(ac.ArgumentError, match="fallback_strategy"):
            engine.fallback_strategy = bad
    assert engine.fallback_strategy == "error"


@pytest.mark.parametrize("device", DEVICES)
def test_memory_manager_figures(device):
    engine = ac.MatrixEngine(device=device, enable_progress=False)
    manager = engine.memory_manager
    assert manager.device == device and manager.budget is None
    total = next(d["total_memory"] for d in ac.devices() if d["device"] == device)
    assert manager.get_total_memory() == total
    stats = ac.memory_stats(device)
    assert manager.get_available_memory() == stats["budget_bytes"] - stats["current_bytes"]
    held = ac.ones((256, 256), device=device)
    assert manager.get_available_memory() == stats["budget_bytes"] - stats["current_bytes"] - held.size * 4
    manager.budget = "64KiB"
    assert engine.memory_manager.budget == 65536 and manager.get_available_memory() == 65536
    assert engine.get_memory_info()["engine_budget_gb"] == 65536 / 2**30
    with pytest.raises(ac.ArgumentError):
        manager.budget = "lots"
    assert manager.budget == 65536


def test_standalone_memory_manager():
    manager = ac.MemoryManager("cpu", budget="1MB")
    assert manager.device == "cpu" and manager.get_available_memory() == 1_000_000
    assert set(manager.get_memory_info()) >= {"gpu_available_gb", "cpu_available_gb"}
    with pytest.raises(ac.DeviceError):
        ac.MemoryManager("opencl:97")
    with pytest.raises(ac.ArgumentError):
        ac.MemoryManager("gpu")
