"""Fused neural-network ops: GELU, linear + GELU, LayerNorm, softmax and flash attention, with backward passes.

Every function takes Accelera tensors, NumPy arrays or any DLPack producer (PyTorch, CuPy, JAX: zero-copy
on their own device) and returns Accelera tensors on the device of the first tensor argument (array-likes
join it there). Each runs one fused kernel of that device's backend; a backend without the kernel raises
``NotSupportedError`` naming it, never a slower substitute. float32 and float64 everywhere; float16 and
bfloat16 where the backend computes them (CUDA). All operands share one dtype.
"""

from __future__ import annotations

from . import _core
from ._args import flag, integer, real
from ._convert import asarray
from ._core import ArgumentError, DTypeError, Tensor

_APPROXIMATIONS = ("none", "tanh")


def _operands(*values, optional: int = 0):
    """Tensors for the given operands, array-likes placed on the first tensor's device. The last
    ``optional`` operands may be None (and stay None); the others may not."""
    for i, v in enumerate(values[:len(values) - optional]):
        if v is None:
            raise DTypeError(f"operand {i + 1} is None: an array is needed")
    device = next((v.device for v in values if isinstance(v, Tensor)), None)
    return [v if v is None or isinstance(v, Tensor) else asarray(v, device=device) for v in values]


def _approximate(approximate) -> str:
    if not isinstance(approximate, str) or approximate not in _APPROXIMATIONS:
        raise ArgumentError(f"approximate must be 'none' (exact, erf) or 'tanh', got {approximate!r}")
    return approximate


def _axis(axis) -> int:
    return integer(axis, "axis")


def _scale(scale):
    return None if scale is None else real(scale, "scale")


def gelu(x, approximate: str = "none") -> Tensor:
    """GELU(x) element-wise. ``approximate="none"``: exact, x * Phi(x) through erf; ``"tanh"``: the
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) form (GPT-2, cuBLASLt's epilogue).

    Edge values, the same on every backend: gelu(-inf) = 0 (the limit), gelu(inf) = inf, nan stays nan."""
    (x,) = _operands(x)
    return _core.gelu(x, _approximate(approximate))


def gelu_backward(grad, x, approximate: str = "none") -> Tensor:
    """Gradient of :func:`gelu` with respect to x: ``grad * GELU'(x)``."""
    grad, x = _operands(grad, x)
    return _core.gelu_backward(grad, x, _approximate(approximate))


def bias_gelu(x, bias, approximate: str = "none") -> Tensor:
    """GELU(x + bias) in one pass; ``bias`` has x's last extent and is broadcast over the other axes."""
    x, bias = _operands(x, bias)
    return _core.bias_gelu(x, bias, _approximate(approximate))


def linear_gelu(x, weight, bias=None, approximate: str = "none") -> Tensor:
    """GELU(x @ weight.T + bias): x (..., in), weight (out, in) as in a linear layer, bias (out,) or None.

    The bias and GELU are one fused pass over the GEMM's output (CPU: after OpenBLAS's GEMM; OpenCL: after
    CLBlast's, in place), never separate bias and activation passes."""
    x, weight, bias = _operands(x, weight, bias, optional=1)
    return _core.linear_gelu(x, weight, bias, _approximate(approximate))


def layer_norm(x, weight=None, bias=None, eps: float = 1e-5, *, return_stats: bool = False):
    """LayerNorm over the last axis: (x - mean) / sqrt(var + eps) * weight + bias (biased variance).

    weight and bias are (n,) or None. With ``return_stats=True`` returns ``(out, mean, rstd)``, where mean
    and rstd (1 / sqrt(var + eps), float32 for float32 input) have x's shape without its last axis: the
    inputs of :func:`layer_norm_backward`.

    NaN or inf in a row makes that row nan. Rows of float32 values beyond about 1e19, whose squared
    deviations overflow float32, are still normalised right: their statistics are computed again on the row
    scaled by its largest deviation rather than returning zeros.
    """
    x, weight, bias = _operands(x, weight, bias, optional=2)
    out, mean, rstd = _core.layer_norm(x, weight, bias, real(eps, "eps"))
    return (out, mean, rstd) if flag(return_stats, "return_stats") else out


