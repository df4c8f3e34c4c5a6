"""The fused neural-network ops against NumPy float64 on every device, finite-difference gradient checks,
bad input, the ``accelera.backends`` API and the kernel managers."""

from __future__ import annotations

import math

import numpy as np
import pytest

import accelera as ac
from accelera.backends import get_backend
from accelera.backends.cuda_kernels import get_cuda_kernel_manager
from accelera.backends.opencl_kernels import get_opencl_kernel_manager
from helpers import inputs_unchanged

DEVICES = [d["device"] for d in ac.devices()]
# Float64 results must match to 1e-10 (relative to the terms combined); float32 to a few 1e-6.
TOL = {np.float32: 2e-5, np.float64: 1e-10}
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def gelu_ref(x, approximate="none"):
    x = np.asarray(x, dtype=np.float64)
    if approximate == "tanh":
        return x / (1.0 + np.exp(-2.0 * math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * _erfc(-x / math.sqrt(2.0))


def softmax_ref(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def layer_norm_ref(x, w, b, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mu = x.mean(-1, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps)
    y = (x - mu) * rstd
    return y * (1.0 if w is None else w) + (0.0 if b is None else b), mu[..., 0], rstd[..., 0]


def attention_ref(q, k, v, scale=None, causal=False):
    q, k, v = (np.asarray(t, dtype=np.float64) for t in (q, k, v))
    lq, lk, d = q.shape[-2], k.shape[-2], q.shape[-1]
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    if causal:
        visible = np.arange(lk)[None, :] <= np.arange(lq)[:, None] + (lk - lq)
        s = np.where(visible, s, -np.inf)
    m = s.max(-1, keepdims=True)
    m_safe = np.where(np.isfinite(m), m, 0.0)
    p = np.exp(s - m_safe)
    l = p.sum(-1, keepdims=True)
    out = np.where(l > 0, (p / np.where(l > 0, l, 1.0)) @ v, 0.0)
    lse = np.where(l[..., 0] > 0, (m_safe + np.log(np.where(l > 0, l, 1.0)))[..., 0], -np.inf)
    return out, lse


def close(got, want, dtype, scale=1.0):
    got = np.asarray(got.numpy() if isinstance(got, ac.Tensor) else got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=TOL[dtype], atol=TOL[dtype] * scale)


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1, 1023), (7, 13), (1,), (3, 1, 127)])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_and_backward(device, dtype, shape, approximate, rng):
    x = rng.uniform(-8, 8, size=shape).astype(dtype)
    g = rng.uniform(-1, 1, size=shape).astype(dtype)
    with inputs_unchanged(x, g):
        y = ac.gelu(ac.asarray(x, device=device), approximate=approximate)
        dx = ac.gelu_backward(g, ac.asarray(x, device=device), approximate=approximate)
    assert y.device == device and y.dtype == dtype
    close(y, gelu_ref(x, approximate), dtype, scale=1e-3)
    h = 1e-6  # central differences of the float64 reference
    fd = (gelu_ref(x.astype(np.float64) + h, approximate) - gelu_ref(x.astype(np.float64) - h, approximate)) / (2 * h)
    np.testing.assert_allclose(dx.numpy(), g * fd, rtol=1e-5 if dtype == np.float32 else 1e-7, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_linear_gelu_and_bias_gelu(device, dtype, rng):
    x = rng.standard_normal((2, 17, 31)).astype(dtype)
    w = rng.standard_normal((13, 31)).astype(dtype) / 4
    b = rng.standard_normal(13).astype(dtype)
    want = gelu_ref(x.astype(np.float64) @ w.T.astype(np.float64) + b, "tanh")
    got = ac.linear_gelu(ac.asarray(x, device=device), w, b, approximate="tanh")
    assert got.shape == (2, 17, 13)
    close(got, want, dtype, scale=10)
    close(ac.linear_gelu(ac.asarray(x, device=device), w), gelu_ref(x.astype(np.float64) @ w.T), dtype, scale=10)
    close(ac.bias_gelu(ac.asarray(x, device=device), x[0, 0]), gelu_ref(x + x[0, 0].astype(np.float64)), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1, 1023), (13, 31), (5, 1)])
