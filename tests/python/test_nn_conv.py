"""Convolution and pooling layers: forward against float64 NumPy references (sliding windows over the
padded input), gradients against central differences, the builder's image networks, and bad input; on
the CPU and on opencl:0 where present."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import accelera as acc
from accelera import nn
from accelera.nn import functional as F

from test_nn import check_module_gradients

DEVICES = ["cpu"] + [d["device"] for d in acc.devices() if d["device"] == "opencl:0"]
RNG = np.random.default_rng(11)


def windows(x, kernel, stride, padding, dilation, pad_value=0.0):
    """(N, C, *out, *kernel) views of x's windows, in float64."""
    axes = len(kernel)
    pad = [(0, 0), (0, 0)] + [(p, p) for p in padding]
    xp = np.pad(x.astype(np.float64), pad, constant_values=pad_value)
    spans = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    w = sliding_window_view(xp, spans, axis=tuple(range(2, 2 + axes)))
    index = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride) + tuple(
        slice(None, None, d) for d in dilation)
    return w[index]


def conv_reference(x, w, b, stride, padding, dilation):
    axes = w.ndim - 2
    win = windows(x, w.shape[2:], stride, padding, dilation)  # (N, C, *out, *k)
    letters = "defg"[:axes]
    spatial = "hij"[:axes]
    out = np.einsum(f"nc{spatial}{letters},oc{letters}->no{spatial}", win, w.astype(np.float64))
    return out + b.reshape((1, -1) + (1,) * axes)


CONV_CASES = [
    # (x shape, weight shape, stride, padding, dilation)
    ((2, 3, 11), (4, 3, 3), (2,), (1,), (1,)),
    ((1, 1, 1, 1), (2, 1, 1, 1), (1, 1), (0, 0), (1, 1)),
    ((2, 3, 7, 5), (5, 3, 3, 3), (1, 1), (1, 1), (1, 1)),
    ((3, 2, 13, 11), (4, 2, 5, 3), (2, 3), (2, 0), (1, 2)),
    ((1, 2, 5, 6, 4), (3, 2, 2, 3, 2), (1, 2, 1), (1, 0, 1), (1, 1, 1)),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: f"{c[0]}x{c[1]}")
def test_conv_matches_numpy(device, case):
    x_shape, w_shape, stride, padding, dilation = case
    x, w, b = RNG.standard_normal(x_shape), RNG.standard_normal(w_shape), RNG.standard_normal(w_shape[0])
    expected = conv_reference(x, w, b, stride, padding, dilation)
    for dtype, rtol in (("float64", 1e-12), ("float32", 2e-5)):
        out = F.conv(acc.asarray(x.astype(dtype), device=device), acc.asarray(w.astype(dtype), device=device),
                     acc.asarray(b.astype(dtype), device=device), stride, padding, dilation)
        assert out.shape == expected.shape
        scale = np.abs(windows(x, w_shape[2:], stride, padding, dilation)).sum() * np.abs(w).max() / out.size
        np.testing.assert_allclose(out.numpy(), expected, rtol=rtol, atol=rtol * scale, err_msg=dtype)


# Layers are built inside the tests (from these factories): a layer made at collection would hold its
# tensors in the module's globals until the interpreter's teardown.
@pytest.mark.parametrize("make_layer, x_shape", [
    (lambda: nn.Conv1d(2, 3, 3, stride=2, padding=1, dtype="float64", seed=0), (2, 2, 7)),
    (lambda: nn.Conv2d(2, 3, (3, 2), stride=(1, 2), padding=1, dilation=(2, 1), dtype="float64", seed=1),
     (2, 2, 6, 5)),
    (lambda: nn.Conv3d(1, 2, 2, padding=(1, 0, 0), dtype="float64", seed=2), (1, 1, 3, 3, 4)),
], ids=["conv1d", "conv2d", "conv3d"])
def test_conv_layer_gradients(make_layer, x_shape):
    check_module_gradients(make_layer(), RNG.standard_normal(x_shape))