def layer_norm_backward(grad, x, mean, rstd, weight=None, bias=None):
    """Gradients of :func:`layer_norm`: ``(dx, dweight, dbias)``; dweight (dbias) is None when weight
    (bias) is None. ``mean`` and ``rstd`` come from ``layer_norm(..., return_stats=True)``."""
    grad, x, mean, rstd, weight, bias = _operands(grad, x, mean, rstd, weight, bias, optional=2)
    return _core.layer_norm_backward(grad, x, weight, bias, mean, rstd)


def softmax(x, axis: int = -1) -> Tensor:
    """exp(x - max) / sum(exp(x - max)) along ``axis``: numerically stable for any finite input."""
    (x,) = _operands(x)
    return _core.softmax(x, _axis(axis))


def log_softmax(x, axis: int = -1) -> Tensor:
    """x - max - log(sum(exp(x - max))) along ``axis``."""
    (x,) = _operands(x)
    return _core.log_softmax(x, _axis(axis))


def softmax_backward(grad, y, axis: int = -1) -> Tensor:
    """Gradient of :func:`softmax` given its output ``y``: ``y * (grad - sum(grad * y, axis))``."""
    grad, y = _operands(grad, y)
    return _core.softmax_backward(grad, y, _axis(axis))


def log_softmax_backward(grad, y, axis: int = -1) -> Tensor:
    """Gradient of :func:`log_softmax` given its output ``y``: ``grad - exp(y) * sum(grad, axis)``."""
    grad, y = _operands(grad, y)
    return _core.log_softmax_backward(grad, y, _axis(axis))


def attention(q, k, v, scale=None, causal: bool = False, *, return_lse: bool = False):
    """softmax(q @ k^T * scale [+ causal mask]) @ v, computed flash-style (tiled, online softmax, exact).

    q: (batch, heads, q_len, head_dim); k, v: (batch, heads, kv_len, head_dim); ``scale`` defaults to
    1 / sqrt(head_dim). The q_len x kv_len matrix is never materialised. ``causal`` masks bottom-right
    aligned: query i sees keys j <= i + kv_len - q_len (FlashAttention's convention, what KV-cache decoding
    needs); a query that sees no key (only when q_len > kv_len) gets zeros. With ``return_lse=True``
    returns ``(out, lse)``: lse (batch, heads, q_len) is the log-sum-exp of each query's scaled scores
    (-inf where no key is visible), the input of :func:`attention_backward`.
    """
    q, k, v = _operands(q, k, v)
    out, lse = _core.attention(q, k, v, _scale(scale), flag(causal, "causal"))
    return (out, lse) if flag(return_lse, "return_lse") else out


def attention_backward(grad, q, k, v, out, lse, scale=None, causal: bool = False):
    """Gradients ``(dq, dk, dv)`` of :func:`attention` given the upstream ``grad`` and the forward's ``out``
    and ``lse``; probabilities are recomputed tile by tile from lse (FlashAttention-2), never stored."""
    grad, q, k, v, out, lse = _operands(grad, q, k, v, out, lse)
    return _core.attention_backward(grad, q, k, v, out, lse, _scale(scale), flag(causal, "causal"))


def _window_values(value, name: str, axes: int = 1) -> list[int]:
    """An int (repeated for ``axes`` spatial axes) or a sequence of ints (one per spatial axis) as a list; the
    op checks the count and range."""
    values = [value] * max(axes, 1) if not hasattr(value, "__iter__") else list(value)
    return [integer(v, name) for v in values]