def test_layer_norm(device, dtype, shape, rng):
    x = rng.uniform(-2, 4, size=shape).astype(dtype)
    w = rng.uniform(0.5, 2, size=shape[-1]).astype(dtype)
    b = rng.standard_normal(shape[-1]).astype(dtype)
    out, mean, rstd = ac.layer_norm(ac.asarray(x, device=device), w, b, eps=1e-5, return_stats=True)
    want, mu, rs = layer_norm_ref(x, w, b)
    close(out, want, dtype, scale=5)
    close(mean, mu, dtype, scale=5)
    close(rstd, rs, dtype, scale=float(np.max(rs)))
    seed = get_backend(device)
    close(seed.layernorm(x, w, b), want, dtype, scale=5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax_and_log_softmax(device, dtype, axis, rng):
    x = rng.uniform(-40, 40, size=(7, 129)).astype(dtype)
    want = softmax_ref(x, axis)
    close(ac.softmax(ac.asarray(x, device=device), axis=axis), want, dtype)
    close(ac.log_softmax(ac.asarray(x, device=device), axis=axis), np.log(want), dtype, scale=100)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_log_softmax_of_huge_values_keeps_the_log_of_the_sum(device, dtype):
    # x - (max + log(sum)) would lose log(sum) to the rounding of max + log(sum).
    huge = np.finfo(dtype).max / 2
    x = np.array([[huge, huge, huge, huge], [huge, huge - huge / 2**10, 0, -huge]], dtype=dtype)
    got = np.asarray(ac.log_softmax(ac.asarray(x, device=device)))
    assert got[0] == pytest.approx([-np.log(4)] * 4, rel=1e-6)
    assert got[1][0] == pytest.approx(0.0, abs=1e-6)
    assert np.all(np.isneginf(got[1][1:]) | (got[1][1:] < -1e30))


def _seq_cases():
    pairs = [(1, 1), (239, 1), (113, 203), (203, 113)]
    dims = [32, 64, 80, 128, 256]
    return [(lq, lk, dims[(i * 2 + c) % 5], bool(c)) for i, (lq, lk) in enumerate(pairs) for c in (0, 1)]


@pytest.mark.parametrize("lq,lk,d,causal", _seq_cases())
def test_attention_matches_numpy(device, lq, lk, d, causal, rng):
    dtype = np.float32
    q = rng.standard_normal((1, 2, lq, d)).astype(dtype)
    k = rng.standard_normal((1, 2, lk, d)).astype(dtype)
    v = rng.standard_normal((1, 2, lk, d)).astype(dtype)
    out, lse = ac.attention(ac.asarray(q, device=device), k, v, causal=causal, return_lse=True)
    want, want_lse = attention_ref(q, k, v, causal=causal)
    close(out, want, dtype)
    got_lse = lse.numpy()
    assert np.array_equal(np.isinf(got_lse), np.isinf(want_lse))
    close(np.where(np.isinf(got_lse), 0, got_lse), np.where(np.isinf(want_lse), 0, want_lse), dtype, scale=10)


def test_attention_long_sequences_on_cpu(rng):
    q = rng.standard_normal((1, 1, 1023, 64)).astype(np.float32)
    kv = rng.standard_normal((1, 1, 1024, 64)).astype(np.float32)
    for causal in (False, True):
        close(ac.attention(q, kv, kv, causal=causal), attention_ref(q, kv, kv, causal=causal)[0], np.float32)


def _fd_grad(f, x, h=1e-6):
    """Central finite differences of the scalar f at every element of the float64 array x."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        saved = x[i]
        x[i] = saved + h
        up = f()
        x[i] = saved - h
        down = f()
        x[i] = saved
        g[i] = (up - down) / (2 * h)
    return g


def test_gradients_against_finite_differences(device, rng):
    x = rng.standard_normal((3, 6))
    w, b, r = rng.uniform(0.5, 2, 6), rng.standard_normal(6), rng.standard_normal((3, 6))
    on = lambda a: ac.asarray(a, device=device)  # noqa: E731
    # layer_norm
    out, mean, rstd = ac.layer_norm(on(x), w, b, return_stats=True)
    dx, dw, db = ac.layer_norm_backward(r, on(x), mean, rstd, w, b)
    loss = lambda: float((ac.layer_norm(on(x), w, b).numpy() * r).sum())  # noqa: E731
    np.testing.assert_allclose(dx.numpy(), _fd_grad(loss, x), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(dw.numpy(), _fd_grad(loss, w), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(db.numpy(), _fd_grad(loss, b), rtol=1e-6, atol=1e-7)
    # softmax and log_softmax along each axis
    for axis in (0, 1):
        for fwd, bwd in ((ac.softmax, ac.softmax_backward), (ac.log_softmax, ac.log_softmax_backward)):
            y = fwd(on(x), axis=axis)
            got = bwd(r, y, axis=axis).numpy()
            want = _fd_grad(lambda: float((fwd(on(x), axis=axis).numpy() * r).sum()), x)  # noqa: B023
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    # attention, causal with q_len != kv_len
    q, k, v = rng.standard_normal((1, 1, 5, 4)), rng.standard_normal((1, 1, 7, 4)), rng.standard_normal((1, 1, 7, 4))
    ro = rng.standard_normal((1, 1, 5, 4))
    for causal in (False, True):
        out, lse = ac.attention(on(q), k, v, scale=0.7, causal=causal, return_lse=True)
        dq, dk, dv = ac.attention_backward(ro, on(q), k, v, out, lse, scale=0.7, causal=causal)
        loss = lambda: float((ac.attention(on(q), k, v, scale=0.7, causal=causal).numpy() * ro).sum())  # noqa: E731,B023
        for got, arr in ((dq, q), (dk, k), (dv, v)):
            np.testing.assert_allclose(got.numpy(), _fd_grad(loss, arr), rtol=1e-6, atol=1e-7)


class _Producer:
    """A minimal DLPack producer (as CuPy or PyTorch tensors are): only __dlpack__ and __dlpack_device__."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_producers_are_read_in_place(rng):
    x = rng.standard_normal((4, 9)).astype(np.float32)
    close(ac.gelu(_Producer(x)), gelu_ref(x), np.float32)
    close(ac.softmax(_Producer(x)), softmax_ref(x), np.float32)


def test_bad_input_raises_typed_errors_and_leaves_inputs_unchanged(rng):
    x = rng.standard_normal((4, 8)).astype(np.float32)
    w = rng.standard_normal((5, 8)).astype(np.float64)
    q = rng.standard_normal((1, 1, 3, 8)).astype(np.float32)
    with inputs_unchanged(x, w, q):
        with pytest.raises(ac.DTypeError, match="int32"):
            ac.gelu(x.astype(np.int32))
        with pytest.raises(ac.ArgumentError, match="tanh"):
            ac.gelu(x, approximate="fast")
        with pytest.raises(ac.DTypeError, match="float64"):
            ac.linear_gelu(x, w)
        with pytest.raises(ac.ShapeError, match="in_features"):
            ac.linear_gelu(x, w.T.astype(np.float32))
        with pytest.raises(ac.ShapeError, match="weight"):
            ac.layer_norm(x, np.ones(3, np.float32))
        with pytest.raises(ac.ArgumentError, match="axis"):
            ac.softmax(x, axis=5)
        with pytest.raises(ac.ShapeError, match="4-D"):
            ac.attention(x, x, x)
        with pytest.raises(ac.ShapeError, match="head_dim"):
            ac.attention(q, q[..., :4], q[..., :4])
        with pytest.raises(ac.NotSupportedError, match="float16"):
            ac.gelu(x.astype(np.float16))
        with pytest.raises(ac.ArgumentError, match="block_size"):
            get_backend("cpu").flash_attention(q, q, q, block_size=0)


def test_get_backend_reports_why_a_backend_is_missing():
    status = ac._core._backend_status("cuda")
    if status["available"]:  # a CUDA build on a machine with a GPU
        assert get_backend("cuda").is_available
        assert get_cuda_kernel_manager().is_available()
    else:
        with pytest.raises(ac.DeviceError, match="built without CUDA support|no CUDA device found") as err:
            get_backend("cuda")
        assert "cuda" in str(err.value)
        manager = get_cuda_kernel_manager()
        assert not manager.is_available() and manager.compiled_kernels == []
        assert "CUDA" in manager.reason
    with pytest.raises(ac.ArgumentError, match="unknown backend"):
        get_backend("tpu")


def test_backend_objects_and_kernel_managers(rng):
    x = rng.standard_normal((64, 48)).astype(np.float32)
    cpu = get_backend("cpu")
    assert cpu.is_available and cpu.has_custom_kernels and cpu.compiled_kernels == []
    close(cpu.gelu(x), gelu_ref(x), np.float32)
    w = rng.standard_normal((16, 48)).astype(np.float32) / 8
    close(cpu.fused_linear_gelu(x, w, np.zeros(16, np.float32)), gelu_ref(x.astype(np.float64) @ w.T), np.float32,
          scale=10)
    q = rng.standard_normal((1, 2, 9, 32)).astype(np.float32)
    close(cpu.flash_attention(q, q, q, scale=0.2, block_size=64, causal=True),
          attention_ref(q, q, q, scale=0.2, causal=True)[0], np.float32)
    for name in ("gelu", "softmax", "layernorm", "fused_linear_gelu"):
        assert cpu.benchmark_kernel(name, x, num_runs=2) > 0
    assert cpu.benchmark_kernel("flash_attention", q, num_runs=1) > 0
    with pytest.raises(ac.ArgumentError, match="unknown kernel"):
        cpu.benchmark_kernel("conv", x)
    manager = get_opencl_kernel_manager()
    if "opencl" in ac.backends.available_backends():
        opencl = get_backend("opencl")
        assert opencl.gelu(x).device == "opencl:0"
        assert manager.is_available() and any(k.startswith("gelu|") for k in manager.compiled_kernels)
    else:
        assert not manager.is_available() and manager.reason
