"""The ``accelera`` command line installed by pip, and ``python -m accelera``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import accelera as ac

TIMEOUT = 120


def _script() -> str:
    """The console script next to this interpreter (pip puts it there), else the one on PATH."""
    beside = Path(sys.executable).with_name("accelera")
    if beside.exists():
        return str(beside)
    found = shutil.which("accelera")
    assert found, "the accelera console script is not installed"
    return found


def _run(*args, module=False, cwd=None):
    cmd = [sys.executable, "-m", "accelera", *args] if module else [_script(), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, check=False, cwd=cwd)


@pytest.mark.parametrize("module", [False, True], ids=["script", "python-m"])
def test_help_lists_subcommands(module):
    proc = _run("--help", module=module)
    assert proc.returncode == 0, proc.stderr
    assert "info" in proc.stdout and "demo" in proc.stdout


def test_version():
    proc = _run("--version")
    assert proc.returncode == 0, proc.stderr
    assert ac.__version__ in proc.stdout


@pytest.mark.parametrize("module", [False, True], ids=["script", "python-m"])
def test_info(module):
    proc = _run("info", module=module)
    assert proc.returncode == 0, proc.stderr
    assert "cpu" in proc.stdout
    assert ac.__version__ in proc.stdout


_CUDA_PRESENT = any(d["kind"] == "cuda" for d in ac.devices())
_CUDA_ABSENCE = "no CUDA device found" if "cuda" in ac.compiled_backends() else "built without CUDA support"


@pytest.mark.skipif(_CUDA_PRESENT, reason="a CUDA device answers here")
def test_info_and_demo_say_why_cuda_is_absent():
    proc = _run("info")
    assert proc.returncode == 0, proc.stderr
    assert _CUDA_ABSENCE in proc.stdout
    proc = _run("info", "--json")
    assert proc.returncode == 0, proc.stderr
    assert _CUDA_ABSENCE in json.loads(proc.stdout)["absent_backends"]["cuda"]
    proc = _run("demo", "-n", "64", "--device", "cuda:0")
    assert proc.returncode != 0
    assert _CUDA_ABSENCE in proc.stderr and "Traceback" not in proc.stderr


def test_demo_runs_and_verifies():
    proc = _run("demo", "-n", "256", "-r", "1")
    assert proc.returncode == 0, proc.stderr
    assert "GFLOP/s" in proc.stdout
    assert "OK" in proc.stdout.split()
    assert "256" in proc.stdout


def test_demo_float64():
    proc = _run("demo", "-n", "64", "-r", "2", "--dtype", "float64")
    assert proc.returncode == 0, proc.stderr
    assert "float64" in proc.stdout and "OK" in proc.stdout.split()


@pytest.mark.parametrize(
    "args, needle",
    [
        (("demo", "--dtype", "int8"), "int8"),
        (("demo", "-n", "64", "--dtype", "float16"), "float16"),
        (("demo", "-n", "64", "--device", "gpu"), "gpu"),
        (("demo", "-n", "64", "--device", "cuda:99"), "cuda:99"),
        (("demo", "-n", "-5"), "-5"),
        (("demo", "-n", "abc"), "abc"),
    ],
    ids=["dtype-int8", "dtype-float16", "device-gpu", "device-cuda", "size-negative", "size-text"],
)
def test_demo_bad_arguments_fail_with_message_on_stderr(args, needle):
    proc = _run(*args)
    assert proc.returncode != 0
    assert needle in proc.stderr
    assert "OK" not in proc.stdout.split()
    assert "Traceback" not in proc.stderr


def test_missing_subcommand_fails():
    proc = _run()
    assert proc.returncode != 0
    assert proc.stderr.strip()


def test_unknown_subcommand_fails():
    proc = _run("bogus")
    assert proc.returncode != 0
    assert proc.stderr.strip()


def test_demo_streams_through_a_small_budget():
    proc = _run("demo", "-n", "300", "--budget", "100KB", "-q")
    assert proc.returncode == 0, proc.stderr
    assert "streamed run 1" in proc.stdout and "efficiency against in core" in proc.stdout
    assert "OK" in proc.stdout.split()


@pytest.mark.parametrize("order", ["C", "F"])
def test_matmul_npy_files(tmp_path, order):
    import numpy as np

    rng = np.random.default_rng(7)
    a = np.asarray(rng.uniform(-1, 1, (123, 77)), order=order)
    b = rng.uniform(-1, 1, (77, 91))
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    out = tmp_path / "c.npy"
    devices = [d["device"] for d in ac.devices()]
    for device in devices:
        proc = _run("matmul", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "-o", str(out), "--device", device,
                    "--budget", "40KB", "-q")
        assert proc.returncode == 0, proc.stderr
        assert "tiles" in proc.stdout
        c = np.load(out)
        assert c.shape == (123, 91) and c.dtype == np.float64
        np.testing.assert_allclose(c, a @ b, rtol=0, atol=1e-12)


def test_matmul_bad_files_are_reported(tmp_path):
    import numpy as np

    np.save(tmp_path / "a.npy", np.ones((3, 4), np.float32))
    np.save(tmp_path / "b.npy", np.ones((5, 2), np.float32))
    np.save(tmp_path / "i.npy", np.ones((4, 2), np.int32))
    (tmp_path / "junk.npy").write_bytes(b"not numpy at all")
    cases = [
        (("b.npy",), "A's columns must equal B's rows"),
        (("i.npy",), "not supported"),
        (("junk.npy",), "not a .npy file"),
        (("missing.npy",), "cannot open"),
    ]
    for (second,), needle in cases:
        proc = _run("matmul", str(tmp_path / "a.npy"), str(tmp_path / second), "-o", str(tmp_path / "c.npy"))
        assert proc.returncode != 0
        assert needle in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("command", ["matmul", "demo"])
@pytest.mark.parametrize(
    "budget, needle",
    [
        (("--budget", "99999999999999999999"), "'99999999999999999999' is too large: sizes stop below 2^63 bytes"),
        (("--budget", "abc"), "cannot read 'abc' as a size"),
        (("--budget", "0"), "at least one byte"),
        (("--budget", ""), "--budget: the value is empty"),
        (("--budget=",), "the value of --budget is empty"),
    ],
    ids=["beyond-2^63", "text", "zero", "empty", "empty-equals"],
)
def test_bad_budgets_say_what_is_wrong(tmp_path, command, budget, needle):
    import numpy as np

    np.save(tmp_path / "a.npy", np.ones((3, 4)))
    np.save(tmp_path / "b.npy", np.ones((4, 2)))
    args = (["matmul", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "-o", str(tmp_path / "c.npy")]
            if command == "matmul" else ["demo", "-n", "8"])
    # The budget before --device: "--budget= --device cpu" once read "--device" as the budget.
    proc = _run(*args, *budget, "--device", "cpu", "-q")
    assert proc.returncode != 0
    assert needle in proc.stderr, proc.stderr
    assert "not expected" not in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "c.npy").exists()


@pytest.mark.parametrize("strategy", ["row", "tile", "adaptive"])
def test_matmul_strategies(tmp_path, strategy):
    import numpy as np

    rng = np.random.default_rng(3)
    a, b = rng.uniform(-1, 1, (90, 60)), rng.uniform(-1, 1, (60, 70))
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    proc = _run("matmul", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "-o", str(tmp_path / "c.npy"),
                "--strategy", strategy, "--budget", "40KB", "--device", "cpu", "-q")
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(np.load(tmp_path / "c.npy"), a @ b, rtol=0, atol=1e-12)


# The names and the message are the library's (parse_chunking_strategy), as in MatrixEngine(chunking_strategy=).
@pytest.mark.parametrize("strategy", ["spiral", "Row", "tile ", "chunks", ""])
def test_matmul_bad_strategy_names_the_choices(tmp_path, strategy):
    import numpy as np

    np.save(tmp_path / "a.npy", np.ones((3, 4)))
    np.save(tmp_path / "b.npy", np.ones((4, 2)))
    proc = _run("matmul", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "-o", str(tmp_path / "c.npy"),
                "--strategy", strategy, "-q")
    assert proc.returncode != 0
    needle = f"--strategy: unknown chunking strategy '{strategy}': expected 'row', 'tile' or 'adaptive'"
    assert needle in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "c.npy").exists()


def test_matmul_help_names_the_strategies():
    proc = _run("matmul", "--help")
    assert proc.returncode == 0, proc.stderr
    assert "row, tile or adaptive (default)" in proc.stdout