def distinct(*shape):
    """Values without ties, so that a window's maximum has one subgradient."""
    return RNG.permutation(np.arange(np.prod(shape), dtype=np.float64)).reshape(shape) * 0.37 - 3.0


POOL_CASES = [((2, 3, 8, 8), 2, None, 0), ((1, 2, 7, 9), 3, 2, 1), ((2, 1, 5, 5), (3, 2), 1, (1, 0))]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", POOL_CASES, ids=lambda c: f"{c[0]}k{c[1]}")
def test_pools_match_numpy(device, case):
    shape, kernel, stride, padding = case
    x = distinct(*shape)
    k = (kernel,) * 2 if isinstance(kernel, int) else kernel
    s = k if stride is None else (stride,) * 2
    p = (padding,) * 2 if isinstance(padding, int) else padding
    tensor = acc.asarray(x, device=device)
    np.testing.assert_array_equal(F.max_pool2d(tensor, kernel, stride, padding).numpy(),
                                  windows(x, k, s, p, (1, 1), -np.inf).max(axis=(-2, -1)))
    np.testing.assert_allclose(F.avg_pool2d(tensor, kernel, stride, padding).numpy(),
                               windows(x, k, s, p, (1, 1)).mean(axis=(-2, -1)), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("make_layer", [lambda: nn.MaxPool2d(2), lambda: nn.MaxPool2d(3, stride=2, padding=1),
                                        lambda: nn.AvgPool2d(2, 1), lambda: nn.MaxPool1d(3, 2),
                                        lambda: nn.AvgPool3d(2)],
                         ids=["max2d", "max2d_s2_p1", "avg2d_s1", "max1d_s2", "avg3d"])
def test_pool_gradients(make_layer):
    layer = make_layer()
    shape = {1: (2, 2, 9), 2: (2, 2, 6, 5), 3: (1, 2, 4, 4, 2)}[layer.axes]
    check_module_gradients(layer, distinct(*shape))


def test_max_pool_gradient_goes_to_the_first_maximum():
    x = acc.asarray(np.ones((1, 1, 2, 2))).requires_grad_()
    acc.sum(F.max_pool2d(x, 2)).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[[1.0, 0.0], [0.0, 0.0]]]])


MAX_POOL_CASES = [
    # (x shape, kernel, stride, padding, dilation): 1-D to 3-D, overlapping windows, padding, dilation
    ((2, 3, 11), 3, 2, 1, 1),
    ((1, 1, 1, 1), 1, None, 0, 1),
    ((2, 3, 8, 8), 2, None, 0, 1),
    ((1, 2, 7, 9), 3, 2, 1, 1),
    ((2, 2, 9, 7), (3, 2), (1, 2), (1, 1), (2, 1)),
    ((1, 2, 5, 6, 4), 2, (1, 2, 1), (1, 0, 1), 1),
    ((2, 2, 3, 6, 5), (1, 2, 2), None, 0, 1),  # a depth axis under a 2x2 window
]


def max_pool_reference(x, kernel, stride, padding, dilation):
    """float64 values, in-plane indices of the first maximum (NaN-free x) and the scatter that is the
    gradient, all from the windows' positions."""
    axes = x.ndim - 2
    k, s, p, d = (tuple(v) if hasattr(v, "__iter__") else (v,) * axes for v in (kernel, stride, padding, dilation))
    s = k if stride is None else s
    win = windows(x, k, s, p, d, -np.inf)  # (N, C, *out, *k)
    out = win.shape[2:2 + axes]
    flat = win.reshape(win.shape[:2 + axes] + (-1,))
    taps = np.argmax(flat, axis=-1)  # the first maximum; padding reads -inf and never wins a tie with x
    tap = np.unravel_index(taps, k)
    grid = np.meshgrid(*[np.arange(n) for n in out], indexing="ij")
    position = [grid[a] * s[a] - p[a] + tap[a] * d[a] for a in range(axes)]
    indices = np.ravel_multi_index(position, x.shape[2:])
    return flat.max(axis=-1), indices