def _image_shape(image_shape) -> list[int]:
    """An image shape (N, C, *spatial) as a list of ints; the op checks its length."""
    if isinstance(image_shape, (str, bytes)) or not hasattr(image_shape, "__iter__"):
        raise ArgumentError(f"image_shape must be a sequence of ints (N, C, *spatial), got {image_shape!r:.40}")
    return [integer(v, "image_shape") for v in image_shape]


def im2col(x, kernel_size, stride=1, padding=0, dilation=1, pad_value: float = 0.0) -> Tensor:
    """The patch matrix of an (N, C, *spatial) image under a window sliding over its 1, 2 or 3 spatial axes.

    One row per (n, output position), one column per (c, kernel offset), both in row-major order:
    shape ``(N * prod(out), C * prod(kernel_size))`` with ``out = (in + 2 padding - dilation (k - 1) - 1)
    // stride + 1`` per axis. Entries in the padding read ``pad_value`` (0 for convolution, -inf for max
    pooling). A convolution is then one GEMM with ``weight.reshape(C_out, -1).T``. ``kernel_size``,
    ``stride``, ``padding`` and ``dilation`` are an int (every axis) or one int per spatial axis.
    """
    (x,) = _operands(x)
    return _core.im2col(x, _window_values(kernel_size, "kernel_size", x.ndim - 2), _window_values(stride, "stride"),
                        _window_values(padding, "padding"), _window_values(dilation, "dilation"),
                        real(pad_value, "pad_value"))


def col2im(patches, image_shape, kernel_size, stride=1, padding=0, dilation=1) -> Tensor:
    """The adjoint of :func:`im2col`: an image of ``image_shape`` (N, C, *spatial) whose every element is the
    sum of the patch entries that read it (entries read from the padding are dropped). This is the gradient
    of im2col, and the gradient of a convolution with respect to its input once multiplied by the weight.
    Deterministic on every backend: each element sums its entries in one fixed order."""
    (patches,) = _operands(patches)
    shape = _image_shape(image_shape)
    return _core.col2im(patches, shape, _window_values(kernel_size, "kernel_size", len(shape) - 2), _window_values(stride, "stride"),
                        _window_values(padding, "padding"), _window_values(dilation, "dilation"))


def conv(x, weight, bias=None, stride=1, padding=0, dilation=1) -> Tensor:
    """The cross-correlation (every deep-learning library's "convolution") of x (N, C_in, *spatial) with
    weight (C_out, C_in, *kernel) over 1, 2 or 3 spatial axes, plus bias (C_out,) when given: (N, C_out,
    *out) with ``out = (in + 2 padding - dilation (k - 1) - 1) // stride + 1`` per axis. ``stride``,
    ``padding`` (zeros) and ``dilation``: an int or one int per spatial axis. Differentiable.

    A device with a direct convolution runs it (the CPU: oneDNN in float32, the half formats computed in
    float32; ``accelera.supports(device, "conv", dtype)`` says where); elsewhere the convolution is im2col
    and one GEMM per image."""
    x, weight, bias = _operands(x, weight, bias, optional=1)
    axes = weight.ndim - 2
    return _core.conv(x, weight, bias, _window_values(stride, "stride", axes), _window_values(padding, "padding", axes),
                      _window_values(dilation, "dilation", axes))


def conv_backward(grad, x, weight, stride=1, padding=0, dilation=1, input_grad: bool = True,
                  bias_grad: bool = True):
    """The gradients of :func:`conv` given ``grad`` (N, C_out, *out): ``(dx, dweight, dbias)``, with dx None
    unless ``input_grad`` (the first layer's data needs none) and dbias None unless ``bias_grad``."""
    grad, x, weight = _operands(grad, x, weight)
    axes = weight.ndim - 2
    return _core.conv_backward(grad, x, weight, _window_values(stride, "stride", axes),
                               _window_values(padding, "padding", axes), _window_values(dilation, "dilation", axes),
                               flag(input_grad, "input_grad"), flag(bias_grad, "bias_grad"))


