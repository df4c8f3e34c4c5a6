"""``accelera matmul`` never loses data: an output that is an input is refused, and a failed, interrupted or
killed run leaves no file at the output path (or the previous one as it was) and no temporary behind."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from test_cli import _run, _script


def _listing(directory: Path) -> list[str]:
    return sorted(os.listdir(directory))


def _temporaries(directory: Path, name: str = "c.npy") -> list[str]:
    return [f for f in os.listdir(directory) if f.startswith(f".{name}.")]


@pytest.fixture
def inputs(tmp_path):
    rng = np.random.default_rng(3)
    np.save(tmp_path / "x.npy", rng.uniform(-1, 1, (30, 20)))
    np.save(tmp_path / "b.npy", rng.uniform(-1, 1, (20, 20)))
    return tmp_path


def _make_alias(directory: Path, kind: str) -> tuple[str, str]:
    """The output argument for `kind`, and the input it aliases."""
    if kind == "symlink":
        os.symlink("x.npy", directory / "link.npy")
        return "link.npy", "x.npy"
    if kind == "hard-link":
        os.link(directory / "x.npy", directory / "hard.npy")
        return "hard.npy", "x.npy"
    if kind == "symlinked-directory":
        os.symlink(".", directory / "here")
        return "here/x.npy", "x.npy"
    return {
        "same-path": ("x.npy", "x.npy"),
        "dot-slash": ("./x.npy", "x.npy"),
        "absolute": (str(directory / "x.npy"), "x.npy"),
        "second-input": ("b.npy", "b.npy"),
    }[kind]


@pytest.mark.parametrize(
    "kind", ["same-path", "dot-slash", "absolute", "symlink", "hard-link", "symlinked-directory", "second-input"]
)
def test_an_output_that_is_an_input_is_refused(inputs, kind):
    out, aliased = _make_alias(inputs, kind)
    before = {name: (inputs / name).read_bytes() for name in ("x.npy", "b.npy")}
    listing = _listing(inputs)
    proc = _run("matmul", "x.npy", "b.npy", "-o", out, "--device", "cpu", "-q", cwd=inputs)
    assert proc.returncode == 1, proc.stderr
    assert f"refusing to write the output {out}: it is the same file as the input {aliased}" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert {name: (inputs / name).read_bytes() for name in before} == before
    assert _listing(inputs) == listing


@pytest.mark.parametrize("previous", [False, True], ids=["new", "existing"])
def test_a_failed_run_leaves_no_output(inputs, previous):
    out = inputs / "c.npy"
    if previous:
        out.write_bytes(b"the previous result")
    proc = _run("matmul", "x.npy", "b.npy", "-o", "c.npy", "--device", "cpu", "--budget", "1KB", "-q", cwd=inputs)
    assert proc.returncode == 1
    assert "budget" in proc.stderr, proc.stderr
    if previous:
        assert out.read_bytes() == b"the previous result"
    else:
        assert not out.exists()
    assert _temporaries(inputs) == []


def test_a_successful_run_replaces_the_previous_output(inputs):
    out = inputs / "c.npy"
    out.write_bytes(b"the previous result")
    proc = _run("matmul", "x.npy", "b.npy", "-o", "c.npy", "--device", "cpu", "--budget", "4KB", "-q", cwd=inputs)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(np.load(out), np.load(inputs / "x.npy") @ np.load(inputs / "b.npy"), atol=1e-12)
    assert _temporaries(inputs) == []


# Streamed on the CPU through a tiny budget: thousands of tiles, several seconds, so that a signal lands mid-run.
BIG = 3000


@pytest.fixture(scope="module")
def big_inputs(tmp_path_factory):
    directory = tmp_path_factory.mktemp("big")
    rng = np.random.default_rng(5)
    np.save(directory / "a.npy", rng.random((BIG, BIG), dtype=np.float32))
    np.save(directory / "b.npy", rng.random((BIG, BIG), dtype=np.float32))
    return directory


def _start_streaming(directory: Path, *extra: str) -> subprocess.Popen:
    """Starts a long streamed run and returns once its temporary output exists, a little into the run."""
    proc = subprocess.Popen(
        [_script(), "matmul", "a.npy", "b.npy", "-o", "c.npy", "--device", "cpu", "--budget", "16KB", "-q", *extra],
        cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not _temporaries(directory):
        assert proc.poll() is None, f"the run ended before writing its output: {proc.communicate()}"
        assert time.monotonic() < deadline, "no temporary output after 60 s"
        time.sleep(0.005)
    time.sleep(0.3)
    assert proc.poll() is None, "the run finished before it could be interrupted: make BIG larger"
    return proc


@pytest.mark.parametrize("previous", [False, True], ids=["new", "existing"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_a_signal_mid_run_leaves_nothing(big_inputs, sig, previous):
    out = big_inputs / "c.npy"
    if previous:
        out.write_bytes(b"the previous result")
    proc = _start_streaming(big_inputs)
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 128 + sig, stderr
    assert f"interrupted by {sig.name}: c.npy was not written" in stderr
    if previous:
        assert out.read_bytes() == b"the previous result"
        out.unlink()
    else:
        assert not out.exists()
    assert _temporaries(big_inputs) == []


def test_ctrl_c_stops_at_the_next_tile(big_inputs):
    proc = _start_streaming(big_inputs)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)
    latency = time.monotonic() - sent
    assert proc.returncode == 130
    # A tile of this run takes about a millisecond; 1 s leaves room for a busy machine.
    assert latency < 1.0, f"{latency:.3f} s from SIGINT to exit"
    assert _listing(big_inputs) == ["a.npy", "b.npy"]


def test_sigkill_leaves_no_output_at_the_final_path(big_inputs):
    proc = _start_streaming(big_inputs)
    proc.kill()
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert not (big_inputs / "c.npy").exists()
    # What a SIGKILL leaves is the hidden temporary, which nothing loads as c.npy.
    for name in _temporaries(big_inputs):
        (big_inputs / name).unlink()
    assert _listing(big_inputs) == ["a.npy", "b.npy"]