def scatter_reference(g, indices, shape):
    dx = np.zeros((shape[0] * shape[1], int(np.prod(shape[2:]))))
    planes = np.repeat(np.arange(shape[0] * shape[1]), indices[0, 0].size)
    np.add.at(dx, (planes, indices.reshape(-1)), g.reshape(-1))
    return dx.reshape(shape)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", MAX_POOL_CASES, ids=lambda c: f"{c[0]}k{c[1]}")
def test_max_pool_op_matches_numpy(device, case):
    shape, kernel, stride, padding, dilation = case
    # Whole numbers from a narrow range: ties are common, and the first maximum must win as in PyTorch.
    x = RNG.integers(-3, 4, shape).astype(np.float64)
    want_values, want_indices = max_pool_reference(x, kernel, stride, padding, dilation)
    g = RNG.standard_normal(want_values.shape)
    want_dx = scatter_reference(g, want_indices, x.shape)
    for dtype in ("float64", "float32"):
        tx = acc.asarray(x.astype(dtype), device=device)
        values, indices = acc.max_pool(tx, kernel, stride, padding, dilation)
        assert indices.dtype == acc.int64 and values.dtype == dtype
        np.testing.assert_array_equal(values.numpy(), want_values)
        np.testing.assert_array_equal(indices.numpy(), want_indices)
        dx = acc.max_pool_backward(acc.asarray(g.astype(dtype), device=device), indices, x.shape, kernel, stride,
                                   padding, dilation)
        eps = 1e-6 if dtype == "float32" else 1e-12  # sums of several window gradients may cancel
        np.testing.assert_allclose(dx.numpy(), want_dx, rtol=eps, atol=eps * 8 * np.abs(g).max())


@pytest.mark.parametrize("device", DEVICES)
def test_max_pool_op_is_differentiable(device):
    x = acc.asarray(distinct(2, 3, 6, 5), device=device).requires_grad_()
    values, _ = acc.max_pool(x, 2, 1, 1)
    acc.sum(acc.square(values)).backward()
    want_values, want_indices = max_pool_reference(x.detach().numpy(), 2, 1, 1, 1)
    np.testing.assert_allclose(x.grad.numpy(), scatter_reference(2 * want_values, want_indices, x.shape), rtol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
def test_max_pool_nan_and_padding(device):
    x = np.array([[[[1.0, np.nan, 3.0, np.nan], [-np.inf, -np.inf, 2.0, 5.0]]]])
    values, indices = acc.max_pool(acc.asarray(x, device=device), 2)
    np.testing.assert_array_equal(values.numpy(), [[[[np.nan, np.nan]]]])
    np.testing.assert_array_equal(indices.numpy(), [[[[1, 3]]]])  # the first NaN of each window
    # An image of -inf still gets the index of the window's first in-image element; padding is never chosen.
    values, indices = acc.max_pool(acc.asarray(np.full((1, 1, 1, 3), -np.inf), device=device), (1, 2), 2, (0, 1))
    np.testing.assert_array_equal(values.numpy(), [[[[-np.inf, -np.inf]]]])
    np.testing.assert_array_equal(indices.numpy(), [[[[0, 1]]]])


@pytest.mark.parametrize("device", DEVICES)
def test_max_pool_backward_ignores_indices_outside_their_window(device):
    g = acc.asarray(np.array([[[[1.0, 2.0]]]]), device=device)
    # Window 0 reads positions 0, 1, 4, 5 of the 2x4 plane and window 1 reads 2, 3, 6, 7.
    indices = acc.asarray(np.array([[[[5, 1]]]]), device=device)  # 1 is not in window 1: it adds nothing
    dx = acc.max_pool_backward(g, indices, (1, 1, 2, 4), 2)
    np.testing.assert_array_equal(dx.numpy(), [[[[0, 0, 0, 0], [0, 1, 0, 0]]]])
    dx = acc.max_pool_backward(g, acc.asarray(np.array([[[[-1, 7]]]]), device=device), (1, 1, 2, 4), 2)
    np.testing.assert_array_equal(dx.numpy(), [[[[0, 0, 0, 0], [0, 0, 0, 2]]]])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_max_pool_half_formats(device, dtype):
    x = acc.asarray(RNG.standard_normal((2, 3, 6, 6)).astype(np.float32), device=device).astype(dtype)
    values, indices = acc.max_pool(x, 2)
    want_values, want_indices = acc.max_pool(x.astype("float32"), 2)
    assert values.dtype == dtype
    np.testing.assert_array_equal(values.astype("float32").numpy(), want_values.numpy())
    np.testing.assert_array_equal(indices.numpy(), want_indices.numpy())
    dx = acc.max_pool_backward(acc.ones_like(values), indices, x.shape, 2)
    assert dx.dtype == dtype and float(acc.sum(dx.astype("float32"))) == values.size


def test_max_pool_bad_input():
    x = np.ones((1, 2, 4, 4), np.float32)
    values, indices = acc.max_pool(x, 2)
    with pytest.raises(acc.DTypeError, match="int64"):
        acc.max_pool_backward(values, indices.astype("int32"), x.shape, 2)
    with pytest.raises(acc.ShapeError, match="pools to"):
        acc.max_pool_backward(values, indices, (1, 2, 6, 6), 2)
    with pytest.raises(acc.ShapeError, match="spans 5 elements"):
        acc.max_pool(x, 5)
    with pytest.raises(acc.DTypeError, match="int32"):
        acc.max_pool(x.astype(np.int32), 2)
    np.testing.assert_array_equal(x, 1.0)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: f"{c[0]}x{c[1]}")
