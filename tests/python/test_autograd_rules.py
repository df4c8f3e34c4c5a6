"""Every gradient rule of accelera.autograd against float64 central differences, on random inputs with
sizes 1, primes and broadcasting; every rule of the table must appear here (test_every_rule_is_checked)."""

from __future__ import annotations

import numpy as np
import pytest

import accelera as acc
from accelera.autograd import _rules

RNG = np.random.default_rng(7)


def rand(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape)


def positive(*shape):
    return RNG.uniform(0.5, 2.0, shape)


def unit(*shape):
    return RNG.uniform(-0.8, 0.8, shape)


def away_from_integers(*shape):
    return np.floor(rand(*shape)) + RNG.uniform(0.2, 0.8, shape)


def distinct(*shape):
    """Values whose ties are impossible, so max/min/maximum have one subgradient."""
    return RNG.permutation(np.arange(np.prod(shape), dtype=np.float64)).reshape(shape) * 0.37 + 0.1


# name -> (function of tensors, list of input arrays); a rule's name may be exercised by several cases
CASES = {
    "negative": (acc.negative, [rand(3, 5)]),
    "positive": (acc.positive, [rand(7)]),
    "abs": (acc.abs, [away_from_integers(4, 3)]),
    "square": (acc.square, [rand(5)]),
    "sqrt": (acc.sqrt, [positive(3, 2)]),
    "exp": (acc.exp, [rand(2, 3)]),
    "expm1": (acc.expm1, [rand(3)]),
    "log": (acc.log, [positive(3, 3)]),
    "log1p": (acc.log1p, [positive(5)]),
    "log2": (acc.log2, [positive(2)]),
    "log10": (acc.log10, [positive(2)]),
    "sin": (acc.sin, [rand(5)]),
    "cos": (acc.cos, [rand(5)]),
    "tan": (acc.tan, [unit(5)]),
    "asin": (acc.asin, [unit(5)]),
    "acos": (acc.acos, [unit(5)]),
    "atan": (acc.atan, [rand(5)]),
    "sinh": (acc.sinh, [rand(5)]),
    "cosh": (acc.cosh, [rand(5)]),
    "tanh": (acc.tanh, [rand(13)]),
    "asinh": (acc.asinh, [rand(5)]),
    "acosh": (acc.acosh, [positive(5) + 1.0]),
    "atanh": (acc.atanh, [unit(5)]),
    "reciprocal": (acc.reciprocal, [positive(4)]),
    "sigmoid": (acc.sigmoid, [rand(11)]),
    "relu": (acc.relu, [away_from_integers(3, 7) - 0.5]),
    "gelu": (acc.gelu, [rand(17)]),
    "floor": (acc.floor, [away_from_integers(5)]),
    "ceil": (acc.ceil, [away_from_integers(5)]),
    "trunc": (acc.trunc, [away_from_integers(5)]),
    "round": (acc.round, [away_from_integers(5)]),
    "sign": (acc.sign, [away_from_integers(5)]),
    "floor_divide": (lambda a, b: acc.floor_divide(a, b), [away_from_integers(5) * 7, np.full(5, 3.0)]),
    "add": (acc.add, [rand(3, 4), rand(4)]),
    "subtract": (acc.subtract, [rand(1, 4), rand(3, 1)]),
    "multiply": (acc.multiply, [rand(2, 3, 5), rand(3, 1)]),
    "divide": (acc.divide, [rand(3, 2), positive(2)]),
    "pow": (acc.pow, [positive(3, 2), rand(2)]),
    "maximum": (acc.maximum, [distinct(3, 4), distinct(4) + 0.05]),
    "minimum": (acc.minimum, [distinct(3, 4), distinct(4) + 0.05]),
    "atan2": (acc.atan2, [rand(5), positive(5)]),
    "hypot": (acc.hypot, [positive(5), rand(5)]),
    "logaddexp": (acc.logaddexp, [rand(2, 3), rand(3)]),
    "copysign": (lambda a, b: acc.copysign(a, b), [away_from_integers(4), away_from_integers(4)]),
    "remainder": (acc.remainder, [positive(6) * 3 + 0.1, np.full(6, 0.7)]),
    "where": (lambda a, b: acc.where(acc.asarray(np.arange(6) % 2 == 0), a, b), [rand(6), rand(2, 6)]),
    # bounds away from every x (x steps by 0.37 from 0.1): each element is clipped or not within the step
    "clip": (lambda x, lo, hi: acc.clip(x, lo, hi), [distinct(3, 4), np.array([1.0, 0.5, 2.0, -1.0]),
                                                      np.array([3.0, 4.5, 2.5, 3.0])]),
    "tril": (lambda x: acc.tril(x, k=1), [rand(2, 3, 4)]),
    "triu": (lambda x: acc.triu(x, k=-1), [rand(3, 5)]),
    "matmul": (acc.matmul, [rand(5, 3), rand(3, 7)]),
    "sum": (lambda x: acc.sum(x, axis=1), [rand(3, 4, 2)]),
    "mean": (lambda x: acc.mean(x, axis=(0, 2), keepdims=True), [rand(3, 4, 2)]),
    "max": (lambda x: acc.max(x, axis=0), [distinct(4, 3)]),
    "min": (lambda x: acc.min(x), [distinct(5, 2)]),
    "var": (lambda x: acc.var(x, axis=1, correction=1), [rand(3, 5)]),
    "std": (lambda x: acc.std(x, axis=0), [rand(7, 2)]),
    # through float32 and back: linear, so a wide step keeps float32 rounding out of the difference
    "astype": (lambda x: acc.astype(x, acc.float32).astype(acc.float64) * 1.0, [rand(3)], {"eps": 1e-2, "rtol": 1e-4}),
    "reshape": (lambda x: acc.reshape(x, (6, 2)), [rand(3, 4)]),
    "squeeze": (lambda x: acc.squeeze(x, axis=1), [rand(3, 1, 2)]),
    "expand_dims": (lambda x: acc.expand_dims(x, 1), [rand(3, 2)]),
    "contiguous": (lambda x: x.T.contiguous(), [rand(3, 2)]),
    "clone": (lambda x: x.clone(), [rand(3)]),
    "to": (lambda x: x.to("cpu") * 2.0, [rand(3)]),
    "broadcast_to": (lambda x: acc.broadcast_to(x, (4, 3)), [rand(1, 3)]),
    "permute_dims": (lambda x: acc.permute_dims(x, (2, 0, 1)), [rand(2, 3, 4)]),
    "transpose": (lambda x: x.transpose(1, 0, 2), [rand(2, 3, 4)]),
    "matrix_transpose": (acc.matrix_transpose, [rand(2, 3, 4)]),
    "T": (lambda x: x.T, [rand(3, 5)]),
    "moveaxis": (lambda x: acc.moveaxis(x, 0, 2), [rand(2, 3, 4)]),
    "flip": (lambda x: acc.flip(x, axis=1), [rand(2, 3)]),
    "roll": (lambda x: acc.roll(x, 2, axis=0), [rand(5, 2)]),
    "getitem": (lambda x: x[1:, ::2], [rand(4, 5)]),
    "concat": (lambda a, b: acc.concat([a, b], axis=1), [rand(2, 3), rand(2, 5)]),
    "stack": (lambda a, b: acc.stack([a, b], axis=1), [rand(2, 3), rand(2, 3)]),
    "take": (lambda x: acc.take(x, acc.asarray(np.array([[0, 2], [2, -1]])), axis=0), [rand(4, 3)]),
    "take_along_axis": (lambda x: acc.take_along_axis(x, acc.asarray(np.array([[0, 2, 2], [1, 1, 0]])), 1),
                        [rand(2, 4)]),
    "softmax": (lambda x: acc.softmax(x, axis=-1), [rand(3, 7)]),
    "log_softmax": (lambda x: acc.log_softmax(x, axis=0), [rand(5, 2)]),
    "bias_gelu": (acc.bias_gelu, [rand(3, 5), rand(5)]),
    "linear_gelu": (acc.linear_gelu, [rand(4, 3), rand(5, 3), rand(5)]),
    "layer_norm": (lambda x, w, b: acc.layer_norm(x, w, b), [rand(3, 7), rand(7), rand(7)]),
    "attention": (lambda q, k, v: acc.attention(q, k, v, causal=True), [rand(1, 2, 3, 4), rand(1, 2, 5, 4),
                                                                         rand(1, 2, 5, 4)]),
    "im2col": (lambda x: acc.im2col(x, (3, 2), stride=(2, 1), padding=1, dilation=(1, 2)), [rand(2, 3, 7, 5)]),
    "col2im": (lambda p: acc.col2im(p, (1, 2, 5, 4), 3, padding=1), [rand(20, 18)]),
    "conv": (lambda x, w, b: acc.conv(x, w, b, stride=(2, 1), padding=(1, 0), dilation=(1, 2)),
             [rand(2, 3, 7, 6), rand(4, 3, 3, 2), rand(4)]),
    # Distinct values (a permutation), so that no window's maximum is a tie within the difference step.
    "max_pool": (lambda x: acc.max_pool(x, (3, 2), stride=(2, 1), padding=1, dilation=(1, 2))[0],
                 [RNG.permutation(np.arange(70.0)).reshape(2, 1, 7, 5) * 0.1]),
}


