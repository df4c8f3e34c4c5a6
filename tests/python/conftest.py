"""Fixtures for Accelera's Python tests (helpers for comparing with NumPy live in helpers.py).

References are always computed by NumPy in float64 from the very same inputs; tolerances depend on the
dtype of the result (see ``helpers.assert_close``). Random inputs come from fixed seeds, and Hypothesis
runs derandomized, so every run checks the same cases.
"""

from __future__ import annotations

import gc
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import accelera as ac

settings.register_profile(
    "accelera",
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# A longer run for bug hunting: ACCELERA_HYPOTHESIS_PROFILE=thorough pytest tests/python
settings.register_profile("thorough", parent=settings.get_profile("accelera"), max_examples=1000,
                          derandomize=False)
settings.load_profile(os.environ.get("ACCELERA_HYPOTHESIS_PROFILE", "accelera"))


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20240611)


@pytest.fixture
def cpu_budget():
    """Restore the CPU memory budget (and disarm the allocation-failure switch) whatever the test does."""
    original = ac.memory_stats("cpu")["budget_bytes"]
    try:
        yield original
    finally:
        ac._core._fail_nth_allocation("cpu", 0)
        ac.set_memory_budget("cpu", original)
        assert ac.memory_stats("cpu")["budget_bytes"] == original


@pytest.fixture
def collected():
    """Collect garbage around the test so that memory statistics are not disturbed by dead objects."""
    gc.collect()
    yield
    gc.collect()
