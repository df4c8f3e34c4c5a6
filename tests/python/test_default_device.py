"""ACCELERA_DEVICE: the default device of every creation function and the engine, validated like the other
variables (a malformed value or a device that does not answer is an error naming the variable)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import accelera as ac
from accelera import _core

DEVICES = [d["device"] for d in ac.devices()]


@pytest.fixture
def device_variable(monkeypatch):
    """Sets ACCELERA_DEVICE for the test (re-reading the configuration), and restores it afterwards."""

    def set_to(value):
        monkeypatch.setenv("ACCELERA_DEVICE", value)
        _core._reload_config()

    yield set_to
    monkeypatch.undo()
    _core._reload_config()


def best_device() -> str:
    accelerators = [d["device"] for d in ac.devices() if d["is_accelerator"]]
    return accelerators[0] if accelerators else "cpu"


def test_unset_and_auto_mean_the_best_device(device_variable, monkeypatch):
    monkeypatch.delenv("ACCELERA_DEVICE", raising=False)
    _core._reload_config()
    assert ac.default_device() == best_device()
    device_variable("auto")
    assert ac.default_device() == best_device()


@pytest.mark.parametrize("device", DEVICES)
def test_every_default_follows_the_variable(device_variable, device):
    device_variable(device)
    assert ac.default_device() == device
    assert ac.zeros((2, 3)).device == device
    assert ac.ones(4).device == device
    full = ac.full((2,), 7.5)
    assert full.device == device and full.numpy().tolist() == [7.5, 7.5]
    assert ac.MatrixEngine(enable_progress=False).device == device
    assert ac.MemoryManager().device == device
    assert ac.Matrix(np.eye(2)).to_gpu().device == device
    assert ac.memory_stats()["budget_bytes"] == ac.memory_stats(device)["budget_bytes"]
    # An explicit device still wins, and host arrays stay where they are (zero-copy views).
    assert ac.zeros(2, device="cpu").device == "cpu"
    assert ac.asarray(np.ones(2)).device == "cpu"


def test_short_kind_means_index_zero(device_variable):
    device_variable("cpu")
    assert ac.default_device() == "cpu"
    if "opencl:0" in DEVICES:
        device_variable("opencl")
        assert ac.default_device() == "opencl:0"


@pytest.mark.parametrize("value", ["gpu", "gpu0", "opencl:-1", "cuda:x", "CPU", "opencl:", "cpu:0:1"])
def test_malformed_values_name_the_variable(device_variable, value):
    before = ac.default_device()
    with pytest.raises(ac.ArgumentError, match=f"ACCELERA_DEVICE='{re.escape(value)}' is not a device"):
        device_variable(value)  # the configuration is read, and checked, at once
    assert ac.default_device() == before  # and the previous one stays


def test_a_malformed_value_fails_the_first_use():
    env = dict(os.environ, ACCELERA_DEVICE="gpu0")
    run = subprocess.run([sys.executable, "-c", "import accelera as ac; ac.zeros(3)"], env=env,
                         capture_output=True, text=True)
    assert run.returncode != 0
    assert "ArgumentError: environment variable ACCELERA_DEVICE='gpu0' is not a device" in run.stderr


def test_a_device_that_does_not_answer_is_an_error(device_variable):
    device_variable("opencl:97")
    with pytest.raises(ac.DeviceError, match="ACCELERA_DEVICE=opencl:97"):
        ac.default_device()
    with pytest.raises(ac.DeviceError, match="ACCELERA_DEVICE"):
        ac.MatrixEngine()
    if "cuda" in ac.absent_backends():
        device_variable("cuda:0")
        with pytest.raises(ac.DeviceError, match=re.escape(ac.absent_backends()["cuda"])):
            ac.ones(2)
