"""LSTM and GRU: forward against float64 NumPy references of the gate equations, every gradient against
central differences and against PyTorch's recurrent layers (same weights), stacked, bidirectional,
batch-first and unbatched inputs, the builder's recurrent layers, training, and bad input; on the CPU and
on opencl:0 where present."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as acc
from accelera import nn

from test_nn import check_module_gradients

DEVICES = ["cpu"] + [d["device"] for d in acc.devices() if d["device"] == "opencl:0"]
RNG = np.random.default_rng(17)


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def lstm_reference(x, h, c, w_ih, w_hh, b_ih, b_hh, reverse=False):
    """One LSTM layer in float64 over x (T, B, I): the outputs (T, B, H) and the last (h, c)."""
    hidden, out = w_hh.shape[1], [None] * len(x)
    for t in (range(len(x) - 1, -1, -1) if reverse else range(len(x))):
        gates = x[t] @ w_ih.T + b_ih + h @ w_hh.T + b_hh
        i, f, g, o = (gates[:, k * hidden:(k + 1) * hidden] for k in range(4))
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = out[t] = sigmoid(o) * np.tanh(c)
    return np.stack(out), h, c


def gru_reference(x, h, w_ih, w_hh, b_ih, b_hh, reverse=False):
    hidden, out = w_hh.shape[1], [None] * len(x)
    for t in (range(len(x) - 1, -1, -1) if reverse else range(len(x))):
        gx, gh = x[t] @ w_ih.T + b_ih, h @ w_hh.T + b_hh
        r = sigmoid(gx[:, :hidden] + gh[:, :hidden])
        z = sigmoid(gx[:, hidden:2 * hidden] + gh[:, hidden:2 * hidden])
        n = np.tanh(gx[:, 2 * hidden:] + r * gh[:, 2 * hidden:])
        h = out[t] = (1 - z) * n + z * h
    return np.stack(out), h


def stacked_reference(module, x, h0, c0=None):
    """The whole (stacked, maybe bidirectional) layer in float64 from the module's own weights."""
    directions = 2 if module.bidirectional else 1
    finals_h, finals_c = [], []
    for layer in range(module.num_layers):
        outputs = []
        for d in range(directions):
            suffix = f"_l{layer}" + ("_reverse" if d else "")
            weights = [getattr(module, f"{kind}{suffix}").numpy().astype(np.float64)
                       for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
            k = layer * directions + d
            if c0 is None:
                out, h = gru_reference(x, h0[k], *weights, reverse=d == 1)
            else:
                out, h, c = lstm_reference(x, h0[k], c0[k], *weights, reverse=d == 1)
                finals_c.append(c)
            outputs.append(out)
            finals_h.append(h)
        x = np.concatenate(outputs, axis=2)
    return x, np.stack(finals_h), (np.stack(finals_c) if finals_c else None)


CONFIGS = [  # (num_layers, bidirectional, batch_first)
    (1, False, False), (2, True, False), (3, False, True), (2, True, True),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"L{c[0]}{'-bi' if c[1] else ''}{'-bf' if c[2] else ''}")
def test_forward_matches_float64_reference(device, kind, config):
    layers, bidirectional, batch_first = config
    length, batch, features, hidden = 7, 3, 5, 4  # a prime length, odd sizes
    directions = 2 if bidirectional else 1
    x = RNG.standard_normal((length, batch, features))
    h0 = RNG.standard_normal((layers * directions, batch, hidden))
    c0 = RNG.standard_normal(h0.shape)
    for dtype, tol in (("float64", 1e-12), ("float32", 2e-5)):
        module = getattr(nn, kind)(features, hidden, layers, batch_first=batch_first, bidirectional=bidirectional,
                                   device=device, dtype=dtype, seed=5)
        xs = np.swapaxes(x, 0, 1) if batch_first else x
        xa = acc.asarray(xs.astype(dtype), device=device)
        ha, ca = (acc.asarray(s.astype(dtype), device=device) for s in (h0, c0))
        if kind == "LSTM":
            out, (h_n, c_n) = module(xa, (ha, ca))
            expected, expected_h, expected_c = stacked_reference(module, x, h0, c0)
            np.testing.assert_allclose(c_n.numpy(), expected_c, rtol=tol, atol=tol)
        else:
            out, h_n = module(xa, ha)
            expected, expected_h, _ = stacked_reference(module, x, h0)
        if batch_first:
            expected = np.swapaxes(expected, 0, 1)
        assert out.shape == expected.shape and out.dtype == dtype
        np.testing.assert_allclose(out.numpy(), expected, rtol=tol, atol=tol, err_msg=dtype)
        np.testing.assert_allclose(h_n.numpy(), expected_h, rtol=tol, atol=tol, err_msg=dtype)


class OutputsAndFinals(nn.Module):
    """A recurrent layer whose outputs, final hidden state and (LSTM) final cell state all feed the loss,
    from an initial state that is itself a parameter: every gradient path is checked."""

    def __init__(self, rnn, h0, c0=None):
        super().__init__()
        self.rnn, self.h0 = rnn, nn.Parameter(h0)
        self.c0 = None if c0 is None else nn.Parameter(c0)

    def forward(self, x):
        if self.c0 is None:
            out, h_n = self.rnn(x, self.h0)
            finals = [h_n]
        else:
            out, (h_n, c_n) = self.rnn(x, (self.h0, self.c0))
            finals = [h_n, c_n]
        return acc.concat([acc.reshape(t, (-1,)) for t in [out] + finals])


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("config", [(1, False, False), (2, True, True)], ids=["L1", "L2-bi-bf"])
def test_gradients_match_central_differences(kind, config):
    layers, bidirectional, batch_first = config
    length, batch, features, hidden = 3, 2, 3, 2
    rnn = getattr(nn, kind)(features, hidden, layers, batch_first=batch_first, bidirectional=bidirectional,
                            dtype="float64", seed=3)
    states = layers * (2 if bidirectional else 1), batch, hidden
    module = OutputsAndFinals(rnn, RNG.standard_normal(states),
                              RNG.standard_normal(states) if kind == "LSTM" else None)
    shape = (batch, length, features) if batch_first else (length, batch, features)
    check_module_gradients(module, RNG.standard_normal(shape))


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_composed_cells_match_the_fused_ones(kind, monkeypatch):
    """Where a device has no fused cell (Notes [Fused LSTM cell], [Fused GRU cell]), each step's element-wise
    part is composed of namespace ops: the same outputs and gradients as the fused kernels (float64)."""
    from accelera.nn import _recurrent
    length, batch, features, hidden = 5, 3, 4, 6
    x = RNG.standard_normal((length, batch, features))
    h0 = RNG.standard_normal((2, batch, hidden))
    results = []
    for fused in (True, False):
        monkeypatch.setattr(_recurrent, "_has_fused_cell", lambda t, op="lstm_cell", fused=fused: fused)
        rnn = getattr(nn, kind)(features, hidden, bidirectional=True, dtype="float64", seed=2)
        xa, ha = acc.asarray(x).requires_grad_(True), acc.asarray(h0).requires_grad_(True)
        out, finals = rnn(xa, (ha, acc.asarray(h0)) if kind == "LSTM" else ha)
        h_n = finals[0] if kind == "LSTM" else finals
        (acc.sum(out * out) + acc.sum(h_n)).backward()
        results.append([out.numpy(), xa.grad.numpy(), ha.grad.numpy()] + [p.grad.numpy() for p in rnn.parameters()])
    for fused, composed in zip(*results):
        np.testing.assert_allclose(fused, composed, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_matches_pytorch_forward_and_gradients(device, kind):
    torch = pytest.importorskip("torch")
    length, batch, features, hidden, layers = 6, 4, 5, 3, 2
    ours = getattr(nn, kind)(features, hidden, layers, bidirectional=True, dtype="float64", device=device, seed=9)
    theirs = getattr(torch.nn, kind)(features, hidden, layers, bidirectional=True).double()
    with torch.no_grad():
        for name, p in ours.named_parameters():
            getattr(theirs, name).copy_(torch.from_numpy(p.numpy()))
    x = RNG.standard_normal((length, batch, features))
    h0 = RNG.standard_normal((2 * layers, batch, hidden))
    c0 = RNG.standard_normal(h0.shape)
    xa, ha, ca = (acc.asarray(a, device=device).requires_grad_(True) for a in (x, h0, c0))
    xt, ht, ct = (torch.from_numpy(a).requires_grad_(True) for a in (x, h0, c0))
    if kind == "LSTM":
        (out, (h_n, c_n)), (out_t, (h_n_t, c_n_t)) = ours(xa, (ha, ca)), theirs(xt, (ht, ct))
        pairs = [(out, out_t), (h_n, h_n_t), (c_n, c_n_t)]
    else:
        (out, h_n), (out_t, h_n_t) = ours(xa, ha), theirs(xt, ht)
        pairs = [(out, out_t), (h_n, h_n_t)]
    loss, loss_t = 0.0, 0.0
    for a, t in pairs:
        w = RNG.standard_normal(tuple(t.shape))
        np.testing.assert_allclose(a.numpy(), t.detach().numpy(), rtol=1e-12, atol=1e-13)
        loss = loss + acc.sum(a * acc.asarray(w, device=device))
        loss_t = loss_t + (t * torch.from_numpy(w)).sum()
    loss.backward()
    loss_t.backward()
    grads = [(xa, xt), (ha, ht)] + ([(ca, ct)] if kind == "LSTM" else [])
    grads += [(p, getattr(theirs, name)) for name, p in ours.named_parameters()]
    for a, t in grads:
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_float32_layers_match_pytorch_in_float64(kind, bias, device):
    """float32, where the CPU runs each layer and direction as one sequence kernel (oneDNN's RNN primitives;
    accelera.supports says where): outputs and every gradient against PyTorch in float64 with the same
    weights, stacked, bidirectional, batch-first, with and without biases."""
    torch = pytest.importorskip("torch")
    length, batch, features, hidden, layers = 9, 5, 7, 11, 2
    ours = getattr(nn, kind)(features, hidden, layers, bias=bias, bidirectional=True, batch_first=True,
                             dtype="float32", device=device, seed=4)
    theirs = getattr(torch.nn, kind)(features, hidden, layers, bias=bias, bidirectional=True,
                                     batch_first=True).double()
    with torch.no_grad():
        for name, p in ours.named_parameters():
            getattr(theirs, name).copy_(torch.from_numpy(p.numpy().astype(np.float64)))
    x = RNG.standard_normal((batch, length, features)).astype(np.float32)
    h0 = RNG.standard_normal((2 * layers, batch, hidden)).astype(np.float32)
    c0 = RNG.standard_normal(h0.shape).astype(np.float32)
    xa, ha, ca = (acc.asarray(a, device=device).requires_grad_(True) for a in (x, h0, c0))
    xt, ht, ct = (torch.from_numpy(a.astype(np.float64)).requires_grad_(True) for a in (x, h0, c0))
    if kind == "LSTM":
        (out, (h_n, c_n)), (out_t, (h_n_t, c_n_t)) = ours(xa, (ha, ca)), theirs(xt, (ht, ct))
        pairs, grads = [(out, out_t), (h_n, h_n_t), (c_n, c_n_t)], [(xa, xt), (ha, ht), (ca, ct)]
    else:
        (out, h_n), (out_t, h_n_t) = ours(xa, ha), theirs(xt, ht)
        pairs, grads = [(out, out_t), (h_n, h_n_t)], [(xa, xt), (ha, ht)]
    loss, loss_t = 0.0, 0.0
    for a, t in pairs:
        w = RNG.standard_normal(tuple(t.shape))
        np.testing.assert_allclose(a.numpy(), t.detach().numpy(), rtol=0, atol=2e-5)
        loss = loss + acc.sum(a * acc.asarray(w.astype(np.float32), device=device))
        loss_t = loss_t + (t * torch.from_numpy(w)).sum()
    loss.backward()
    loss_t.backward()
    grads += [(p, getattr(theirs, name)) for name, p in ours.named_parameters()]
    for a, t in grads:
        expected = t.grad.numpy()
        np.testing.assert_allclose(a.grad.numpy(), expected, rtol=0, atol=2e-5 * max(1.0, np.abs(expected).max()))
    if bias:  # each bias has its own gradient tensor, though a kernel may compute one for both
        params = dict(ours.named_parameters())
        assert params["bias_ih_l0"].grad is not params["bias_hh_l0"].grad


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_unbatched_input_and_zero_initial_state(kind):
    rnn = getattr(nn, kind)(4, 3, 2, dtype="float64", seed=1)
    x = RNG.standard_normal((5, 4))
    out, finals = rnn(acc.asarray(x))
    batched, batched_finals = rnn(acc.asarray(x[:, None, :]))
    assert out.shape == (5, 3)
    np.testing.assert_array_equal(out.numpy(), batched.numpy()[:, 0, :])
    h_n = finals[0] if kind == "LSTM" else finals
    assert h_n.shape == (2, 3)
    zeros = np.zeros((2, 1, 3))
    expected, _, _ = stacked_reference(rnn, x[:, None, :], zeros, zeros if kind == "LSTM" else None)
    np.testing.assert_allclose(out.numpy(), expected[:, 0, :], rtol=1e-12, atol=1e-12)


def test_dropout_acts_between_layers_in_training_only():
    rnn = nn.LSTM(4, 8, 2, dropout=0.5, dtype="float64", seed=2)
    x = acc.asarray(RNG.standard_normal((6, 3, 4)))
    rnn.eval()
    first, _ = rnn(x)
    second, _ = rnn(x)
    np.testing.assert_array_equal(first.numpy(), second.numpy())
    rnn.train()
    trained, _ = rnn(x)
    assert not np.allclose(trained.numpy(), first.numpy())
    single = nn.GRU(4, 8, 1, dropout=0.5, dtype="float64", seed=2)  # one layer: nothing between layers
    a, _ = single(x)
    single.eval()
    b, _ = single(x)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def sequence_task(n, length=12, seed=0):
    """Label = the sign of the first step's first feature, read through distracting noise at every later
    step: solvable only by carrying state across the whole sequence."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, length, 3)).astype(np.float32)
    return x, (x[:, 0, 0] > 0).astype(np.int64)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_builder_recurrent_network_learns_a_long_range_task(device, kind):
    x, y = sequence_task(1200)
    network = (nn.Network.with_input_size((12, 3))
               .add_layer(getattr(nn.LayerBuilder, kind)(16))
               .add_layer(nn.LayerBuilder.dense(2).activation(nn.Activation.Softmax))
               .loss(nn.Loss.CategoricalCrossEntropy).build(device))
    network.train(x[:1000], y[:1000], nn.TrainingConfig(batch_size=50, max_epochs=20, learning_rate=0.01,
                                                         optimizer="adam", verbose=False, seed=0))
    assert network.evaluate(x[1000:], y[1000:])["accuracy"] > 0.9  # chance is 0.5; 0.955-1.0 over seeds 0-2


def test_builder_return_sequences_save_and_load(tmp_path):
    network = (nn.Network.with_input_size((5, 2))
               .add_layer(nn.LayerBuilder.gru(4, return_sequences=True))
               .add_layer(nn.LayerBuilder.lstm(3))
               .add_layer(nn.LayerBuilder.dense(2).activation(nn.Activation.Softmax))
               .loss(nn.Loss.CategoricalCrossEntropy).build("cpu"))
    x = RNG.standard_normal((4, 5, 2)).astype(np.float32)
    before = network.predict(x)
    network.save(tmp_path / "rnn.safetensors")
    loaded = nn.Network.load(tmp_path / "rnn.safetensors")
    np.testing.assert_array_equal(loaded.predict(x), before)
    with pytest.raises(acc.ShapeError, match=r"layer 0 \(lstm\) needs a \(length, features\) input"):
        nn.Network.with_input_size(10).add_layer(nn.LayerBuilder.lstm(4)).build("cpu")


def test_bad_input_names_the_layer():
    lstm = nn.LSTM(4, 3)
    with pytest.raises(acc.ShapeError, match=r"LSTM\(4, 3\) expects \(length, batch, features\).*got shape \(5, 2, 6\)"):
        lstm(acc.zeros((5, 2, 6)))
    with pytest.raises(acc.ShapeError, match=r"LSTM\(4, 3\): h_0 must have shape \(1, 2, 3\)"):
        lstm(acc.zeros((5, 2, 4)), (acc.zeros((1, 3, 3)), acc.zeros((1, 2, 3))))
    with pytest.raises(acc.ArgumentError, match="a pair"):
        lstm(acc.zeros((5, 2, 4)), acc.zeros((1, 2, 3)))
    with pytest.raises(acc.ShapeError, match="at least one step"):
        lstm(acc.zeros((0, 2, 4)))
    with pytest.raises(acc.ShapeError, match=r"GRU\(4, 3\) expects \(batch, length, features\)"):
        nn.GRU(4, 3, batch_first=True)(acc.zeros((2, 5)))
    with pytest.raises(acc.ArgumentError, match="takes a Tensor"):
        nn.GRU(4, 3)(np.zeros((5, 4)))
    for bad in (-0.1, 1.0, "0.5"):
        with pytest.raises(acc.ArgumentError, match="dropout"):
            nn.GRU(4, 3, 2, dropout=bad)
    with pytest.raises(acc.ArgumentError, match="hidden_size"):
        nn.LSTM(4, 0)
