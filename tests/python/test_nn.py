"""accelera.nn: layer, loss and optimizer gradients against float64 finite differences and closed forms,
train/eval behaviour, the builder API, save/load, bad input; on the CPU and on opencl:0 where present."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import accelera as acc
from accelera import nn, profiler
from accelera._files import new_file_mode
from accelera.autograd import no_grad
from accelera.nn import functional as F
from accelera.nn import optim

DEVICES = ["cpu"] + [d["device"] for d in acc.devices() if d["device"] == "opencl:0"]
RNG = np.random.default_rng(3)


def loss_of(module, x, weights):
    return acc.sum(module(x) * weights)


def check_module_gradients(module, x_np, rtol=1e-5, atol=1e-7, input_grad=True):
    """Every parameter's (and the input's) gradient of sum(module(x) * w) against central differences."""
    x = acc.asarray(x_np).requires_grad_(input_grad)
    out = module(x)
    weights = acc.asarray(RNG.standard_normal(out.shape))
    acc.sum(out * weights).backward()
    eps = 1e-6
    targets = list(module.named_parameters()) + ([("input", x)] if input_grad else [])
    for name, p in targets:
        analytic = p.grad.numpy()
        base = p.numpy().copy()
        numeric = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            for sign in (1, -1):
                shifted = base.copy()
                shifted[idx] += sign * eps
                with no_grad():
                    acc._core._copy_into(acc.asarray(shifted), p)
                    numeric[idx] += sign * float(acc.sum(module(x) * weights).item()) / (2 * eps)
            with no_grad():
                acc._core._copy_into(acc.asarray(base), p)
        np.testing.assert_allclose(analytic, numeric, rtol=rtol, atol=atol, err_msg=f"{type(module).__name__}.{name}")


# ---- layer gradients -------------------------------------------------------------------------------

def test_linear_gradients():
    check_module_gradients(nn.Linear(5, 3, dtype="float64", seed=1), RNG.standard_normal((4, 5)))


def test_layer_norm_gradients():
    layer = nn.LayerNorm(7, dtype="float64")
    with no_grad():
        acc._core._copy_into(acc.asarray(RNG.standard_normal(7)), layer.weight)
        acc._core._copy_into(acc.asarray(RNG.standard_normal(7)), layer.bias)
    check_module_gradients(layer, RNG.standard_normal((3, 7)))


def test_batch_norm_gradients_in_training():
    layer = nn.BatchNorm1d(3, dtype="float64")
    # finite differences re-run forward, which moves the running statistics: check them in eval below
    check_module_gradients(layer, RNG.standard_normal((6, 3)))


def test_batch_norm_train_and_eval():
    layer = nn.BatchNorm1d(4, momentum=0.5, dtype="float64")
    x = RNG.standard_normal((32, 4)) * 3 + 2
    out = layer(acc.asarray(x)).numpy()
    np.testing.assert_allclose(out.mean(0), 0, atol=1e-10)
    np.testing.assert_allclose(out.var(0), x.var(0) / (x.var(0) + 1e-5), rtol=1e-9)
    np.testing.assert_allclose(layer.running_mean.numpy(), 0.5 * x.mean(0), rtol=1e-12)
    np.testing.assert_allclose(layer.running_var.numpy(), 0.5 + 0.5 * x.var(0, ddof=1), rtol=1e-12)
    layer.eval()
    y = RNG.standard_normal((5, 4))
    expected = (y - layer.running_mean.numpy()) / np.sqrt(layer.running_var.numpy() + 1e-5)
    np.testing.assert_allclose(layer(acc.asarray(y)).numpy(), expected, rtol=1e-10)
    check_module_gradients(layer, y)


def test_batch_norm_2d_and_shape_errors():
    layer = nn.BatchNorm2d(3, dtype="float64")
    x = RNG.standard_normal((4, 3, 5, 2))
    out = layer(acc.asarray(x)).numpy()
    np.testing.assert_allclose(out.mean((0, 2, 3)), 0, atol=1e-10)
    with pytest.raises(acc.ShapeError, match=r"BatchNorm2d\(3\)"):
        layer(acc.asarray(RNG.standard_normal((4, 2, 5, 2))))


def test_embedding_gradient_adds_repeated_indices():
    layer = nn.Embedding(5, 3, dtype="float64", seed=0)
    idx = acc.asarray(np.array([[0, 2, 2], [4, 2, 0]]))
    out = layer(idx)
    np.testing.assert_array_equal(out.numpy(), layer.weight.numpy()[idx.numpy()])
    w = RNG.standard_normal(out.shape)
    acc.sum(out * acc.asarray(w)).backward()
    expected = np.zeros((5, 3))
    np.add.at(expected, idx.numpy().ravel(), w.reshape(-1, 3))
    np.testing.assert_allclose(layer.weight.grad.numpy(), expected, rtol=1e-12)
    with pytest.raises(acc.ArgumentError, match=r"Embedding\(5, 3\): label 5"):
        layer(acc.asarray(np.array([1, 5])))


def test_multi_head_attention_against_numpy_and_gradients():
    layer = nn.MultiHeadAttention(8, 2, dtype="float64", seed=4, causal=True)
    x = RNG.standard_normal((2, 5, 8))
    out = layer(acc.asarray(x)).numpy()

    def reference(x):
        def proj(m, v):
            return v @ m.weight.numpy().T + m.bias.numpy()
        q, k, v = (proj(m, x).reshape(2, 5, 2, 4).transpose(0, 2, 1, 3) for m in (layer.q_proj, layer.k_proj, layer.v_proj))
        s = q @ k.transpose(0, 1, 3, 2) / 2.0 + np.triu(np.full((5, 5), -np.inf), 1)
        p = np.exp(s - s.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        o = (p @ v).transpose(0, 2, 1, 3).reshape(2, 5, 8)
        return proj(layer.out_proj, o)
    np.testing.assert_allclose(out, reference(x), rtol=1e-10, atol=1e-12)
    check_module_gradients(nn.MultiHeadAttention(4, 2, dtype="float64", seed=5), RNG.standard_normal((1, 3, 4)),
                           rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("module", [nn.ReLU(), nn.LeakyReLU(0.1), nn.Sigmoid(), nn.Tanh(), nn.GELU(), nn.GELU("tanh"),
                                    nn.SiLU(), nn.Softmax(), nn.LogSoftmax(), nn.Flatten(), nn.Reshape(2, 3)],
                         ids=lambda m: repr(m))
def test_activation_and_shape_layer_gradients(module):
    x = RNG.standard_normal((3, 6))
    x[np.abs(x) < 0.05] = 0.3  # keep the kinks of ReLU/LeakyReLU away from the difference step
    check_module_gradients(module, x)


def test_dropout_train_and_eval():
    layer = nn.Dropout(0.25, seed=1)
    x = acc.ones((200, 100), dtype="float64")
    out = layer(x).numpy()
    assert set(np.unique(out)) <= {0.0, 1 / 0.75}
    assert abs((out == 0).mean() - 0.25) < 0.02
    layer.eval()
    np.testing.assert_array_equal(layer(x).numpy(), 1.0)
    with pytest.raises(acc.ArgumentError):
        nn.Dropout(1.0)


def test_linear_names_itself_on_a_wrong_shape():
    with pytest.raises(acc.ShapeError, match=r"Linear\(5, 3\) expects .* 5 features, got shape \(4, 6\)"):
        nn.Linear(5, 3)(acc.ones((4, 6)))


# ---- losses -------------------------------------------------------------------------------------------

def test_cross_entropy_matches_closed_form_for_labels_and_one_hot():
    logits = RNG.standard_normal((6, 4))
    labels = np.array([0, 3, 1, 1, 2, 3])
    z = acc.asarray(logits).requires_grad_()
    loss = F.cross_entropy(z, acc.asarray(labels))
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    np.testing.assert_allclose(float(loss.item()), -np.log(p[np.arange(6), labels]).mean(), rtol=1e-12)
    loss.backward()
    onehot = np.eye(4)[labels]
    np.testing.assert_allclose(z.grad.numpy(), (p - onehot) / 6, rtol=1e-10, atol=1e-14)
    z2 = acc.asarray(logits).requires_grad_()
    F.cross_entropy(z2, acc.asarray(onehot)).backward()
    np.testing.assert_allclose(z2.grad.numpy(), z.grad.numpy(), rtol=1e-12)
    with pytest.raises(acc.ArgumentError, match="label 4 is outside"):
        F.cross_entropy(z, acc.asarray(np.array([0, 4, 1, 1, 2, 3])))
    with pytest.raises(acc.ShapeError):
        F.cross_entropy(z, acc.asarray(np.array([0, 1])))


def test_binary_cross_entropy_forms_agree_and_differentiate():
    logits = RNG.standard_normal(9) * 3
    t = (RNG.random(9) > 0.5).astype(np.float64)
    z = acc.asarray(logits).requires_grad_()
    loss = F.binary_cross_entropy_with_logits(z, acc.asarray(t))
    s = 1 / (1 + np.exp(-logits))
    np.testing.assert_allclose(float(loss.item()), -(t * np.log(s) + (1 - t) * np.log(1 - s)).mean(), rtol=1e-12)
    loss.backward()
    np.testing.assert_allclose(z.grad.numpy(), (s - t) / 9, rtol=1e-10)
    p = acc.asarray(s).requires_grad_()
    F.binary_cross_entropy(p, acc.asarray(t)).backward()
    np.testing.assert_allclose(p.grad.numpy(), (p.numpy() - t) / (p.numpy() * (1 - p.numpy())) / 9, rtol=1e-8)


def test_mse_and_huber_against_closed_forms():
    a, b = RNG.standard_normal(8) * 2, RNG.standard_normal(8)
    x = acc.asarray(a).requires_grad_()
    F.mse_loss(x, acc.asarray(b)).backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (a - b) / 8, rtol=1e-12)
    x = acc.asarray(a).requires_grad_()
    loss = F.huber_loss(x, acc.asarray(b), delta=1.0)
    d = a - b
    expected = np.where(np.abs(d) <= 1, 0.5 * d * d, np.abs(d) - 0.5).mean()
    np.testing.assert_allclose(float(loss.item()), expected, rtol=1e-12)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.clip(d, -1, 1) / 8, rtol=1e-12)
    with pytest.raises(acc.ShapeError):
        F.mse_loss(x, acc.ones((3,), dtype="float64"))


# ---- optimizers ---------------------------------------------------------------------------------------

def run_optimizer(make, reference, steps=4):
    p0, grads = RNG.standard_normal(6), [RNG.standard_normal(6) for _ in range(steps)]
    p = nn.Parameter(acc.asarray(p0.copy()))
    opt = make([p])
    for g in grads:
        p.grad = acc.asarray(g)
        opt.step()
    np.testing.assert_allclose(p.numpy(), reference(p0.copy(), grads), rtol=1e-12, atol=1e-14)


def test_sgd_momentum_nesterov_weight_decay():
    def reference(p, grads, lr=0.1, mu=0.9, wd=0.01, nesterov=True):
        buf = None
        for g in grads:
            g = g + wd * p
            buf = g if buf is None else mu * buf + g
            p = p - lr * (g + mu * buf if nesterov else buf)
        return p
    run_optimizer(lambda ps: optim.SGD(ps, 0.1, momentum=0.9, nesterov=True, weight_decay=0.01), reference)
    run_optimizer(lambda ps: optim.SGD(ps, 0.1, momentum=0.9, weight_decay=0.01),
                  lambda p, g: reference(p, g, nesterov=False))
    run_optimizer(lambda ps: optim.SGD(ps, 0.1), lambda p, g: reference(p, g, mu=0.0, wd=0.0, nesterov=False))


@pytest.mark.parametrize("decoupled", [False, True])
def test_adam_and_adamw(decoupled):
    def reference(p, grads, lr=0.01, b1=0.9, b2=0.999, eps=1e-8, wd=0.1):
        m = v = 0
        for t, g in enumerate(grads, 1):
            if decoupled:
                p = p * (1 - lr * wd)
            else:
                g = g + wd * p
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            p = p - lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
        return p
    cls = optim.AdamW if decoupled else optim.Adam
    run_optimizer(lambda ps: cls(ps, 0.01, weight_decay=0.1), reference)


def test_rmsprop():
    def reference(p, grads, lr=0.01, alpha=0.9, eps=1e-8, mu=0.5):
        sq, buf = 0, None
        for g in grads:
            sq = alpha * sq + (1 - alpha) * g * g
            step = g / (np.sqrt(sq) + eps)
            buf = step if buf is None else mu * buf + step
            p = p - lr * buf
        return p
    run_optimizer(lambda ps: optim.RMSprop(ps, 0.01, alpha=0.9, momentum=0.5), reference)


def test_schedules_and_clipping():
    p = nn.Parameter(acc.zeros((3,), dtype="float64"))
    opt = optim.SGD([p], 1.0)
    cosine = optim.CosineAnnealingLR(opt, 4)
    assert [round(cosine.step(), 12) for _ in range(5)] == [round(0.5 * (1 + math.cos(math.pi * c / 4)), 12)
                                                            for c in (1, 2, 3, 4, 4)]
    opt.lr = 1.0
    warm = optim.WarmupLR(opt, 2, optim.StepLR(opt, 2, 0.5))
    assert opt.lr == 0.5 and [warm.step() for _ in range(4)] == [1.0, 1.0, 1.0, 0.5]
    p.grad = acc.asarray(np.array([3.0, 4.0, 0.0]))
    assert optim.clip_grad_norm_([p], 1.0) == pytest.approx(5.0)
    np.testing.assert_allclose(p.grad.numpy(), [0.6, 0.8, 0.0], rtol=1e-5)
    optim.clip_grad_value_([p], 0.7)
    np.testing.assert_allclose(p.grad.numpy(), [0.6, 0.7, 0.0], rtol=1e-5)
    with pytest.raises(acc.ArgumentError):
        optim.SGD([acc.zeros((2,))], 0.1)


# ---- the builder API ----------------------------------------------------------------------------------

def classification(n=300, features=12, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, n)
    x = rng.standard_normal((n, features)).astype(np.float32) * 0.6
    x[np.arange(n), labels] += 2.0
    return x, labels


def mlp(features=12, classes=3, device=None, **extra):
    builder = (nn.Network.with_input_size(features, device=device)
               .add_layer(nn.LayerBuilder.dense(32).activation(nn.Activation.ReLU)))
    for layer in extra.get("layers", []):
        builder.add_layer(layer)
    return (builder.add_layer(nn.LayerBuilder.dense(classes).activation(nn.Activation.Softmax))
            .loss(extra.get("loss", nn.Loss.CategoricalCrossEntropy)).build())


@pytest.mark.parametrize("device", DEVICES)
def test_training_reduces_the_loss_and_reaches_accuracy(device):
    x, y = classification()
    net = mlp(device=device, layers=[nn.LayerBuilder.batch_norm(), nn.LayerBuilder.dropout(0.1)])
    assert net.device == device
    history = net.train(x, y, nn.TrainingConfig(batch_size=32, max_epochs=8, learning_rate=0.01,
                                                validation_split=0.2, verbose=False))
    assert history.epochs == 8 and len(history.val_loss) == 8
    assert history.train_loss[-1] < 0.5 * history.train_loss[0]
    assert history.val_metrics["accuracy"][-1] > 0.9
    result = net.evaluate(x, y)
    assert result["accuracy"] > 0.9
    probabilities = net.predict(x[:5])
    np.testing.assert_allclose(probabilities.sum(1), 1.0, rtol=1e-5)


def test_training_is_reproducible_and_validation_split_is_the_tail():
    x, y = classification(n=100)
    config = nn.TrainingConfig(batch_size=16, max_epochs=2, validation_split=0.3, verbose=False, seed=5)
    first, second = mlp(), mlp()
    h1, h2 = first.train(x, y, config), second.train(x, y, config)
    assert h1.train_loss == h2.train_loss and h1.val_loss == h2.val_loss
    assert h1.val_loss[-1] == pytest.approx(first.evaluate(x[70:], y[70:])["loss"], rel=1e-6)


def test_early_stopping_restores_the_best_weights():
    x, y = classification(n=120)
    net = mlp()
    history = net.train(x, y, nn.TrainingConfig(batch_size=8, max_epochs=60, learning_rate=0.3, optimizer="sgd",
                                                validation_split=0.25, early_stopping_patience=2, verbose=False))
    assert history.stopped_early and history.epochs < 60
    assert net.evaluate(x[90:], y[90:])["loss"] == pytest.approx(min(history.val_loss), rel=1e-5)


@pytest.mark.parametrize("loss,activation", [(nn.Loss.MeanSquaredError, nn.Activation.Linear),
                                             (nn.Loss.Huber, nn.Activation.Tanh),
                                             (nn.Loss.BinaryCrossEntropy, nn.Activation.Sigmoid)])
def test_other_losses_train(loss, activation):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((200, 4)).astype(np.float32)
    y = (x[:, :1] > 0).astype(np.float32) if loss is nn.Loss.BinaryCrossEntropy else np.tanh(x[:, :1])
    net = (nn.Network.with_input_size(4).add_layer(nn.LayerBuilder.dense(16).activation(nn.Activation.Tanh))
           .add_layer(nn.LayerBuilder.dense(1).activation(activation)).loss(loss).build())
    history = net.train(x, y, nn.TrainingConfig(batch_size=20, max_epochs=15, learning_rate=0.02, verbose=False))
    assert history.train_loss[-1] < 0.5 * history.train_loss[0]


def test_verbose_prints_one_line_per_epoch(capsys):
    x, y = classification(n=64)
    mlp().train(x, y, nn.TrainingConfig(batch_size=16, max_epochs=2, verbose=True, validation_split=0.25))
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and lines[1].startswith("Epoch 2/2") and "val_accuracy" in lines[1]


def test_bad_training_input_is_named():
    x, y = classification(n=50)
    net = mlp()
    with pytest.raises(acc.ArgumentError, match="validation_split"):
        net.train(x, y, nn.TrainingConfig(validation_split=1.0, verbose=False))
    with pytest.raises(acc.ArgumentError, match="validation_split"):
        net.train(x, y, nn.TrainingConfig(validation_split=-0.1, verbose=False))
    with pytest.raises(acc.ArgumentError, match="label 3 is outside"):
        net.train(x, np.where(y == 0, 3, y), nn.TrainingConfig(verbose=False))
    with pytest.raises(acc.ShapeError, match="12 input features"):
        net.train(x[:, :5], y, nn.TrainingConfig(verbose=False))
    with pytest.raises(acc.ShapeError, match="rows"):
        net.train(x, y[:10], nn.TrainingConfig(verbose=False))
    with pytest.raises(acc.ArgumentError, match="optimizer"):
        net.train(x, y, nn.TrainingConfig(optimizer="lbfgs", verbose=False))
    with pytest.raises(acc.ArgumentError, match="activation"):
        nn.LayerBuilder.dense(3).activation("softplus")


def test_save_and_load_round_trip(tmp_path):
    x, y = classification(n=80)
    net = mlp(layers=[nn.LayerBuilder.batch_norm()])
    net.train(x, y, nn.TrainingConfig(max_epochs=2, verbose=False))
    path = tmp_path / "model.safetensors"
    net.save(path)
    assert [p.name for p in tmp_path.iterdir()] == ["model.safetensors"]  # no temporary left behind
    assert path.stat().st_mode & 0o777 == new_file_mode()  # not mkstemp's 0600
    loaded = nn.Network.load(path)
    np.testing.assert_array_equal(loaded.predict(x), net.predict(x))
    length = int.from_bytes(path.read_bytes()[:8], "little")
    header = json.loads(path.read_bytes()[8:8 + length])
    assert header["0.weight"]["dtype"] == "F32" and header["0.weight"]["shape"] == [32, 12]
    assert "2.running_mean" in header
    (tmp_path / "bad.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}      ")
    with pytest.raises(acc.ArgumentError, match="not JSON"):
        nn.Network.load(tmp_path / "bad.safetensors")


# ---- the imperative API and autograd ------------------------------------------------------------------

class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 8, seed=0)
        self.out = nn.Linear(8, 2, seed=1)

    def forward(self, x):
        return self.out(F.relu(self.hidden(x)))


def test_module_api_trains_with_an_optimizer():
    model = TwoLayer()
    assert [n for n, _ in model.named_parameters()] == ["hidden.weight", "hidden.bias", "out.weight", "out.bias"]
    x = acc.asarray(RNG.standard_normal((64, 4)).astype(np.float32))
    y = acc.asarray((RNG.standard_normal(64) > 0).astype(np.int64))
    opt = optim.Adam(model.parameters(), 0.05)
    losses = []
    for _ in range(30):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.item()))
    assert losses[-1] < losses[0]


def test_autograd_guards():
    x = acc.asarray(np.arange(4.0)).requires_grad_()
    with pytest.raises(acc.NotSupportedError, match="prod has no gradient"):
        acc.prod(x * 2)
    with no_grad():
        acc.prod(x * 2)  # fine without recording
    with pytest.raises(acc.ArgumentError, match="in place"):
        x += 1
    with pytest.raises(acc.DTypeError):
        acc.asarray(np.arange(3)).requires_grad_()
    y = acc.sum(acc.exp(x))
    y.backward()
    with pytest.raises(acc.ArgumentError, match="freed"):
        y.backward()
    z = acc.sum(x * x)
    (g,) = acc.autograd.grad(z, [x])
    np.testing.assert_allclose(g.numpy(), 2 * np.arange(4.0))
    assert x.detach().requires_grad is False


def test_custom_function():
    class Cube(acc.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3.0 * x * x

    x = acc.asarray(np.array([1.0, -2.0])).requires_grad_()
    acc.sum(Cube.apply(x)).backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 12.0])


def test_custom_function_knows_which_inputs_need_grad():
    seen = []

    class Scale(acc.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, factor):
            ctx.save_for_backward(x, w)
            seen.append(ctx.needs_input_grad)
            return x * w * factor

        @staticmethod
        def backward(ctx, grad):
            x, w = ctx.saved_tensors
            return (grad * w if ctx.needs_input_grad[0] else None), (grad * x if ctx.needs_input_grad[1] else None), None

    x, w = acc.asarray(np.array([1.0, 2.0])), acc.asarray(np.array([3.0, 4.0])).requires_grad_()
    acc.sum(Scale.apply(x, w, 2.0)).backward()
    assert seen == [(False, True, False)]
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 2.0])


# ---- seed names, profiler, data ----------------------------------------------------------------------

def test_gpu_manager_names_every_device():
    manager = nn.GpuManager()
    assert [d.device for d in manager.devices()] == [d["device"] for d in acc.devices()]
    stats = manager.create_context(0).memory_stats()
    assert 0 <= stats.allocated <= stats.peak and stats.total > 0
    with pytest.raises(acc.DeviceError):
        manager.create_context(99)


def test_profiler_regions_ops_and_chrome_trace(tmp_path, capsys):
    with profiler.profile() as prof:
        prof.start("step")
        a = acc.ones((32, 32))
        acc.exp(acc.matmul(a, a))
        prof.end("step")
    names = {(e["cat"], e["name"]) for e in prof.events}
    assert {("region", "step"), ("op", "matmul"), ("op", "exp")} <= names
    prof.print_summary()
    assert "matmul" in capsys.readouterr().out
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(path)
    assert path.stat().st_mode & 0o777 == new_file_mode()
    trace = json.loads(path.read_text())["traceEvents"]
    assert any(e["ph"] == "X" and e["name"] == "matmul" and e["dur"] >= 0 for e in trace)
    assert any(e["ph"] == "C" for e in trace)
    acc.exp(a)  # outside the block: not recorded
    assert sum(e["name"] == "exp" for e in prof.events) == 1
    with pytest.raises(acc.ArgumentError):
        prof.end("never-started")


def test_data_loader_batches_every_row_once():
    x, y = np.arange(23.0).reshape(23, 1), np.arange(23)
    loader = nn.DataLoader(x, y, batch_size=5, shuffle=True, seed=0)
    seen = np.concatenate([yb.numpy() for _, yb in loader])
    assert len(loader) == 5 and sorted(seen) == list(range(23))
    assert len(nn.DataLoader(x, y, batch_size=5, drop_last=True)) == 4
    with pytest.raises(acc.ShapeError):
        nn.DataLoader(x, y[:3])
