"""Shared by tests/python and tests/seed_examples."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def offload_calibration_in_a_temporary(tmp_path_factory):
    """The offload runtime's calibration cache goes to a temporary file, not the user's cache, unless the run
    names one (ACCELERA_CALIBRATION)."""
    if "ACCELERA_CALIBRATION" in os.environ:
        yield
        return
    os.environ["ACCELERA_CALIBRATION"] = str(tmp_path_factory.mktemp("offload") / "calibration.json")
    yield
    del os.environ["ACCELERA_CALIBRATION"]