def test_float32_conv_gradients_match_float64(device, case):
    """The float32 kernels (oneDNN's on the CPU) against the float64 ones (im2col and GEMM, themselves
    checked against central differences above), through autograd; the data's own gradient is asked for
    only in one of two calls, as for a first layer."""
    x_shape, w_shape, stride, padding, dilation = case
    x, w, b = RNG.standard_normal(x_shape), RNG.standard_normal(w_shape), RNG.standard_normal(w_shape[0])
    out_shape = conv_reference(x, w, b, stride, padding, dilation).shape
    seed = RNG.standard_normal(out_shape)
    grads = {}
    for dtype in ("float64", "float32"):
        for wants_x in (True, False):
            xt = acc.asarray(x.astype(dtype), device=device)
            if wants_x:
                xt = xt.requires_grad_()
            wt = acc.asarray(w.astype(dtype), device=device).requires_grad_()
            bt = acc.asarray(b.astype(dtype), device=device).requires_grad_()
            out = F.conv(xt, wt, bt, stride, padding, dilation)
            acc.sum(acc.multiply(out, acc.asarray(seed.astype(dtype), device=device))).backward()
            grads[dtype, wants_x] = [t.grad.numpy() for t in ((xt,) if wants_x else ()) + (wt, bt)]
            assert wants_x or xt.grad is None
    for wants_x in (True, False):
        for got, ref in zip(grads["float32", wants_x], grads["float64", wants_x]):
            scale = np.abs(ref).max() + 1.0
            np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5 * scale * np.sqrt(x.size))


def test_conv_gradient_is_reproducible():
    layer = nn.Conv2d(3, 4, 3, padding=1, seed=3)
    x = acc.asarray(RNG.standard_normal((4, 3, 9, 9)).astype(np.float32))
    grads = []
    for _ in range(2):
        layer.zero_grad()
        xr = x.detach().requires_grad_()
        acc.sum(acc.square(layer(xr))).backward()
        grads.append((xr.grad.numpy(), layer.weight.grad.numpy()))
    for a, b in zip(grads[0], grads[1]):
        np.testing.assert_array_equal(a, b)


