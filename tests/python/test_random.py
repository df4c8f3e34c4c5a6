"""accelera.random: Philox generators. Reproducibility, bitwise equality across devices, Random123's
known answer, distribution sanity with fixed seeds (bounds of 6 sigma or more: deterministic, cannot
flake), permutations and sampling, and typed errors for bad input."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as ac
from accelera import random as acr

DEVICES = [d["device"] for d in ac.devices()]
HAS_OPENCL = "opencl:0" in DEVICES
needs_opencl = pytest.mark.skipif(not HAS_OPENCL, reason="no OpenCL device opencl:0 on this machine")
N = 10**6


def host(t) -> np.ndarray:
    if t.dtype == ac.bfloat16:
        t = t.astype(ac.float32)
    return t.numpy()


def test_first_uniforms_are_random123s_known_answer():
    # Philox4x32-10 with counter 0 and key 0 gives 6627e8d5 e169c58d bc57ac4c 9b00dbd8 (Random123's
    # kat_vectors); float32 uniforms are the top 24 bits of each word.
    words = [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    expected = np.array([(w >> 8) / 2**24 for w in words], dtype=np.float32)
    got = acr.default_rng(0).random(4, dtype=ac.float32, device="cpu").numpy()
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind", ["standard_normal", "random", "integers"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_draw_is_the_prefix_of_any_longer_draw(device, kind, dtype):
    # The same seed gives the same first elements whatever the length: short draws (one vector, a partial
    # block) and long ones (shared among threads) compute each element alike.
    def draw(n):
        g = acr.default_rng(31)
        if kind == "integers":  # int64 for the float64 row, int32 for the float32 one
            return g.integers(-1000, 10**6, n, dtype="int64" if dtype == "float64" else "int32", device=device).numpy()
        return getattr(g, kind)(n, dtype=dtype, device=device).numpy()
    longest = draw(300_001)
    for n in (1, 3, 10, 37, 4099, 70_001):
        np.testing.assert_array_equal(draw(n), longest[:n], err_msg=f"{kind} {dtype} n={n}")


@pytest.mark.parametrize("device", DEVICES)
def test_same_seed_same_sequence_and_successive_draws_differ(device):
    a, b = acr.default_rng(123), acr.default_rng(123)
    first = [a.random(37, device=device).numpy(), a.integers(0, 100, 37, device=device).numpy()]
    second = [b.random(37, device=device).numpy(), b.integers(0, 100, 37, device=device).numpy()]
    for x, y in zip(first, second):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a.random(37, device=device).numpy(), first[0])
    assert a.counter == b.counter + 10  # three draws of 37 (10 blocks each) against two
    assert not np.array_equal(acr.default_rng(124).random(37, device=device).numpy(), first[0])


@needs_opencl
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("n", [0, 1, 7, 1031])
def test_uniforms_are_bitwise_equal_on_every_device(dtype, n):
    draws = [host(acr.default_rng(99).uniform(-1.5, 2.0, n, dtype=dtype, device=d)) for d in ("cpu", "opencl:0")]
    np.testing.assert_array_equal(draws[0], draws[1])


@needs_opencl
@pytest.mark.parametrize("n", [1, 33, 129, 4097])
def test_draws_after_a_partial_vector_of_blocks_are_equal_on_every_device(n):
    # OpenCL's CPU-device kernel runs 8 counter blocks per work-item: a draw that starts 2 blocks into such
    # a group, and one whose length ends inside a group, give the CPU's numbers.
    def draws(device):
        g = acr.default_rng(11)
        g.random(5, device=device)  # 2 blocks
        return [g.random(n, device=device).numpy(), g.integers(-9, 10**6, n, device=device).numpy(),
                g.standard_normal(n, dtype="float64", device=device).numpy(),
                g.standard_normal(n, dtype="float32", device=device).numpy()]
    cpu, opencl = draws("cpu"), draws("opencl:0")
    np.testing.assert_array_equal(cpu[0], opencl[0])
    np.testing.assert_array_equal(cpu[1], opencl[1])
    np.testing.assert_allclose(cpu[2], opencl[2], rtol=1e-13, atol=1e-13)  # log, sin, cos of two libms
    np.testing.assert_allclose(cpu[3], opencl[3], rtol=1e-6, atol=1e-6)


@needs_opencl
@pytest.mark.parametrize("dtype,low,high", [("int32", -(2**31), 2**31), ("int64", -(2**63), 2**63),
                                            ("int64", -5, 17), ("int32", 0, 3)])
def test_integers_are_bitwise_equal_on_every_device(dtype, low, high):
    draws = [acr.default_rng(7).integers(low, high, 1031, dtype=dtype, device=d).numpy() for d in ("cpu", "opencl:0")]
    np.testing.assert_array_equal(draws[0], draws[1])


@needs_opencl
@pytest.mark.parametrize("dtype,tol", [("float32", 4e-6), ("float64", 1e-13), ("float16", 1e-3)])
def test_normals_agree_across_devices_to_a_few_ulp(dtype, tol):
    # Box-Muller uses each device's log, sqrt, sin and cos: equal to a few ulp, not bitwise.
    cpu = host(acr.default_rng(5).normal(1.0, 2.0, 4099, dtype=dtype, device="cpu")).astype(np.float64)
    ocl = host(acr.default_rng(5).normal(1.0, 2.0, 4099, dtype=dtype, device="opencl:0")).astype(np.float64)
    np.testing.assert_allclose(ocl, cpu, rtol=tol, atol=tol)


@pytest.mark.parametrize("device", DEVICES)
def test_uniform_moments(device):
    x = acr.default_rng(1).random(N, device=device).numpy()
    assert 0.0 <= x.min() and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 6 * np.sqrt(1 / 12 / N)
    assert abs(x.var() - 1 / 12) < 6 * np.sqrt((1 / 80 - 1 / 144) / N)
    y = acr.default_rng(2).uniform(-2.0, 5.0, N, dtype=ac.float32, device=device).numpy().astype(np.float64)
    assert -2.0 <= y.min() and y.max() <= 5.0
    assert abs(y.mean() - 1.5) < 6 * 7 / np.sqrt(12 * N)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_format_uniforms_stay_below_one(dtype):
    x = host(acr.default_rng(3).random(N, dtype=dtype, device="cpu"))
    assert x.min() >= 0 and x.max() < 1
    assert abs(x.astype(np.float64).mean() - 0.5) < 6 * np.sqrt(1 / 12 / N) + 2**-9  # the coarse grid's offset


@pytest.mark.parametrize("device", DEVICES)
def test_normal_moments(device):
    g = acr.default_rng(11)
    z = g.standard_normal(N, device=device).numpy()
    assert abs(z.mean()) < 6 / np.sqrt(N)
    assert abs(z.var() - 1) < 6 * np.sqrt(2 / N)
    assert abs(np.mean(np.abs(z) > 1.96) - 0.05) < 6 * np.sqrt(0.05 * 0.95 / N)
    w = g.normal(3.0, 2.0, N, dtype=ac.float32, device=device).numpy().astype(np.float64)
    assert abs(w.mean() - 3.0) < 6 * 2 / np.sqrt(N)
    assert abs(w.std() - 2.0) < 6 * 2 * np.sqrt(0.5 / N)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integers_cover_the_range_uniformly(device, dtype):
    x = acr.default_rng(4).integers(-3, 7, N, dtype=dtype, device=device).numpy()
    assert x.dtype == np.dtype(dtype)
    counts = np.bincount(x + 3, minlength=10)
    assert len(counts) == 10
    assert np.all(np.abs(counts - N / 10) < 6 * np.sqrt(N * 0.1 * 0.9))
    y = acr.default_rng(4).integers(5, 9, 1000, endpoint=True, dtype=dtype, device=device).numpy()
    assert set(y.tolist()) == {5, 6, 7, 8, 9}
    z = acr.default_rng(4).integers(1, size=100, dtype=dtype, device=device).numpy()
    assert np.all(z == 0)


def test_full_int64_range_has_both_signs_and_large_values():
    x = acr.default_rng(8).integers(-(2**63), 2**63, 4096, device="cpu").numpy()
    assert (x < 0).any() and (x > 0).any()
    assert np.abs(x.astype(np.float64)).max() > 2**62


def test_scalars_when_size_is_none():
    g = acr.default_rng(9)
    assert isinstance(g.random(), float)
    assert isinstance(g.integers(10), int)
    assert isinstance(g.standard_normal(), float)
    assert g.random(size=()).shape == ()


@pytest.mark.parametrize("device", DEVICES)
def test_permutation_is_a_permutation(device):
    g = acr.default_rng(10)
    for n in (0, 1, 2, 17, 1000):
        p = g.permutation(n, device=device)
        assert p.device == device and p.dtype == ac.int64
        np.testing.assert_array_equal(np.sort(p.numpy()), np.arange(n))
    assert not np.array_equal(g.permutation(1000).numpy(), np.arange(1000))
    np.testing.assert_array_equal(acr.default_rng(3).permutation(50, device=device).numpy(),
                                  acr.default_rng(3).permutation(50, device="cpu").numpy())


@pytest.mark.parametrize("device", DEVICES)
def test_permutation_and_shuffle_of_rows(device):
    base = np.arange(60, dtype=np.float32).reshape(20, 3)
    rows = acr.default_rng(12).permutation(ac.asarray(base, device=device)).numpy()
    np.testing.assert_array_equal(np.sort(rows[:, 0]), base[:, 0])
    np.testing.assert_array_equal(rows[:, 1] - rows[:, 0], np.ones(20))  # rows move whole
    t = ac.asarray(base.copy(), device=device)
    acr.default_rng(12).shuffle(t)
    np.testing.assert_array_equal(t.numpy(), rows)  # same seed: same order as permutation
    cols = acr.default_rng(1).permutation(ac.asarray(base, device=device), axis=1).numpy()
    np.testing.assert_array_equal(np.sort(cols, axis=1), base)


@pytest.mark.parametrize("device", DEVICES)
def test_choice(device):
    g = acr.default_rng(13)
    p = np.array([0.2, 0.0, 0.5, 0.0, 0.3])
    x = g.choice(5, size=100_000, p=p, device=device).numpy()
    assert set(np.unique(x).tolist()) == {0, 2, 4}
    freq = np.bincount(x, minlength=5) / x.size
    assert np.all(np.abs(freq - p) < 6 * np.sqrt(p * (1 - p) / x.size) + 1e-12)
    unique = g.choice(10, size=10, replace=False, device=device).numpy()
    np.testing.assert_array_equal(np.sort(unique), np.arange(10))
    weighted = g.choice(5, size=3, replace=False, p=p, device=device).numpy()
    assert sorted(weighted.tolist()) == [0, 2, 4]
    a = ac.asarray(np.array([10.0, 20.0, 30.0]), device=device)
    picked = g.choice(a, size=(4, 2), device=device)
    assert picked.shape == (4, 2) and set(picked.numpy().ravel().tolist()) <= {10.0, 20.0, 30.0}
    assert isinstance(g.choice(3), int)


@pytest.mark.parametrize("device", DEVICES)
def test_small_samples_without_replacement_are_distinct_uniform_and_reproducible(device):
    """Few samples of a large population take the sparse shuffle: distinct, in range, the same for a seed
    on every device, each position uniform over the population (chi-square, fixed seed)."""
    population = ac.asarray(np.arange(1 << 20, dtype=np.float32), device=device)
    picked = acr.default_rng(21).choice(population, size=(10, 100), replace=False)
    values = picked.numpy().ravel()
    assert picked.shape == (10, 100) and picked.device == device
    assert len(set(values.tolist())) == 1000 and values.min() >= 0 and values.max() < 1 << 20
    again = acr.default_rng(21).choice(population.to_device("cpu"), size=(10, 100), replace=False).numpy().ravel()
    np.testing.assert_array_equal(values, again)
    n, trials = 256, 4000
    g = acr.default_rng(22)
    draws = np.array([g.choice(n, size=4, replace=False).numpy() for _ in range(trials)])
    assert all(len(set(row.tolist())) == 4 for row in draws)
    expected = trials / n
    for position in range(4):
        counts = np.bincount(draws[:, position], minlength=n)
        assert ((counts - expected) ** 2 / expected).sum() < 360  # df 255: p < 1e-4 above 360


def test_choice_rejects_bad_input():
    g = acr.default_rng(0)
    with pytest.raises(ValueError):
        g.choice(3, size=4, replace=False)
    with pytest.raises(ValueError):
        g.choice(3, p=[0.5, 0.5, 0.5])
    with pytest.raises(ValueError):
        g.choice(3, p=[1.5, -0.5, 0.0])
    with pytest.raises(ValueError):
        g.choice(3, size=3, replace=False, p=[0.5, 0.5, 0.0])
    with pytest.raises(ValueError):
        g.choice(0, size=1)


def test_spawn_gives_independent_reproducible_generators():
    kids = acr.default_rng(21).spawn(3)
    again = acr.default_rng(21).spawn(3)
    draws = [k.random(16, device="cpu").numpy() for k in kids]
    for k, d in zip(again, draws):
        np.testing.assert_array_equal(k.random(16, device="cpu").numpy(), d)
    assert len({d.tobytes() for d in draws}) == 3


def test_module_level_functions_follow_numpy():
    acr.seed(5)
    a = acr.random(10)
    acr.seed(5)
    np.testing.assert_array_equal(acr.random(10).numpy(), a.numpy())
    assert acr.rand(2, 3).shape == (2, 3)
    assert acr.randn(4).shape == (4,)
    assert isinstance(acr.rand(), float)
    assert acr.randint(0, 5, size=7).dtype == ac.int64
    assert acr.random(3).device == ac.default_device()
    assert ac.random is acr


def test_bad_arguments_raise_typed_errors():
    g = acr.default_rng(0)
    with pytest.raises(ValueError):
        acr.default_rng(-1)
    with pytest.raises(ValueError):
        acr.default_rng(2**64)
    with pytest.raises(TypeError):
        acr.default_rng(1.5)
    with pytest.raises(ValueError):
        g.random(-1)
    with pytest.raises(TypeError):
        g.random(3, dtype=ac.int32)
    with pytest.raises(TypeError):
        g.integers(0, 3, dtype=ac.float32)
    with pytest.raises(ValueError):
        g.integers(5, 5)
    with pytest.raises(ValueError):
        g.integers(0, 2**31 + 1, dtype=ac.int32)
    with pytest.raises(ValueError):
        g.uniform(2.0, 1.0, 3)
    with pytest.raises(ValueError):
        g.normal(0.0, -1.0, 3)
    with pytest.raises(TypeError):
        g.shuffle(np.arange(3))
    counter = g.counter
    for refused in (lambda: g.integers(3, 2, size=5), lambda: g.uniform(1.0, 0.0, 5), lambda: g.normal(0.0, -1.0, 5),
                    lambda: g.random(5, dtype=ac.int64)):
        with pytest.raises((ValueError, TypeError)):
            refused()
    assert g.counter == counter  # a refused draw uses no counters
