"""The harness of tests/seed_examples: an example waiting on an issue that starts passing fails the run, an
example that fails for another reason than a missing capability is a plain failure, an unmarked test is
refused, and the summary counts examples by outcome and by issue."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

SEED_EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "seed_examples"

SAMPLE = '''
import pytest
from seed_harness import NN_LIBRARY, SCALE_OUT, example, waiting_on

@example("accelera-docs.md", "passes")
def test_passes():
    assert 1 + 1 == 2

@example("accelera-docs.md", "waits")
@waiting_on(SCALE_OUT)
def test_waits():
    import accelera
    accelera.an_api_that_does_not_exist

@example("vedart-gpu-guide.md", "waits in a fixture")
@waiting_on(NN_LIBRARY)
def test_waits_in_fixture(missing_module):
    pass

@pytest.fixture
def missing_module():
    import a_module_that_does_not_exist  # noqa: F401

@example("vedart-gpu-guide.md", "runs on every device")
def test_per_device(gpu_device):
    assert gpu_device in ("opencl:0", "cuda:0", "cpu")
'''


def run_pytest(tmp_path: pathlib.Path, body: str) -> subprocess.CompletedProcess:
    folder = tmp_path / "seed_examples"
    folder.mkdir()
    for name in ("conftest.py", "seed_harness.py"):
        shutil.copy(SEED_EXAMPLES / name, folder / name)
    (folder / "test_sample.py").write_text(body)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(folder)],
                          capture_output=True, text=True, cwd=tmp_path)


def test_summary_counts_examples_and_issues(tmp_path):
    run = run_pytest(tmp_path, SAMPLE)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "4 examples (" in run.stdout and "2 passing, 2 waiting" in run.stdout
    assert "accelera-docs.md: 2 examples, 1 passing, 1 waiting" in run.stdout
    assert "1  Scale out" in run.stdout and "1  Neural-network library" in run.stdout


def test_an_example_that_starts_passing_fails_the_run(tmp_path):
    body = SAMPLE.replace("accelera.an_api_that_does_not_exist", "accelera.Tensor")
    run = run_pytest(tmp_path, body)
    assert run.returncode == 1
    assert "XPASS(strict)" in run.stdout and "1 failed" in run.stdout


def test_a_failure_of_another_kind_is_not_waiting(tmp_path):
    body = SAMPLE.replace("accelera.an_api_that_does_not_exist", "assert False, 'wrong result'")
    run = run_pytest(tmp_path, body)
    assert run.returncode == 1 and "wrong result" in run.stdout


def test_unmarked_tests_are_refused(tmp_path):
    run = run_pytest(tmp_path, SAMPLE + "\ndef test_unmarked():\n    pass\n")
    assert run.returncode != 0 and "is not marked with @example" in run.stdout + run.stderr
