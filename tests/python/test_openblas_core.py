"""Note [OpenBLAS core type] in Python: the package asks once per machine which kernels the linked OpenBLAS
picks, keeps the answer, and sets OPENBLAS_CORETYPE around loading the library where OpenBLAS's own choice is
the slow generic one; a value the user set is kept."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

import pytest

import accelera as ac
from accelera import _openblas_core as oc

TIMEOUT = 120
linux_x86 = pytest.mark.skipif(sys.platform != "linux" or os.uname().machine != "x86_64",
                               reason="OPENBLAS_CORETYPE is only chosen on x86-64 Linux")


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv(oc.VARIABLE, raising=False)
    monkeypatch.delenv(oc._IN_PROBE, raising=False)
    return tmp_path / "accelera" / "openblas-core.json"


def _counting_probe(monkeypatch, answer):
    calls = []

    def probe():
        calls.append(1)
        return dict(answer)

    monkeypatch.setattr(oc, "_probe", probe)
    return calls


@linux_x86
def test_a_slow_choice_is_overridden_once_asked_then_from_the_cache(fresh_cache, monkeypatch):
    calls = _counting_probe(monkeypatch, {"core": "Prescott", "suggested_core": "SkylakeX"})
    assert oc.choose() == "SkylakeX"
    assert os.environ[oc.VARIABLE] == "SkylakeX"
    oc.loaded("SkylakeX", lambda: {"core": "SkylakeX", "suggested_core": ""})
    assert oc.VARIABLE not in os.environ  # removed again: libraries loaded later choose for themselves
    assert oc.choose() == "SkylakeX" and calls == [1]  # the second import reads the cache
    del os.environ[oc.VARIABLE]
    assert list(json.loads(fresh_cache.read_text()).values()) == [{"core": "Prescott", "suggested_core": "SkylakeX"}]


@linux_x86
def test_a_good_choice_sets_nothing(fresh_cache, monkeypatch):
    calls = _counting_probe(monkeypatch, {"core": "SkylakeX", "suggested_core": ""})
    assert oc.choose() is None and oc.choose() is None
    assert oc.VARIABLE not in os.environ and calls == [1]


@linux_x86
def test_the_users_value_is_kept_and_nothing_is_asked(fresh_cache, monkeypatch, caplog):
    calls = _counting_probe(monkeypatch, {"core": "Prescott", "suggested_core": "SkylakeX"})
    monkeypatch.setenv(oc.VARIABLE, "Haswell")
    assert oc.choose() is None and calls == []
    with caplog.at_level(logging.WARNING, logger="accelera"):
        oc.loaded(None, lambda: {"core": "Prescott", "suggested_core": "SkylakeX"})
    assert os.environ[oc.VARIABLE] == "Haswell" and not caplog.records


@linux_x86
def test_an_unreadable_cache_is_asked_again_and_rewritten(fresh_cache, monkeypatch):
    fresh_cache.parent.mkdir(parents=True)
    fresh_cache.write_text("{not json")
    calls = _counting_probe(monkeypatch, {"core": "Haswell", "suggested_core": ""})
    assert oc.choose() is None and calls == [1]
    assert list(json.loads(fresh_cache.read_text()).values()) == [{"core": "Haswell", "suggested_core": ""}]


@linux_x86
def test_a_failed_probe_is_a_warning_and_sets_nothing(fresh_cache, monkeypatch, caplog):
    def failing():
        raise RuntimeError("the child exited with 1: boom")

    monkeypatch.setattr(oc, "_probe", failing)
    with caplog.at_level(logging.WARNING, logger="accelera"):
        assert oc.choose() is None
    assert oc.VARIABLE not in os.environ
    assert any("boom" in r.getMessage() for r in caplog.records)
    assert not fresh_cache.exists()  # a failure is not remembered: the next import asks again


def test_a_library_still_on_slow_kernels_is_a_warning(monkeypatch, caplog):
    monkeypatch.delenv(oc.VARIABLE, raising=False)
    monkeypatch.delenv(oc._IN_PROBE, raising=False)
    with caplog.at_level(logging.WARNING, logger="accelera"):
        oc.loaded(None, lambda: {"core": "Prescott", "suggested_core": "SkylakeX"})
    assert any("OPENBLAS_CORETYPE=SkylakeX" in r.getMessage() for r in caplog.records)


@linux_x86
def test_the_probe_reports_the_linked_librarys_choice(fresh_cache):
    answer = oc._probe()
    assert answer["core"], answer  # the build links OpenBLAS, which names its kernels
    assert answer["suggested_core"] in ("", "SkylakeX", "Haswell"), answer


def test_an_imported_package_runs_the_kernels_this_cpu_should_run(tmp_path):
    """In a fresh process with an empty cache: the float64 products' OpenBLAS runs no kernels below this
    CPU's, and the variable set for it is gone from the environment again."""
    env = {k: v for k, v in os.environ.items() if k != oc.VARIABLE}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    code = ("import json, os, accelera\ninfo = accelera._core.cpu_blas_info()\n"
            "print(json.dumps([info['core'], info['suggested_core'], os.environ.get('OPENBLAS_CORETYPE')]))\n")
    for _ in range(2):  # asked, then from the cache
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=TIMEOUT)
        assert done.returncode == 0, done.stderr
        core, suggested, variable = json.loads(done.stdout.strip().splitlines()[-1])
        assert suggested == "" and variable is None, (core, suggested, variable, done.stderr)
        assert "Prescott" not in done.stderr
    assert ac.cpu_blas_info()["suggested_core"] == ""  # this test process too