def bars(n, size=8, seed=0):
    """Images of one horizontal (class 0) or vertical (class 1) bar on noise."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 0.3, (n, 1, size, size)).astype(np.float32)
    y = rng.integers(0, 2, n)
    at = rng.integers(1, size - 1, n)
    for i in range(n):
        if y[i] == 0:
            x[i, 0, at[i], :] += 1.5
        else:
            x[i, 0, :, at[i]] += 1.5
    return x, y


def cnn(device="cpu"):
    B, A = nn.LayerBuilder, nn.Activation
    return (nn.Network.with_input_size((1, 8, 8))
            .add_layer(B.conv2d(4, 3, padding="same").activation(A.ReLU))
            .add_layer(B.max_pool2d(2))
            .add_layer(B.conv2d(8, 3).activation(A.ReLU))
            .add_layer(B.avg_pool2d(2, stride=1))
            .add_layer(B.dense(2).activation(A.Softmax))
            .loss(nn.Loss.CategoricalCrossEntropy).build(device=device))


@pytest.mark.parametrize("device", DEVICES)
def test_builder_cnn_learns_bars(device):
    x, y = bars(256)
    net = cnn(device)
    assert [type(m).__name__ for m in net.model] == ["Conv2d", "ReLU", "MaxPool2d", "Conv2d", "ReLU", "AvgPool2d",
                                                      "Flatten", "Linear"]
    history = net.train(x, y, nn.TrainingConfig(batch_size=32, max_epochs=6, learning_rate=0.01, verbose=False))
    assert history.train_loss[-1] < 0.5 * history.train_loss[0]
    x_test, y_test = bars(128, seed=1)
    assert net.evaluate(x_test, y_test)["accuracy"] > 0.9
    assert net.predict(x_test.reshape(128, -1)).shape == (128, 2)  # flat rows are reshaped to (1, 8, 8)


def test_cnn_save_and_load_round_trip(tmp_path):
    x, y = bars(64)
    net = cnn()
    net.train(x, y, nn.TrainingConfig(max_epochs=1, verbose=False))
    net.save(tmp_path / "cnn.safetensors")
    loaded = nn.Network.load(tmp_path / "cnn.safetensors")
    assert loaded.input_shape == (1, 8, 8)
    np.testing.assert_array_equal(loaded.predict(x), net.predict(x))


def test_bad_input_names_the_layer():
    conv = nn.Conv2d(3, 4, 3)
    with pytest.raises(acc.ShapeError, match=r"Conv2d\(3, 4.*expects 3 input channels"):
        conv(acc.zeros((2, 1, 8, 8)))
    with pytest.raises(acc.ShapeError, match=r"Conv2d\(3, 4.*\(N, C, H, W\)"):
        conv(acc.zeros((2, 3, 8)))
    with pytest.raises(acc.ShapeError, match="spans 3 elements"):
        conv(acc.zeros((1, 3, 2, 8)))
    with pytest.raises(acc.ArgumentError, match="at most half the kernel"):
        F.max_pool2d(acc.zeros((1, 1, 4, 4)), 2, padding=2)
    with pytest.raises(acc.ArgumentError, match="kernel_size must be a positive integer"):
        nn.Conv2d(1, 1, 0)
    with pytest.raises(acc.ArgumentError, match="kernel_size must be an int or 2 ints"):
        nn.MaxPool2d((2, 2, 2))
    B = nn.LayerBuilder
    with pytest.raises(acc.ShapeError, match=r"layer 1 \(conv2d\) needs a \(C, H, W\) input"):
        nn.Network.with_input_size(64).add_layer(B.dense(8)).add_layer(B.conv2d(2)).add_layer(B.dense(2)).build()
    with pytest.raises(acc.ShapeError, match="layer 0 .* leaves no output"):
        nn.Network.with_input_size((1, 2, 2)).add_layer(B.conv2d(2, 3)).add_layer(B.dense(2)).build()
    with pytest.raises(acc.ShapeError, match="end it with a dense layer"):
        nn.Network.with_input_size((1, 4, 4)).add_layer(B.conv2d(2, 3)).build()
    net = cnn()
    with pytest.raises(acc.ShapeError, match=r"inputs of shape \(1, 8, 8\)"):
        net.predict(np.zeros((2, 63), np.float32))
