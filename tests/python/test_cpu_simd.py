"""Which vector instruction set the CPU kernels run on: accelera.cpu_simd_info(), the ACCELERA_CPU_TARGET
override (every compiled path gives the same results), and what `accelera info` says about it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import accelera as ac

TIMEOUT = 120

# One process per target: the override is read once, before the first kernel runs.
_PROBE = """
import json, sys
import numpy as np
import accelera as ac
x = np.linspace(-6, 6, 1001, dtype=np.float32)
out = {
    "active": ac.cpu_simd_info()["active"],
    "gelu": np.asarray(ac.gelu(ac.asarray(x))).tolist(),
    "softmax": np.asarray(ac.softmax(ac.asarray(x.reshape(7, 143)))).ravel().tolist(),
    "exp_sum": float(np.asarray(ac.sum(ac.exp(ac.asarray(x))))),
    "column_sum": np.asarray(ac.sum(ac.asarray(x[:1000].reshape(40, 25)), axis=0)).tolist(),
    "var": float(np.asarray(ac.var(ac.asarray(x + 100)))),
    "column_var": np.asarray(ac.var(ac.asarray(x[:1000].reshape(40, 25) + 100), axis=0)).tolist(),
}
print(json.dumps(out))
"""


def _python(code: str, target: str | None, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("ACCELERA_CPU_TARGET", None)
    if target is not None:
        env["ACCELERA_CPU_TARGET"] = target
    return subprocess.run([sys.executable, *args, "-c", code] if code else [sys.executable, *args],
                          capture_output=True, text=True, timeout=TIMEOUT, env=env, check=False)


def test_info_lists_compiled_supported_and_active():
    info = ac.cpu_simd_info()
    assert set(info) == {"compiled", "supported", "active"}
    assert info["compiled"][-1] == "scalar"
    assert set(info["supported"]) <= set(info["compiled"])
    assert info["active"] in info["supported"]


@pytest.mark.parametrize("target", ac.cpu_simd_info()["supported"])
def test_every_supported_target_runs_and_agrees(target):
    proc = _python(_PROBE, target)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["active"] == target
    x = np.linspace(-6, 6, 1001, dtype=np.float32)
    want = np.asarray(ac.gelu(ac.asarray(x)))  # this process: the best target
    np.testing.assert_allclose(got["gelu"], want, rtol=2e-6, atol=1e-30)
    np.testing.assert_allclose(got["softmax"], np.asarray(ac.softmax(ac.asarray(x.reshape(7, 143)))).ravel(),
                               rtol=2e-6)
    np.testing.assert_allclose(got["exp_sum"], float(np.exp(x.astype(np.float64)).sum()), rtol=1e-6)
    # Column sums and var's squared deviations (rows and columns of odd widths) on each target.
    columns = x[:1000].reshape(40, 25).astype(np.float64)
    np.testing.assert_allclose(got["column_sum"], columns.sum(axis=0), rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(got["var"], np.var((x + 100).astype(np.float64)), rtol=1e-5)
    np.testing.assert_allclose(got["column_var"], np.var((x[:1000].reshape(40, 25) + 100).astype(np.float64), axis=0),
                               rtol=1e-5)


def test_a_lesser_target_than_the_cpu_has_is_honoured_and_a_better_one_capped():
    proc = _python(_PROBE, "scalar")
    assert json.loads(proc.stdout)["active"] == "scalar"
    proc = _python("import accelera as ac; print(ac.cpu_simd_info()['active'])", "best")
    assert proc.stdout.strip() == ac.cpu_simd_info()["supported"][0]


def test_unknown_target_is_a_value_error_naming_the_choices():
    proc = _python("import accelera as ac\ntry:\n    ac.exp(ac.asarray([1.0]))\nexcept ValueError as e:\n"
                   "    print('ValueError:', e)\n", "avx9000")
    assert proc.returncode == 0, proc.stderr
    assert "ValueError:" in proc.stdout and "avx9000" in proc.stdout
    for name in ac.cpu_simd_info()["compiled"]:
        assert name in proc.stdout


def test_accelera_info_reports_the_targets():
    proc = _python("", None, "-m", "accelera", "info")
    assert proc.returncode == 0, proc.stderr
    active = ac.cpu_simd_info()["active"]
    assert f"CPU kernels: {active}" in proc.stdout
    proc = _python("", None, "-m", "accelera", "info", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["cpu_simd"] == ac.cpu_simd_info()
    proc = _python("", "avx9000", "-m", "accelera", "info")
    assert proc.returncode != 0
    assert "avx9000" in proc.stderr and "Traceback" not in proc.stderr
