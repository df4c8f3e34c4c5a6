"""MatrixEngine(devices=..., include_cpu=...) and ``accelera matmul --devices``: one streamed matmul shared
by several devices. In this process PoCL offers one OpenCL device, so the pairs here are an OpenCL device
with the CPU; the command line runs with POCL_DEVICES="pthread pthread" for two OpenCL devices."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import accelera as ac
from accelera import _core

from test_cli import TIMEOUT, _script

OTHERS = [d["device"] for d in ac.devices() if d["kind"] != "cpu"]
needs_device = pytest.mark.skipif(not OTHERS, reason="needs a GPU or OpenCL device besides the CPU")


def operands(m, k, n, dtype, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (m, k)).astype(dtype), rng.uniform(-1, 1, (k, n)).astype(dtype)


def check(c, a, b):
    eps = 6e-8 if a.dtype == np.float32 else 1.2e-16
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(np.asarray(c), want, rtol=0, atol=8 * a.shape[1] * eps)


def check_accounted(engine, devices):
    run = engine.last_run
    assert run["completed"] and run["streamed"]
    assert run["device"] == ",".join(devices)
    assert [d["device"] for d in run["per_device"]] == devices
    assert sum(d["tiles"] for d in run["per_device"]) == run["tiles"]
    assert sum(d["bytes_host_to_device"] for d in run["per_device"]) == run["bytes_host_to_device"]
    covered = np.zeros(engine_shape(run), dtype=np.int64)
    for r0, rows, c0, cols in run["finished_tiles"]:
        covered[r0:r0 + rows, c0:c0 + cols] += 1
    assert (covered == 1).all(), "the finished tiles must cover C exactly once"


def engine_shape(run):
    tiles = run["finished_tiles"]
    return max(r0 + rows for r0, rows, _, _ in tiles), max(c0 + cols for _, _, c0, cols in tiles)


@needs_device
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m, k, n", [(1, 1, 1), (131, 89, 107), (257, 31, 263)])
def test_a_device_and_the_cpu_match_float64(m, k, n, dtype):
    a, b = operands(m, k, n, dtype, seed=m + n)
    devices = [OTHERS[0], "cpu"]
    engine = ac.MatrixEngine(devices=devices, memory_budget=16_384, enable_progress=False)
    assert engine.devices == devices and engine.device == OTHERS[0]
    out = np.full((m, n), np.nan, dtype=dtype)
    a0, b0 = a.copy(), b.copy()
    engine.matmul(a, b, out=out)
    check(out, a, b)
    check_accounted(engine, devices)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


@needs_device
def test_out_of_memory_on_one_device_leaves_the_other_working():
    a, b = operands(120, 40, 110, np.float32, seed=3)
    devices = [OTHERS[0], "cpu"]
    engine = ac.MatrixEngine(devices=devices, memory_budget=16_384, enable_progress=False)
    _core._fail_nth_allocation(OTHERS[0], 2)
    try:
        c = engine.matmul(a, b)
    finally:
        _core._fail_nth_allocation(OTHERS[0], 0)
    check(c, a, b)
    check_accounted(engine, devices)
    run = engine.last_run
    assert run["fallback_log"][0].startswith(f"{OTHERS[0]}: out of device memory")
    assert run["per_device"][0]["fallbacks"] >= 1
    assert run["per_device"][1]["tiles"] > 0


@needs_device
def test_progress_is_reported_on_the_calling_thread():
    a, b = operands(200, 30, 200, np.float32, seed=4)
    engine = ac.MatrixEngine(devices=[OTHERS[0], "cpu"], chunking_strategy="tile", chunk_size=50,
                             auto_detect_memory=False, enable_progress=False)
    seen = []
    engine.set_progress_callback(lambda p: seen.append((threading.get_ident(), p["tiles_done"], p["tiles_total"])))
    check(engine.matmul(a, b), a, b)
    assert seen and {t for t, _, _ in seen} == {threading.get_ident()}
    assert seen[-1][1:] == (16, 16)
    assert [done for _, done, _ in seen] == sorted(done for _, done, _ in seen)


def test_all_names_every_accelerator_and_the_cpu_on_request():
    engine = ac.MatrixEngine(devices="all", include_cpu=True, enable_progress=False)
    assert engine.devices == OTHERS + ["cpu"]
    assert ac.MatrixEngine(devices="all").devices == (OTHERS or ["cpu"])


@pytest.mark.parametrize("devices, include_cpu, error, words", [
    (["cpu", "cpu"], False, ValueError, "named twice"),
    ("cpu,opencl:57", False, ac.DeviceError, "opencl:57"),
    ([], False, ValueError, "no device named"),
    (5, False, ac.ArgumentError, "'all' or a list"),
    (None, True, ac.ArgumentError, "include_cpu goes with devices"),
])
def test_bad_device_lists_are_refused_clearly(devices, include_cpu, error, words):
    with pytest.raises(error, match=words):
        ac.MatrixEngine(devices=devices, include_cpu=include_cpu)


def _two_opencl_devices_env():
    return dict(os.environ, POCL_DEVICES="pthread pthread")


@pytest.mark.skipif("opencl" not in ac.compiled_backends(), reason="built without OpenCL")
def test_cli_matmul_shares_tiles_among_two_opencl_devices_and_the_cpu(tmp_path: Path):
    a, b = operands(300, 120, 280, np.float64, seed=5)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    out = tmp_path / "c.npy"
    proc = subprocess.run([_script(), "matmul", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "-o", str(out),
                           "--devices", "all", "--include-cpu", "--budget", "256KB", "-q"],
                          capture_output=True, text=True, timeout=TIMEOUT, check=False, env=_two_opencl_devices_env())
    assert proc.returncode == 0, proc.stderr
    check(np.load(out), a, b)
    assert "on opencl:0,opencl:1,cpu" in proc.stdout, proc.stdout
    for device in ("opencl:0", "opencl:1", "cpu"):
        assert f"  {device}: " in proc.stdout, proc.stdout


def test_cli_include_cpu_needs_devices(tmp_path: Path):
    a, b = operands(4, 3, 2, np.float32, seed=6)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    proc = subprocess.run([_script(), "matmul", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "-o",
                           str(tmp_path / "c.npy"), "--include-cpu"], capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)
    assert proc.returncode != 0
    assert "--include-cpu goes with --devices" in proc.stderr
    assert not (tmp_path / "c.npy").exists()
