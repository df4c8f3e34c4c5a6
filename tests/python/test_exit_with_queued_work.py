"""A program that ends with device work still queued exits cleanly (Note [Work queued at exit] in
src/core/registry.cpp). With cold compiler caches this crashed every time on PoCL: the driver finished
compiling the kernels in a worker thread while exit handlers destroyed the compiler's static objects."""

import os
import subprocess
import sys

import accelera as ac
import pytest

DEVICES = [d["device"] for d in ac.devices() if d["kind"] != "cpu"]

# Several programs (scans, where, exp), queued and never read.
PROGRAM = """
import atexit, sys
import numpy as np
import accelera as ac
if sys.argv[2] == "c++ handlers only":
    atexit.unregister(ac._core._finish_queued_work)
x = ac.asarray(np.linspace(-1, 1, 1 << 20, dtype=np.float32), device=sys.argv[1])
y = ac.cumulative_sum(x)
z = ac.where(x > 0, ac.exp(x), y)
w = ac.cumulative_sum(z.reshape((1024, 1024)), axis=0)
"""


@pytest.mark.skipif(not DEVICES, reason="no device besides the CPU here")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("handlers", ["python and c++ handlers", "c++ handlers only"])
def test_exit_with_kernels_queued_and_cold_caches(device, handlers, tmp_path):
    env = dict(os.environ, POCL_CACHE_DIR=str(tmp_path / "pocl"), ACCELERA_KERNEL_CACHE=str(tmp_path / "kernels"))
    run = subprocess.run([sys.executable, "-c", PROGRAM, device, handlers], env=env, capture_output=True,
                         text=True, timeout=300, check=False)
    assert run.returncode == 0, f"exit status {run.returncode}; stderr:\n{run.stderr[-2000:]}"
