"""The fused optimizers of accelera.nn.optim against torch.optim, step by step on the same parameters and
gradients: every rule and option, several parameters of sizes 1, primes and beyond one CPU chunk, float32
and float64, on the CPU and on opencl:0. Also: parameters that miss a gradient keep their own step count,
a refused step changes nothing, and the update is one op call per group."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import accelera as acc
from accelera import _core, nn
from accelera.nn import optim

DEVICES = ["cpu"] + [d["device"] for d in acc.devices() if d["device"] == "opencl:0"]
SHAPES = [(1,), (7,), (13, 31), (257, 3), (40009,)]

CASES = {
    "sgd": (lambda ps: optim.SGD(ps, 0.1), lambda ps: torch.optim.SGD(ps, 0.1)),
    "sgd momentum dampening wd": (
        lambda ps: optim.SGD(ps, 0.05, momentum=0.8, dampening=0.25, weight_decay=0.01),
        lambda ps: torch.optim.SGD(ps, 0.05, momentum=0.8, dampening=0.25, weight_decay=0.01)),
    "sgd nesterov": (lambda ps: optim.SGD(ps, 0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
                     lambda ps: torch.optim.SGD(ps, 0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    "adam": (lambda ps: optim.Adam(ps, 1e-2), lambda ps: torch.optim.Adam(ps, 1e-2)),
    "adam l2 amsgrad": (lambda ps: optim.Adam(ps, 1e-2, betas=(0.8, 0.95), weight_decay=0.1, amsgrad=True),
                        lambda ps: torch.optim.Adam(ps, 1e-2, betas=(0.8, 0.95), weight_decay=0.1, amsgrad=True)),
    "adamw": (lambda ps: optim.AdamW(ps, 1e-2, weight_decay=0.1, eps=1e-6),
              lambda ps: torch.optim.AdamW(ps, 1e-2, weight_decay=0.1, eps=1e-6)),
    "rmsprop": (lambda ps: optim.RMSprop(ps, 1e-2), lambda ps: torch.optim.RMSprop(ps, 1e-2)),
    "rmsprop centered momentum wd": (
        lambda ps: optim.RMSprop(ps, 1e-2, alpha=0.9, momentum=0.5, weight_decay=0.05, centered=True),
        lambda ps: torch.optim.RMSprop(ps, 1e-2, alpha=0.9, momentum=0.5, weight_decay=0.05, centered=True)),
}


def run_both(case, device, dtype, steps=5, missing=None):
    """Runs `steps` steps of both optimizers on the same data; `missing(step)` names parameters without a
    gradient at that step. Returns (accelera's, torch's) parameters and states as NumPy arrays."""
    ours, theirs = CASES[case]
    rng = np.random.default_rng(7)
    start = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    params = [nn.Parameter(acc.asarray(a, device=device)) for a in start]
    tparams = [torch.nn.Parameter(torch.from_numpy(a.copy())) for a in start]
    opt, topt = ours(params), theirs(tparams)
    for step in range(steps):
        skip = missing(step) if missing else set()
        for i, (p, tp) in enumerate(zip(params, tparams)):
            g = rng.standard_normal(SHAPES[i]).astype(dtype)
            p.grad = None if i in skip else acc.asarray(g, device=device)
            tp.grad = None if i in skip else torch.from_numpy(g)
        opt.step()
        topt.step()
    return opt, topt, params, tparams


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("case", list(CASES))
def test_matches_torch_optim(case, device, dtype):
    opt, topt, params, tparams = run_both(case, device, dtype)
    rtol, atol = (1e-12, 1e-13) if dtype == np.float64 else (2e-5, 2e-6)
    for i, (p, tp) in enumerate(zip(params, tparams)):
        np.testing.assert_allclose(p.numpy(), tp.detach().numpy(), rtol=rtol, atol=atol, err_msg=f"parameter {i}")
        tstate = topt.state[tp]
        for name, value in opt.state[i].items():
            if name == "step":
                assert value == 5 and ("step" not in tstate or int(tstate["step"]) == 5)  # torch's SGD counts none
            else:
                np.testing.assert_allclose(value.numpy(), tstate[name].numpy(), rtol=rtol, atol=atol,
                                           err_msg=f"{name} of parameter {i}")


@pytest.mark.parametrize("case", ["adam", "sgd nesterov", "rmsprop centered momentum wd"])
def test_parameters_without_a_gradient_keep_their_own_step(case):
    """torch.optim counts steps per parameter; so do we (Adam's bias corrections depend on it)."""
    missing = lambda step: {1, 3} if step < 2 else ({0} if step == 3 else set())  # noqa: E731
    opt, topt, params, tparams = run_both(case, "cpu", np.float64, steps=6, missing=missing)
    for i, (p, tp) in enumerate(zip(params, tparams)):
        np.testing.assert_allclose(p.numpy(), tp.detach().numpy(), rtol=1e-12, atol=1e-13)
        if "step" in topt.state[tp]:
            assert opt.state[i]["step"] == int(topt.state[tp]["step"])
    assert [opt.state[i]["step"] for i in range(len(params))] == [5, 4, 6, 4, 6]


def test_one_op_call_per_group(monkeypatch):
    calls = []
    real = _core.optimizer_step
    monkeypatch.setattr(_core, "optimizer_step", lambda *a, **k: calls.append(len(a[0])) or real(*a, **k))
    params = [nn.Parameter(acc.ones(s)) for s in SHAPES] + [nn.Parameter(acc.ones((3,), dtype="float64"))]
    for p in params:
        p.grad = acc.ones(p.shape, dtype=p.dtype)
    optim.Adam(params).step()
    assert sorted(calls) == [1, len(SHAPES)]  # float32 together, float64 apart


def test_a_refused_step_changes_nothing():
    p, q = nn.Parameter(acc.ones((4,))), nn.Parameter(acc.ones((3,)))
    opt = optim.Adam([p, q])
    p.grad = acc.ones((4,))
    q.grad = acc.ones((3,), dtype="float64")  # a gradient of another dtype than its parameter
    with pytest.raises(acc.DTypeError, match="float64"):
        opt.step()
    np.testing.assert_array_equal(p.numpy(), np.ones(4, np.float32))
    assert all(s["step"] == 0 for s in opt.state.values())
    q.grad = acc.ones((3,))
    opt.step()
    assert all(s["step"] == 1 for s in opt.state.values()) and float(p.numpy()[0]) < 1


def test_bad_hyperparameters():
    p = nn.Parameter(acc.ones((2,)))
    for make, match in [(lambda: optim.Adam([p], betas=(0.9, 1.0)), "beta2"),
                        (lambda: optim.RMSprop([p], alpha=1.5), "alpha"),
                        (lambda: optim.SGD([p], 0.1, momentum=0.9, nesterov=True, dampening=0.1), "Nesterov"),
                        (lambda: optim.SGD([p], 0.1, dampening=2.0), "dampening"),
                        (lambda: optim.SGD([p], -1.0), "learning rate")]:
        with pytest.raises(acc.ArgumentError, match=match):
            make()


def test_half_parameters_on_the_cpu_compute_in_float32():
    """The CPU has no half kernels: the update runs on float32 copies and rounds once."""
    start = np.linspace(-1, 1, 11).astype(np.float16)
    p = nn.Parameter(acc.asarray(start.copy()))  # asarray shares a NumPy array's memory on the CPU
    opt = optim.SGD([p], 0.5, momentum=0.9)
    p.grad = acc.asarray(np.full(11, 0.25, np.float16))
    opt.step()
    expected = (start.astype(np.float32) - np.float32(0.5 * 0.25)).astype(np.float16)
    np.testing.assert_array_equal(p.numpy(), expected)
    assert opt.state[0]["momentum_buffer"].dtype == p.dtype
