"""What the seed-example tests share: the open issues they may wait on, the marks, devices and checks.

Every test in this folder is one code example of a seed guide in ``../shared/seeds/`` (``@example``
names the guide and section). An example that needs a capability another open issue will bring is marked
``@waiting_on(ISSUE)``: a strict expected failure, so an example that starts passing fails the run until
its mark is removed. The failure must also be the expected kind (a missing name or module by default),
so an example that breaks for another reason is a plain failure, not a silent "waiting".
"""

from __future__ import annotations

import numpy as np
import pytest

import accelera as acc

# The open issues that examples wait on, by their exact titles.
ARRAY_API = ("Accelera as a complete array namespace on every backend: the Python array API standard, NumPy "
             "protocols, random numbers")
NN_LIBRARY = ("Neural-network library: autograd, layers, losses, optimizers, training with the seed's builder "
              "API, profiler, mixed precision — trained on a real dataset")
SCALE_OUT = ("Scale out: every device in the machine with work stealing, many machines over MPI against "
             "ScaLAPACK, data-parallel training — and a calibrated simulation of what we cannot run here")
OPEN_ISSUES = (ARRAY_API, NN_LIBRARY, SCALE_OUT)

GUIDES = ("accelera-docs.md", "accelera-flow.md", "vedart-gpu-guide.md", "neural-arch-cuda-guide.md",
          "rnn-gpu-guide.md")

# A capability that does not exist yet shows up as a missing name (AttributeError) or module (ImportError).
MISSING = (AttributeError, ImportError)


def example(guide: str, section: str):
    """Marks a test as the code example of ``guide`` under ``section``."""
    assert guide in GUIDES, f"unknown seed guide {guide!r}"
    return pytest.mark.seed_example(guide=guide, section=section)


def waiting_on(issue: str, raises=MISSING):
    """Strict expected failure until ``issue`` (one of OPEN_ISSUES) lands."""
    assert issue in OPEN_ISSUES, f"not an open issue's title: {issue!r}"
    return pytest.mark.xfail(strict=True, raises=raises, reason=f"waiting on: {issue}")


def accelerator_devices() -> list[str]:
    """Where the examples that need a GPU run: opencl:0 and cuda:0 where present (the CPU where neither is,
    so that the example still runs and is checked)."""
    present = {d["device"] for d in acc.devices()}
    return [d for d in ("opencl:0", "cuda:0") if d in present] or ["cpu"]


def assert_close(got, want, rtol: float, atol: float = 0.0) -> None:
    """``got`` (Tensor, Matrix or array) against a float64 reference."""
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    np.testing.assert_allclose(got.astype(np.float64), np.asarray(want, dtype=np.float64), rtol=rtol, atol=atol)


def matmul_tolerance(a: np.ndarray, b: np.ndarray) -> float:
    """Absolute error bound of a float32 product against float64: k roundings of |a| @ |b|-sized terms."""
    k = a.shape[1]
    return 8 * k * 6e-8 * float(np.abs(a).max() * np.abs(b).max())


def check_matmul(c, a, b) -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert_close(c, a.astype(np.float64) @ b.astype(np.float64), rtol=0, atol=matmul_tolerance(a, b))