def lstm_cell(gates, c_prev):
    """One LSTM step's element-wise part, fused: from the pre-activation gates (batch, 4 hidden) in
    PyTorch's order i, f, g, o and the previous cell state (batch, hidden), ``(h, c, act)``: the new hidden
    and cell states and the activated gates (sigmoid i, f, o; tanh g) that :func:`lstm_cell_backward`
    reads. One kernel where the device has it (``accelera.supports(device, "lstm_cell", dtype)``)."""
    gates, c_prev = _operands(gates, c_prev)
    return _core.lstm_cell(gates, c_prev)


def lstm_cell_backward(grad_h, dc, act, c_prev, c):
    """The gradients of :func:`lstm_cell`: ``(d_gates, dc_prev)`` from the hidden state's gradient, the cell
    state's gradient arriving from the next step, and the forward's act, c_prev and c."""
    grad_h, dc, act, c_prev, c = _operands(grad_h, dc, act, c_prev, c)
    return _core.lstm_cell_backward(grad_h, dc, act, c_prev, c)


def gru_cell(input_gates, hidden_gates, h_prev):
    """One GRU step's element-wise part, fused, in PyTorch's gate order r, z, n: from the input's gates
    ``x @ w_ih.T + b_ih`` and the hidden side's ``h_prev @ w_hh.T + b_hh`` (batch, 3 hidden) and the previous
    hidden state (batch, hidden), ``(h, act)``: the new hidden state ``(1 - z) n + z h_prev`` and act (r, z,
    n) that :func:`gru_cell_backward` reads. One kernel where the device has it
    (``accelera.supports(device, "gru_cell", dtype)``)."""
    input_gates, hidden_gates, h_prev = _operands(input_gates, hidden_gates, h_prev)
    return _core.gru_cell(input_gates, hidden_gates, h_prev)


def gru_cell_backward(grad_h, act, hidden_gates, h_prev):
    """The gradients of :func:`gru_cell`: ``(d_input_gates, d_hidden_gates, dh_prev)`` from the hidden
    state's gradient and the forward's act, hidden_gates and h_prev; dh_prev is ``grad_h z``, h_prev's
    gradient apart from the one through the hidden gates (add ``d_hidden_gates @ w_hh``)."""
    grad_h, act, hidden_gates, h_prev = _operands(grad_h, act, hidden_gates, h_prev)
    return _core.gru_cell_backward(grad_h, act, hidden_gates, h_prev)


def _forward_result(forward, count: int, producer: str):
    """The tensors of a sequence op's result, as a backward takes them back."""
    if not isinstance(forward, (tuple, list)) or len(forward) != count or \
            not all(isinstance(t, Tensor) for t in forward):
        raise ArgumentError(f"forward must be the {count} tensors that {producer} returned")
    return forward


def lstm_sequence(x, h0, c0, w_ih, w_hh, bias=None, reverse=False):
    """A whole LSTM layer in one direction over x (length, batch, input), in one kernel where the device has
    one (``accelera.supports(device, "lstm_sequence", dtype)``: oneDNN's RNN primitive on the CPU, float32):
    from the initial states h0 and c0 (batch, hidden), PyTorch's w_ih (4 hidden, input) and w_hh (4 hidden,
    hidden) in the gate order i, f, g, o and one bias (b_ih + b_hh) or None. ``reverse`` runs from the last
    step to the first. Returns ``(hs, h_last, c_last, workspace)``: the hidden state after every step, the
    states after the last one, and what :func:`lstm_sequence_backward` reads."""
    x, h0, c0, w_ih, w_hh, bias = _operands(x, h0, c0, w_ih, w_hh, bias, optional=1)
    return _core.lstm_sequence(x, h0, c0, w_ih, w_hh, bias, flag(reverse, "reverse"))


