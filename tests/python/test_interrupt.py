"""Ctrl-C during a long streamed product: KeyboardInterrupt within a tile or so, nothing left running, and
last_run / the error say what a caller's ``out`` holds."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import accelera as ac

INTERRUPTED = """
import os, signal, threading, time
import numpy as np
import accelera as acc
n = 4096  # about 0.3 s of products even at 500 GFLOP/s: the interrupt lands well before the end
a = np.random.default_rng(0).random((n, n), dtype=np.float32)
out = np.zeros((n, n), np.float32)
engine = acc.MatrixEngine(device="cpu", memory_budget="4MB", enable_progress=False)
started = threading.Event()
engine.set_progress_callback(lambda p: started.set())
def interrupt():
    started.wait()
    time.sleep(0.02)
    os.kill(os.getpid(), signal.SIGINT)
    globals()["sent"] = time.perf_counter()
threading.Thread(target=interrupt, daemon=True).start()
try:
    engine.matmul(a, a, out=out)
    print("COMPLETED")
except KeyboardInterrupt as err:
    latency = time.perf_counter() - sent
    run = engine.last_run
    done = run["finished_tiles"]
    ok = all(np.allclose(out[r:r + h, c:c + w], a[r:r + h] @ a[:, c:c + w], rtol=1e-4, atol=1e-3)
             for r, h, c, w in done[:3])
    print("INTERRUPTED", f"{latency:.3f}", run["completed"], len(done), run["tiles"], ok,
          "finished_tiles" in "".join(getattr(err, "__notes__", ["finished_tiles"])))
"""


def test_ctrl_c_stops_a_streamed_matmul_between_tiles():
    proc = subprocess.run([sys.executable, "-c", INTERRUPTED], capture_output=True, text=True, timeout=600,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    words = proc.stdout.split()
    assert words[0] == "INTERRUPTED", proc.stdout
    latency, completed, done, tiles, finished_ok, noted = float(words[1]), words[2], int(words[3]), int(words[4]), \
        words[5], words[6]
    assert completed == "False" and 0 < done < tiles, proc.stdout
    assert finished_ok == "True" and noted == "True", proc.stdout
    assert latency < 5.0, f"took {latency:.2f} s to stop after Ctrl-C"


def test_an_error_midway_says_what_out_holds(cpu_budget):
    # The callback cancels after a few tiles: the error says out is partly written, last_run lists the tiles.
    rng = np.random.default_rng(1)
    a = rng.random((600, 400), dtype=np.float32)
    b = rng.random((400, 500), dtype=np.float32)
    out = np.zeros((600, 500), np.float32)
    engine = ac.MatrixEngine(device="cpu", memory_budget="256KB", enable_progress=False)
    engine.set_progress_callback(lambda p: p["tiles_done"] < 3)
    with pytest.raises(ac.CancelledError, match="out holds the 3 tile") as info:
        engine.matmul(a, b, out=out)
    run = engine.last_run
    assert not run["completed"] and len(run["finished_tiles"]) == 3, info.value
    for r, h, c, w in run["finished_tiles"]:
        np.testing.assert_allclose(out[r:r + h, c:c + w], a[r:r + h] @ b[:, c:c + w], rtol=1e-5)
    engine.set_progress_callback(None)
    engine.matmul(a, b, out=out)
    assert engine.last_run["completed"] and engine.last_run["finished_tiles"]
    np.testing.assert_allclose(out, a @ b, rtol=1e-5)
