"""Exiting the interpreter while other threads are inside Accelera calls: a clean exit, as with NumPy."""

from __future__ import annotations

import subprocess
import sys

DAEMONS = """
import threading, time
import numpy as np
import accelera as acc
x = acc.asarray(np.random.rand(256, 256).astype(np.float32))
def work(f):
    while True:
        f()
for f in (lambda: acc.exp(x), lambda: acc.matmul(x, x), lambda: acc.sum(x)):
    threading.Thread(target=work, args=(f,), daemon=True).start()
time.sleep(0.5)
"""


def test_daemon_threads_inside_calls_at_exit():
    # Python ends such threads when they take the GIL back (Note [Releasing the GIL]); that used to abort the
    # process ("terminate called without an active exception", rc 134) every time.
    for _ in range(5):
        proc = subprocess.run([sys.executable, "-c", DAEMONS], capture_output=True, text=True, timeout=120,
                              check=False)
        assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
        assert "terminate" not in proc.stderr and "leaked" not in proc.stderr, proc.stderr[-2000:]
