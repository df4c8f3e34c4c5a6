"""The CPU's element-wise parallel grain (Note [Parallel grain] in accelera/cpu_features.hpp): measured
once per process within its bounds, overridable with ACCELERA_PARALLEL_GRAIN, shown by `accelera info`,
and never a change in results: the same ops give the same bits whether their loops split or not."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

import accelera as ac

TIMEOUT = 120

_PROBE = """
import json
import numpy as np
import accelera as ac
rng = np.random.default_rng(3)
x = ac.asarray(rng.standard_normal((300, 257)).astype(np.float32))
y = ac.asarray(rng.standard_normal((300, 257)).astype(np.float32))
rows = ac.asarray(rng.integers(0, 300, 77))
results = {
    "grain": ac.cpu_parallel_grain()["elements"],
    "mul": np.asarray(ac.multiply(x, y)).tobytes().hex(),
    "exp": np.asarray(ac.exp(x)).tobytes().hex(),
    "where": np.asarray(ac.where(ac.greater(x, 0.0), y, 0.0)).tobytes().hex(),
    "gelu": np.asarray(ac.gelu(x)).tobytes().hex(),
    "softmax": np.asarray(ac.softmax(x)).tobytes().hex(),
    "take": np.asarray(ac.take(x, rows, axis=0)).tobytes().hex(),
}
print(json.dumps(results))
"""


def _run(grain: str | None, code: str = _PROBE) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("ACCELERA_PARALLEL_GRAIN", None)
    if grain is not None:
        env["ACCELERA_PARALLEL_GRAIN"] = grain
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT, env=env,
                          check=False)


def test_measured_within_bounds():
    g = ac.cpu_parallel_grain()
    assert set(g) == {"elements", "wake_microseconds", "elements_per_microsecond", "threads"}
    assert g["threads"] >= 1 and g["wake_microseconds"] > 0 and g["elements_per_microsecond"] > 0
    if "ACCELERA_PARALLEL_GRAIN" not in os.environ:
        assert 1 << 14 <= g["elements"] <= 1 << 20


def test_split_and_unsplit_loops_agree_bit_for_bit():
    split, whole = _run("64"), _run(str(1 << 40))
    assert split.returncode == 0, split.stderr
    assert whole.returncode == 0, whole.stderr
    a, b = json.loads(split.stdout), json.loads(whole.stdout)
    assert a.pop("grain") == 64 and b.pop("grain") == 1 << 40
    assert a == b


def test_a_bad_override_is_a_clear_error():
    proc = _run("lots", "import accelera as ac; ac.exp(ac.ones((4,)))")
    assert proc.returncode != 0
    assert "ACCELERA_PARALLEL_GRAIN must be a positive number of elements, got 'lots'" in proc.stderr


def test_info_reports_it():
    proc = subprocess.run([sys.executable, "-m", "accelera", "info", "--json"], capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)
    assert proc.returncode == 0, proc.stderr
    grain = json.loads(proc.stdout)["cpu_parallel_grain"]
    assert grain["elements"] >= 1 and grain["threads"] >= 1