def numeric_gradient(f, arrays, i, weights, eps=1e-6):
    grad = np.zeros_like(arrays[i])
    for idx in np.ndindex(arrays[i].shape):
        shifted = [a.copy() for a in arrays]
        shifted[i][idx] += eps
        up = np.sum(f(*[acc.asarray(a) for a in shifted]).numpy() * weights)
        shifted[i][idx] -= 2 * eps
        down = np.sum(f(*[acc.asarray(a) for a in shifted]).numpy() * weights)
        grad[idx] = (up - down) / (2 * eps)
    return grad


def test_every_rule_is_checked():
    assert set(_rules.VJP) | set(_rules.FORWARD) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_central_differences(name):
    f, arrays, *options = CASES[name]
    options = options[0] if options else {}
    inputs = [acc.asarray(a).requires_grad_() for a in arrays]
    out = f(*inputs)
    assert out.requires_grad and out.grad_fn is not None
    weights = RNG.standard_normal(out.shape)  # a random upstream gradient checks the whole Jacobian
    out.backward(acc.asarray(weights))
    for i, x in enumerate(inputs):
        expected = numeric_gradient(f, arrays, i, weights, options.get("eps", 1e-6))
        assert x.grad is not None and x.grad.shape == x.shape, name
        np.testing.assert_allclose(x.grad.numpy(), expected, rtol=options.get("rtol", 1e-5), atol=1e-6, err_msg=f"{name}, input {i}")