def lstm_sequence_backward(grad_hs, grad_c_last, x, h0, c0, w_ih, w_hh, bias, reverse, forward, input_grad=True):
    """The gradients of :func:`lstm_sequence` (whose result is ``forward``) from those of every hidden state
    (length, batch, hidden) and of the last cell state: ``(dx, dh0, dc0, dw_ih, dw_hh, dbias)``, dx None
    unless ``input_grad``, dbias None without a bias (it is the gradient of b_ih and of b_hh alike)."""
    grad_hs, grad_c_last, x, h0, c0, w_ih, w_hh, bias = _operands(grad_hs, grad_c_last, x, h0, c0, w_ih, w_hh, bias,
                                                                  optional=1)
    hs, h_last, c_last, workspace = _forward_result(forward, 4, "lstm_sequence")
    return _core.lstm_sequence_backward(grad_hs, grad_c_last, x, h0, c0, w_ih, w_hh, bias, flag(reverse, "reverse"),
                                        hs, h_last, c_last, workspace, flag(input_grad, "input_grad"))


def gru_sequence(x, h0, w_ih, w_hh, b_ih=None, b_hh=None, reverse=False):
    """A whole GRU layer in one direction over x (length, batch, input), in one kernel where the device has one
    (``accelera.supports(device, "gru_sequence", dtype)``: oneDNN's RNN primitive on the CPU, float32), with
    PyTorch's weights and biases in the gate order r, z, n. Returns ``(hs, h_last, workspace)``."""
    x, h0, w_ih, w_hh, b_ih, b_hh = _operands(x, h0, w_ih, w_hh, b_ih, b_hh, optional=2)
    return _core.gru_sequence(x, h0, w_ih, w_hh, b_ih, b_hh, flag(reverse, "reverse"))


def gru_sequence_backward(grad_hs, x, h0, w_ih, w_hh, b_ih, b_hh, reverse, forward, input_grad=True):
    """The gradients of :func:`gru_sequence` (whose result is ``forward``) from those of every hidden state:
    ``(dx, dh0, dw_ih, dw_hh, db_ih, db_hh)``, dx None unless ``input_grad``, each bias's None without it."""
    grad_hs, x, h0, w_ih, w_hh, b_ih, b_hh = _operands(grad_hs, x, h0, w_ih, w_hh, b_ih, b_hh, optional=2)
    hs, h_last, workspace = _forward_result(forward, 3, "gru_sequence")
    return _core.gru_sequence_backward(grad_hs, x, h0, w_ih, w_hh, b_ih, b_hh, flag(reverse, "reverse"), hs, h_last,
                                       workspace, flag(input_grad, "input_grad"))


def max_pool(x, kernel_size, stride=None, padding=0, dilation=1):
    """Max pooling over the 1, 2 or 3 spatial axes of x (N, C, *spatial): ``(values, indices)``, both
    (N, C, *out). ``indices`` (int64) are flat positions within each image plane (row-major over the
    spatial axes, PyTorch's ``return_indices``) of the first maximum of each window; a NaN is the maximum.
    ``stride`` defaults to the kernel size; positions in the padding are never chosen. One pass over the
    image on every backend (no patch matrix)."""
    (x,) = _operands(x)
    axes = x.ndim - 2
    kernel = _window_values(kernel_size, "kernel_size", axes)
    return _core.max_pool(x, kernel, kernel if stride is None else _window_values(stride, "stride"),
                          _window_values(padding, "padding"), _window_values(dilation, "dilation"))


def max_pool_backward(grad, indices, image_shape, kernel_size, stride=None, padding=0, dilation=1) -> Tensor:
    """The gradient of :func:`max_pool`: an image of ``image_shape`` whose every element sums the ``grad``
    entries whose index names it. An index that is not a position of its own window (-1, say) contributes
    nothing. Deterministic on every backend."""
    grad, indices = _operands(grad, indices)
    shape = _image_shape(image_shape)
    kernel = _window_values(kernel_size, "kernel_size", len(shape) - 2)
    return _core.max_pool_backward(grad, indices, shape, kernel,
                                   kernel if stride is None else _window_values(stride, "stride"),
                                   _window_values(padding, "padding"), _window_values(dilation, "dilation"))
