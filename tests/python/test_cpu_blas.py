"""The BLAS under CPU matrix products: oneDNN for float32 by default when built with it (one OpenMP pool for
every CPU kernel), else NumPy's own OpenBLAS when NumPy carries one (one thread pool for both libraries),
the linked OpenBLAS on request, ACCELERA_CPU_BLAS, and bad choices refused."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import accelera as ac
from accelera import _blas, _core

TIMEOUT = 120


@pytest.fixture
def restore_blas():
    before = ac.cpu_blas_info()
    yield
    if before["symbols"] == "dnnl_sgemm":
        ac.use_cpu_blas("onednn")
    else:
        ac.use_cpu_blas("builtin" if before["builtin"] else before["library"])


def _check_matmul(a: np.ndarray, b: np.ndarray) -> None:
    got = np.asarray(ac.matmul(ac.asarray(a), ac.asarray(b)))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    bound = (a.shape[-1] + 2) * np.finfo(a.dtype).eps * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
    assert got.dtype == a.dtype
    assert np.all(np.abs(got - ref) <= bound + 1e-300), np.max(np.abs(got - ref) - bound)


def _shapes():
    return [(1, 1, 1), (7, 13, 31), (31, 127, 13), (1, 31, 7), (127, 1, 13), (97, 89, 83)]


def test_default_is_onednn_when_built_with_it_else_numpys_own_openblas():
    info = ac.cpu_blas_info()
    numpy_library = _blas.numpy_blas_library()
    if _core.cpu_blas_has_onednn():
        assert info["symbols"] == "dnnl_sgemm" and "oneDNN" in info["config"], info
        assert not info["builtin"], info
    elif numpy_library is None:
        assert info["builtin"], info
    else:
        assert not info["builtin"], info
        assert os.path.samefile(info["library"], numpy_library), (info, numpy_library)
        assert "OpenBLAS" in info["config"], info
    assert info["integer_bits"] in (32, 64)
    assert info["threads"] >= 1


@pytest.mark.parametrize("choice", ["numpy", "builtin", "onednn"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_are_right_on_every_library(choice, dtype, restore_blas):
    if choice == "numpy" and _blas.numpy_blas_library() is None:
        with pytest.raises(ac.ArgumentError, match="no OpenBLAS of its own"):
            ac.use_cpu_blas("numpy")
        return
    if choice == "onednn" and not _core.cpu_blas_has_onednn():
        with pytest.raises(ac.ArgumentError, match="no oneDNN"):
            ac.use_cpu_blas("onednn")
        return
    ac.use_cpu_blas(choice)
    assert ac.cpu_blas_info()["builtin"] == (choice == "builtin")
    rng = np.random.default_rng(5)
    for m, k, n in _shapes():
        a = rng.uniform(-1, 1, (m, k)).astype(dtype)
        b = rng.uniform(-1, 1, (k, n)).astype(dtype)
        _check_matmul(a, b)
        _check_matmul(np.ascontiguousarray(a.T).T, b)  # column-major A: BLAS's transposed form
        _check_matmul(a, b[:, ::-1])  # a view BLAS cannot take: packed first
    x = rng.uniform(-1, 1, (37, 19)).astype(dtype)
    w = rng.uniform(-1, 1, (23, 19)).astype(dtype)
    ref = x.astype(np.float64) @ w.T.astype(np.float64)
    got = np.asarray(ac.linear_gelu(ac.asarray(x), ac.asarray(w)))
    expected = np.vectorize(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))))(ref)
    eps = np.finfo(dtype).eps
    # The product's bound carried through GELU (slope at most 1.13), plus the GELU kernel's 8 ulp.
    bound = 1.13 * (19 + 2) * eps * (np.abs(x.astype(np.float64)) @ np.abs(w.T.astype(np.float64))) + 8 * eps * np.abs(expected)
    assert np.all(np.abs(got - expected) <= bound + np.finfo(dtype).tiny)


def test_alternating_with_numpy_gives_the_same_products(restore_blas):
    rng = np.random.default_rng(9)
    a = rng.uniform(-1, 1, (64, 48)).astype(np.float32)
    b = rng.uniform(-1, 1, (48, 40)).astype(np.float32)
    first = np.asarray(ac.matmul(ac.asarray(a), ac.asarray(b)))
    for _ in range(5):
        np.matmul(a, b)
        again = np.asarray(ac.matmul(ac.asarray(a), ac.asarray(b)))
        np.testing.assert_array_equal(again, first)


def test_products_from_several_threads_share_the_library(restore_blas):
    rng = np.random.default_rng(13)
    pairs = [(rng.uniform(-1, 1, (83, 61)), rng.uniform(-1, 1, (61, 79))) for _ in range(4)]
    failures: list[BaseException] = []

    def work(a, b):
        try:
            for _ in range(20):
                _check_matmul(a, b)
                np.matmul(a, b)
        except BaseException as e:  # reported below: a thread's assertion must fail the test
            failures.append(e)

    threads = [threading.Thread(target=work, args=p) for p in pairs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
    assert not failures, failures


def test_unusable_libraries_are_refused_and_change_nothing(restore_blas):
    before = ac.cpu_blas_info()
    with pytest.raises(ac.ArgumentError, match="cannot open"):
        ac.use_cpu_blas("/nonexistent/libblas.so")
    with pytest.raises(ac.ArgumentError, match="no CBLAS sgemm"):
        ac.use_cpu_blas("libm.so.6")
    with pytest.raises(ac.ArgumentError):
        ac.use_cpu_blas("")
    with pytest.raises(ac.DTypeError):
        ac.use_cpu_blas(3)
    assert ac.cpu_blas_info() == before


def _import_with(setting: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, ACCELERA_CPU_BLAS=setting)
    code = "import json, accelera as ac; print(json.dumps(ac.cpu_blas_info()))"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=TIMEOUT)


def test_the_environment_chooses_at_import():
    onednn = _import_with("onednn")
    if _core.cpu_blas_has_onednn():
        assert onednn.returncode == 0 and '"symbols": "dnnl_sgemm"' in onednn.stdout, onednn.stderr
    else:
        assert onednn.returncode != 0 and "no oneDNN" in onednn.stderr
    builtin = _import_with("builtin")
    assert builtin.returncode == 0, builtin.stderr
    assert '"builtin": true' in builtin.stdout
    numpy_choice = _import_with("numpy")
    if _blas.numpy_blas_library() is None:
        assert numpy_choice.returncode != 0 and "no OpenBLAS of its own" in numpy_choice.stderr
    else:
        assert numpy_choice.returncode == 0, numpy_choice.stderr
        assert '"builtin": false' in numpy_choice.stdout
    for bad, message in [("/nonexistent/libblas.so", "cannot open"), ("", "ACCELERA_CPU_BLAS is empty")]:
        result = _import_with(bad)
        assert result.returncode != 0
        assert "ArgumentError" in result.stderr and message in result.stderr, result.stderr


def test_accelera_info_names_the_blas():
    result = subprocess.run([sys.executable, "-m", "accelera", "info"], capture_output=True, text=True,
                            timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    info = ac.cpu_blas_info()
    assert f"CPU BLAS: {info['library']}" in result.stdout
    if info["spin_log2_cycles"]:
        assert f"workers spin 2^{info['spin_log2_cycles']} cycles" in result.stdout, result.stdout


def test_small_products_run_on_one_thread_below_a_measured_limit():
    """Note [Small products on one thread]: the limit is measured (finite, not negative) with oneDNN and
    several threads, and is 0 on one thread, where there is nothing to split."""
    info = ac.cpu_blas_info()
    if info["symbols"] != "dnnl_sgemm":
        assert info["one_thread_below_flops"] == 0
        return
    assert math.isfinite(info["one_thread_below_flops"]) and info["one_thread_below_flops"] >= 0
    code = "import accelera as ac; print(ac.cpu_blas_info()['one_thread_below_flops'])"
    env = dict(os.environ, OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout.strip().splitlines()[-1]) == 0


def test_products_either_side_of_the_limit_from_several_threads_are_right():
    """Running a small product on one thread is a per-thread setting: threads mixing small and large products
    at once all get right results."""
    rng = np.random.default_rng(7)
    cases = [(rng.standard_normal((n, n)).astype(np.float32), rng.standard_normal((n, n)).astype(np.float32))
             for n in (17, 64, 200, 384)]
    errors = []

    def work():
        try:
            for _ in range(3):
                for a, b in cases:
                    _check_matmul(a, b)
        except AssertionError as exc:  # reported below, with the thread's failure
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