MULTI_INPUT = sorted(name for name, (_, arrays, *_) in CASES.items() if len(arrays) > 1)


@pytest.mark.parametrize("name", MULTI_INPUT)
def test_one_operand_requiring_grad_gets_its_gradient_and_the_others_none(name):
    f, arrays, *options = CASES[name]
    options = options[0] if options else {}
    for wanted in range(len(arrays)):
        inputs = [acc.asarray(a) for a in arrays]
        inputs[wanted].requires_grad_()
        out = f(*inputs)
        weights = RNG.standard_normal(out.shape)
        out.backward(acc.asarray(weights))
        expected = numeric_gradient(f, arrays, wanted, weights, options.get("eps", 1e-6))
        np.testing.assert_allclose(inputs[wanted].grad.numpy(), expected, rtol=options.get("rtol", 1e-5), atol=1e-6,
                                   err_msg=f"{name}, input {wanted} alone")
        assert all(x.grad is None for i, x in enumerate(inputs) if i != wanted), name


def test_binary_rules_skip_the_gradient_of_an_operand_that_needs_none(monkeypatch):
    calls = []
    multiply = _rules.O.multiply
    monkeypatch.setattr(_rules.O, "multiply", lambda a, b: calls.append(1) or multiply(a, b))
    x = acc.asarray(rand(3, 4)).requires_grad_()
    for constant in (acc.asarray(rand(3, 4)), 2.5):
        calls.clear()
        acc.sum(acc.multiply(x, constant)).backward()
        assert len(calls) == 1, f"the backward of x * {type(constant).__name__} ran {len(calls)} products"
