"""Mixed precision (accelera.amp): the autocast policy, gradients that reach float32 master weights, the
half formats computed through float32 on every device, GradScaler's dynamic loss scaling against
torch.amp.GradScaler's rules, and training under TrainingConfig(mixed_precision=...)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import accelera as acc
from accelera import amp, datasets, nn
from accelera.nn import functional as F

DEVICES = ["cpu"] + [d["device"] for d in acc.devices() if d["device"] == "opencl:0"]
HALF = ["bfloat16", "float16"]
# Unit roundoff of each format: a product of K terms in the format is within ~K * u relative.
UNIT = {"bfloat16": 2.0**-8, "float16": 2.0**-11}


def tensor(a, device, dtype="float32"):
    return acc.asarray(np.asarray(a, dtype=dtype), device=device)


def model(device, sizes=(11, 13, 5)):
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers += [nn.Linear(a, b, device=device, seed=10 + i), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


# ------------------------------------------------------------------------------------------------ policy


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", HALF)
def test_products_run_in_the_autocast_dtype_and_losses_in_float32(device, dtype):
    rng = np.random.default_rng(1)
    net = model(device)
    x = tensor(rng.standard_normal((7, 11)), device)
    y = acc.asarray(rng.integers(0, 5, 7), device=device)
    with amp.autocast(dtype):
        assert amp.is_autocast_enabled() and amp.get_autocast_dtype() == dtype
        z = net(x)
        assert z.dtype.name == dtype
        assert F.softmax(z).dtype.name == "float32"
        assert F.layer_norm(z).dtype.name == "float32"
        loss = F.cross_entropy(z, y)
        assert loss.dtype.name == "float32"
        conv = nn.Conv2d(2, 3, 3, device=device, seed=4)
        assert conv(tensor(rng.standard_normal((2, 2, 6, 5)), device)).dtype.name == dtype
    assert not amp.is_autocast_enabled() and amp.get_autocast_dtype() is None
    assert net(x).dtype.name == "float32"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", HALF)
def test_master_weights_get_float32_gradients_close_to_the_float64_ones(device, dtype):
    rng = np.random.default_rng(2)
    net = model(device)
    xn, yn = rng.standard_normal((9, 11)), rng.integers(0, 5, 9)
    x, y = tensor(xn, device), acc.asarray(yn, device=device)
    with amp.autocast(dtype):
        loss = F.cross_entropy(net(x), y)
    loss.backward()
    grads = [p.grad for p in net.parameters()]
    assert all(g.dtype.name == "float32" and p.dtype.name == "float32" for g, p in zip(grads, net.parameters()))

    # The float64 reference of the same network: the half run is within a few units of its format.
    w1, b1, w2, b2 = (np.asarray(p.numpy(), dtype=np.float64) for p in net.parameters())
    h = xn @ w1.T + b1
    a = np.maximum(h, 0)
    z = a @ w2.T + b2
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    dz = (p - np.eye(5)[yn]) / len(yn)
    dw2, db2 = dz.T @ a, dz.sum(0)
    dh = (dz @ w2) * (h > 0)
    dw1, db1 = dh.T @ xn, dh.sum(0)
    for got, want in zip(grads, (dw1, db1, dw2, db2)):
        scale = np.abs(want).max()
        np.testing.assert_allclose(got.numpy(), want, atol=64 * UNIT[dtype] * scale)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", HALF)
def test_half_matmul_is_the_float32_product_rounded_once(device, dtype):
    rng = np.random.default_rng(3)
    for m, k, n in [(1, 1, 1), (7, 13, 5), (31, 64, 17)]:
        a = tensor(rng.standard_normal((m, k)), device).astype(dtype)
        b = tensor(rng.standard_normal((k, n)), device).astype(dtype)
        want = acc.matmul(a.astype("float32"), b.astype("float32")).astype(dtype)
        got = acc.matmul(a, b)
        assert got.dtype.name == dtype
        np.testing.assert_array_equal(got.astype("float32").numpy(), want.astype("float32").numpy())


def test_autocast_nests_turns_off_decorates_and_is_per_thread():
    with amp.autocast("float16"):
        with amp.autocast("bfloat16"):
            assert amp.get_autocast_dtype() == "bfloat16"
            with amp.autocast(enabled=False):
                assert not amp.is_autocast_enabled()
            assert amp.get_autocast_dtype() == "bfloat16"
        assert amp.get_autocast_dtype() == "float16"
        seen = []
        thread = threading.Thread(target=lambda: seen.append(amp.get_autocast_dtype()))
        thread.start()
        thread.join()
        assert seen == [None]

    @amp.autocast("float16")
    def inside():
        return amp.get_autocast_dtype()

    assert amp.get_autocast_dtype() is None
    assert inside() == "float16" and amp.get_autocast_dtype() is None
    assert nn.autocast is amp.autocast and nn.GradScaler is amp.GradScaler


@pytest.mark.parametrize("bad", ["float32", "int32", "float64"])
def test_autocast_refuses_dtypes_that_are_not_half(bad):
    with pytest.raises(acc.DTypeError, match="float16 or bfloat16"):
        amp.autocast(bad)
    with pytest.raises(acc.DTypeError):
        amp.autocast("bfloat16", enabled=1)


# ------------------------------------------------------------------------------------------------ scaler


class _Recorder:
    """An optimizer stand-in that counts its steps."""

    def __init__(self, params):
        self.params = params
        self.steps = 0

    def step(self):
        self.steps += 1


def _params_with_grads(device, values):
    params = []
    for v in values:
        p = tensor(np.zeros(len(v)), device).requires_grad_()
        p.grad = tensor(v, device)
        params.append(p)
    return params


@pytest.mark.parametrize("device", DEVICES)
def test_scaler_unscales_and_steps_when_every_gradient_is_finite(device):
    scaler = amp.GradScaler(init_scale=8.0, growth_interval=2)
    loss = tensor(3.0, device)
    assert scaler.scale(loss).item() == 24.0
    params = _params_with_grads(device, [[8.0, -16.0], [4.0]])
    opt = _Recorder(params)
    assert scaler.step(opt) is True and opt.steps == 1
    np.testing.assert_array_equal(params[0].grad.numpy(), [1.0, -2.0])
    np.testing.assert_array_equal(params[1].grad.numpy(), [0.5])
    scaler.update()
    assert scaler.get_scale() == 8.0
    for p in params:
        p.grad = tensor([1.0] * p.shape[0], device)
    scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 16.0  # two calm steps in a row: growth


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("poison", [np.inf, -np.inf, np.nan])
def test_scaler_skips_a_step_with_an_overflowed_gradient_and_backs_off(device, poison):
    scaler = amp.GradScaler(init_scale=1024.0, growth_interval=1)
    params = _params_with_grads(device, [[1.0, 2.0], [3.0, poison, 5.0]])
    opt = _Recorder(params)
    assert scaler.step(opt) is False and opt.steps == 0 and scaler.skipped_steps == 1
    scaler.update()
    assert scaler.get_scale() == 512.0


def test_scaler_refuses_misuse_and_bad_settings():
    scaler = amp.GradScaler()
    opt = _Recorder(_params_with_grads("cpu", [[1.0]]))
    with pytest.raises(acc.ArgumentError, match="needs a step"):
        scaler.update()
    scaler.unscale_(opt)
    with pytest.raises(acc.ArgumentError, match="already called"):
        scaler.unscale_(opt)
    for kwargs, what in [({"init_scale": 0.0}, "init_scale"), ({"growth_factor": 1.0}, "growth_factor"),
                         ({"backoff_factor": 1.5}, "backoff_factor"), ({"growth_interval": 0}, "growth_interval"),
                         ({"init_scale": float("nan")}, "init_scale")]:
        with pytest.raises(acc.ArgumentError, match=what):
            amp.GradScaler(**kwargs)
    with pytest.raises(acc.DTypeError):
        scaler.scale(np.float32(1.0))


def test_scaler_state_round_trips_and_a_disabled_scaler_passes_through():
    scaler = amp.GradScaler(init_scale=4.0, growth_interval=3)
    opt = _Recorder(_params_with_grads("cpu", [[1.0]]))
    scaler.step(opt)
    scaler.update()
    other = amp.GradScaler()
    other.load_state_dict(scaler.state_dict())
    assert other.state_dict() == scaler.state_dict()

    off = amp.GradScaler(enabled=False)
    loss = tensor(2.0, "cpu")
    assert off.scale(loss) is loss and off.get_scale() == 1.0
    assert off.step(opt) is True and opt.steps == 2
    off.update()


def test_scaler_follows_torch_grad_scaler():
    torch = pytest.importorskip("torch")
    ours = amp.GradScaler(init_scale=64.0, growth_interval=2)
    theirs = torch.amp.GradScaler("cpu", init_scale=64.0, growth_interval=2)
    tp = torch.nn.Parameter(torch.zeros(2))
    topt = torch.optim.SGD([tp], lr=0.0)
    for grad in ([1.0, 1.0], [1.0, np.inf], [1.0, 1.0], [1.0, 1.0], [np.nan, 0.0], [2.0, 2.0]):
        params = _params_with_grads("cpu", [grad])
        ours.step(_Recorder(params))
        ours.update()
        theirs.scale(torch.ones(()))
        tp.grad = torch.tensor(grad, dtype=torch.float32)
        theirs.step(topt)
        theirs.update()
        assert ours.get_scale() == theirs.get_scale()


# ------------------------------------------------------------------------------------------------ training


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", HALF)
def test_training_under_mixed_precision_learns_the_digits(device, dtype):
    (x, y), (xt, yt) = datasets.digits()
    net = (nn.Network.with_input_size(64, device=device).seed(0)
           .add_layer(nn.LayerBuilder.dense(64).activation(nn.Activation.ReLU))
           .add_layer(nn.LayerBuilder.dense(10).activation(nn.Activation.Softmax))
           .loss(nn.Loss.CategoricalCrossEntropy).build())
    history = net.train(x, y, nn.TrainingConfig(batch_size=64, max_epochs=8, learning_rate=3e-3, verbose=False,
                                                mixed_precision=dtype))
    assert history.train_loss[-1] < 0.5 * history.train_loss[0]
    assert net.evaluate(xt, yt)["accuracy"] > 0.9
    assert all(p.dtype.name == "float32" for p in net.model.parameters())
    assert history.skipped_steps <= 2  # float16 may skip its first steps while the scale settles


def test_training_config_refuses_an_unknown_precision():
    with pytest.raises(acc.ArgumentError, match="mixed_precision"):
        nn.TrainingConfig(mixed_precision="float32").validate()