@linux_x86
def test_an_embedding_program_is_not_run_as_a_probe(fresh_cache, monkeypatch):
    calls = _counting_probe(monkeypatch, {"core": "Prescott", "suggested_core": "SkylakeX"})
    monkeypatch.setattr(oc.sys, "executable", "/usr/sbin/some-server")
    assert oc.choose() is None and calls == []
    assert oc.VARIABLE not in os.environ


def test_the_thread_timeout_is_set_only_while_the_library_loads(monkeypatch):
    monkeypatch.delenv(oc.TIMEOUT_VARIABLE, raising=False)
    value = oc.set_thread_timeout()
    assert value == oc.THREAD_TIMEOUT and os.environ[oc.TIMEOUT_VARIABLE] == value
    oc.unset(oc.TIMEOUT_VARIABLE, value)
    assert oc.TIMEOUT_VARIABLE not in os.environ


def test_a_thread_timeout_the_user_set_is_kept(monkeypatch):
    monkeypatch.setenv(oc.TIMEOUT_VARIABLE, "26")
    assert oc.set_thread_timeout() is None
    oc.unset(oc.TIMEOUT_VARIABLE, None)
    assert os.environ[oc.TIMEOUT_VARIABLE] == "26"


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="OpenBLAS starts no workers on one CPU: nothing spins")
def test_the_linked_openblas_workers_sleep_soon_after_a_product():
    """Note [OpenBLAS thread timeout]: after a float64 product on the linked OpenBLAS, its workers stop
    spinning within about half a millisecond instead of 0.1 s: the process burns almost no CPU while it
    sleeps. (The default timeout burns about 0.12 s of a core in the 0.3 s.) The variable is gone again."""
    env = {k: v for k, v in os.environ.items() if k != oc.TIMEOUT_VARIABLE}
    env["ACCELERA_CPU_BLAS"] = "builtin"
    code = ("import os, time, numpy as np, accelera as acc\n"
            "a = acc.asarray(np.random.default_rng(0).random((512, 512)))\n"
            "burnt = []\n"
            "for _ in range(3):\n"
            "    acc.matmul(a, a)\n"
            "    c0 = time.process_time(); time.sleep(0.3); burnt.append(time.process_time() - c0)\n"
            "print(min(burnt), os.environ.get('OPENBLAS_THREAD_TIMEOUT'), acc.cpu_blas_info()['spin_log2_cycles'])\n")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    burnt, variable, spin = done.stdout.split()
    assert float(burnt) < 0.03, burnt
    assert variable == "None" and spin == oc.THREAD_TIMEOUT
