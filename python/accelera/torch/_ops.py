"""Accelera's operators in PyTorch's operator registry (``torch.ops.accelera.*``).

Each has a fake implementation (shapes only, for ``torch.compile`` and meta tensors) and an autograd formula
whose backward calls these same operators, so the backward of a product too large for the device streams
too, and higher derivatives work. ``device`` (None: Accelera's default) and ``out_of_core`` are carried
from the forward call to its backward.
"""

from __future__ import annotations

from typing import Optional

import torch

from . import _compute

_NAMESPACE = "accelera"


def _sum_to(grad: torch.Tensor, shape) -> torch.Tensor:
    """The gradient of a broadcast: ``grad`` summed over the axes that broadcasting added or stretched."""
    shape = tuple(shape)
    if tuple(grad.shape) == shape:
        return grad
    lead = grad.ndim - len(shape)
    if lead:
        grad = grad.sum(dim=tuple(range(lead)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(dim=stretched, keepdim=True)
    return grad


def _keep_options(ctx, device, out_of_core) -> None:
    ctx.device, ctx.out_of_core = device, out_of_core


def _product_setup(ctx, inputs, output):
    a, b, device, out_of_core = inputs
    ctx.save_for_backward(a, b)
    _keep_options(ctx, device, out_of_core)


# -- matmul -------------------------------------------------------------------------------------------------

@torch.library.custom_op(f"{_NAMESPACE}::matmul", mutates_args=())
def matmul(self: torch.Tensor, other: torch.Tensor, device: Optional[str] = None,
           out_of_core: bool = True) -> torch.Tensor:
    """torch.matmul (1-D operands, broadcast batch axes) computed by Accelera."""
    return _compute.matmul(self, other, device, out_of_core)


@matmul.register_fake
def _(self, other, device=None, out_of_core=True):
    _compute.dtype_name(self, other)
    return self.new_empty(_compute.matmul_shape(self.shape, other.shape))


def _matmul_backward(ctx, grad):
    a, b = ctx.saved_tensors
    # As 2-D-or-more products: a (..., m, k) @ b (..., k, n) = (..., m, n); 1-D operands gain an axis.
    a2 = a.unsqueeze(0) if a.ndim == 1 else a
    b2 = b.unsqueeze(-1) if b.ndim == 1 else b
    g = grad
    if a.ndim == 1:
        g = g.unsqueeze(-2)
    if b.ndim == 1:
        g = g.unsqueeze(-1)
    grad_a = grad_b = None
    if ctx.needs_input_grad[0]:
        grad_a = _sum_to(matmul(g, b2.mT, ctx.device, ctx.out_of_core), a2.shape).reshape(a.shape)
    if ctx.needs_input_grad[1]:
        grad_b = _sum_to(matmul(a2.mT, g, ctx.device, ctx.out_of_core), b2.shape).reshape(b.shape)
    return grad_a, grad_b, None, None


matmul.register_autograd(_matmul_backward, setup_context=_product_setup)


# -- mm and bmm ---------------------------------------------------------------------------------------------

def _check_ranks(op: str, rank: int, *tensors: torch.Tensor) -> None:
    for t in tensors:
        if t.ndim != rank:
            raise _compute.ShapeError(f"{op} takes {rank}-D tensors, got shape {tuple(t.shape)}")


@torch.library.custom_op(f"{_NAMESPACE}::mm", mutates_args=())
def mm(self: torch.Tensor, mat2: torch.Tensor, device: Optional[str] = None,
       out_of_core: bool = True) -> torch.Tensor:
    """torch.mm: (n, k) @ (k, m)."""
    _check_ranks("mm", 2, self, mat2)
    return _compute.matmul(self, mat2, device, out_of_core)


@mm.register_fake
def _(self, mat2, device=None, out_of_core=True):
    _check_ranks("mm", 2, self, mat2)
    _compute.dtype_name(self, mat2)
    return self.new_empty(_compute.matmul_shape(self.shape, mat2.shape))


@torch.library.custom_op(f"{_NAMESPACE}::bmm", mutates_args=())
def bmm(self: torch.Tensor, mat2: torch.Tensor, device: Optional[str] = None,
        out_of_core: bool = True) -> torch.Tensor:
    """torch.bmm: (b, n, k) @ (b, k, m), the same batch on both sides."""
    _check_bmm(self, mat2)
    return _compute.matmul(self, mat2, device, out_of_core)


def _check_bmm(a, b) -> None:
    _check_ranks("bmm", 3, a, b)
    if a.shape[0] != b.shape[0]:
        raise _compute.ShapeError(f"bmm: batch sizes differ ({a.shape[0]} and {b.shape[0]})")


@bmm.register_fake
def _(self, mat2, device=None, out_of_core=True):
    _check_bmm(self, mat2)
    _compute.dtype_name(self, mat2)
    return self.new_empty(_compute.matmul_shape(self.shape, mat2.shape))


def _product_backward(op):
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = op(grad, b.mT, ctx.device, ctx.out_of_core) if ctx.needs_input_grad[0] else None
        grad_b = op(a.mT, grad, ctx.device, ctx.out_of_core) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b, None, None
    return backward


mm.register_autograd(_product_backward(mm), setup_context=_product_setup)
bmm.register_autograd(_product_backward(bmm), setup_context=_product_setup)


# -- addmm --------------------------------------------------------------------------------------------------

@torch.library.custom_op(f"{_NAMESPACE}::addmm", mutates_args=())
def addmm(self: torch.Tensor, mat1: torch.Tensor, mat2: torch.Tensor, beta: float = 1.0, alpha: float = 1.0,
          device: Optional[str] = None, out_of_core: bool = True) -> torch.Tensor:
    """torch.addmm: beta * self + alpha * (mat1 @ mat2), ``self`` broadcast to the product's shape; with
    beta = 0, ``self`` is ignored (its nan and inf do not propagate), as in PyTorch."""
    _check_addmm(self, mat1, mat2)
    product = _compute.matmul(mat1, mat2, device, out_of_core)
    with torch._C.DisableTorchFunction():  # the epilogue is PyTorch's, on the result's device
        if alpha != 1.0:
            product.mul_(alpha)
        if beta != 0.0:
            product.add_(self, alpha=beta)
    return product


def _check_addmm(bias, a, b) -> None:
    _check_ranks("addmm", 2, a, b)
    _compute.dtype_name(bias, a, b)
    shape = _compute.matmul_shape(a.shape, b.shape)
    if _compute.broadcast_shapes(bias.shape, shape) != shape:
        raise _compute.ShapeError(f"addmm: self of shape {tuple(bias.shape)} does not broadcast to {shape}")


@addmm.register_fake
def _(self, mat1, mat2, beta=1.0, alpha=1.0, device=None, out_of_core=True):
    _check_addmm(self, mat1, mat2)
    return mat1.new_empty(_compute.matmul_shape(mat1.shape, mat2.shape))


def _addmm_setup(ctx, inputs, output):
    bias, a, b, beta, alpha, device, out_of_core = inputs
    ctx.save_for_backward(a, b)
    ctx.bias_shape, ctx.beta, ctx.alpha = bias.shape, beta, alpha
    _keep_options(ctx, device, out_of_core)


def _addmm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_bias = grad_a = grad_b = None
    if ctx.needs_input_grad[0]:
        grad_bias = _sum_to(grad * ctx.beta, ctx.bias_shape)
    if ctx.needs_input_grad[1]:
        grad_a = mm(grad, b.mT, ctx.device, ctx.out_of_core) * ctx.alpha
    if ctx.needs_input_grad[2]:
        grad_b = mm(a.mT, grad, ctx.device, ctx.out_of_core) * ctx.alpha
    return grad_bias, grad_a, grad_b, None, None, None, None


addmm.register_autograd(_addmm_backward, setup_context=_addmm_setup)


# -- linear -------------------------------------------------------------------------------------------------

@torch.library.custom_op(f"{_NAMESPACE}::linear", mutates_args=())
def linear(input: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor] = None,
           device: Optional[str] = None, out_of_core: bool = True) -> torch.Tensor:
    """torch.nn.functional.linear: input (..., in) @ weight (out, in).T + bias (out)."""
    _check_linear(input, weight, bias)
    out = _compute.matmul(input, weight.mT, device, out_of_core)
    if bias is not None:
        with torch._C.DisableTorchFunction():
            out.add_(bias)
    return out


def _check_linear(x, weight, bias) -> None:
    if weight.ndim != 2:
        raise _compute.ShapeError(f"linear: weight must be 2-D (out_features, in_features), got {tuple(weight.shape)}")
    if x.ndim == 0 or x.shape[-1] != weight.shape[1]:
        raise _compute.ShapeError(f"linear: input of shape {tuple(x.shape)} does not match weight of shape "
                                  f"{tuple(weight.shape)} (in_features {weight.shape[1]})")
    if bias is not None and tuple(bias.shape) not in ((weight.shape[0],), (1,), ()):
        raise _compute.ShapeError(f"linear: bias of shape {tuple(bias.shape)} for {weight.shape[0]} outputs")
    _compute.dtype_name(x, weight, *([bias] if bias is not None else []))


@linear.register_fake
def _(input, weight, bias=None, device=None, out_of_core=True):
    _check_linear(input, weight, bias)
    return input.new_empty(tuple(input.shape[:-1]) + (weight.shape[0],))


def _linear_setup(ctx, inputs, output):
    x, weight, bias, device, out_of_core = inputs
    ctx.save_for_backward(x, weight)
    ctx.bias_shape = None if bias is None else bias.shape
    _keep_options(ctx, device, out_of_core)


def _linear_backward(ctx, grad):
    x, weight = ctx.saved_tensors
    grad_x = grad_w = grad_bias = None
    if ctx.needs_input_grad[0]:
        grad_x = matmul(grad, weight, ctx.device, ctx.out_of_core)
    if ctx.needs_input_grad[1]:
        # Every leading axis is a sample: (out, N) @ (N, in) over the flattened samples.
        rows = grad.reshape(-1, grad.shape[-1]) if grad.ndim != 1 else grad.unsqueeze(0)
        inputs = x.reshape(-1, x.shape[-1]) if x.ndim != 1 else x.unsqueeze(0)
        grad_w = mm(rows.mT, inputs, ctx.device, ctx.out_of_core)
    if ctx.bias_shape is not None and ctx.needs_input_grad[2]:
        grad_bias = _sum_to(grad, ctx.bias_shape)
    return grad_x, grad_w, grad_bias, None, None


linear.register_autograd(_linear_backward, setup_context=_linear_setup)


# -- element-wise add and mul -------------------------------------------------------------------------------

@torch.library.custom_op(f"{_NAMESPACE}::add", mutates_args=())
def add(self: torch.Tensor, other: torch.Tensor, alpha: float = 1.0, device: Optional[str] = None) -> torch.Tensor:
    """torch.add of two tensors of one dtype: self + alpha * other, broadcast."""
    if alpha != 1.0:
        other = _compute.elementwise("multiply", other, torch.full((), alpha, dtype=other.dtype,
                                                                   device=other.device), device)
    return _compute.elementwise("add", self, other, device)


@add.register_fake
def _(self, other, alpha=1.0, device=None):
    _compute.dtype_name(self, other)
    return self.new_empty(_compute.broadcast_shapes(self.shape, other.shape))


def _add_setup(ctx, inputs, output):
    a, b, alpha, device = inputs
    ctx.shapes, ctx.alpha = (a.shape, b.shape), alpha


def _add_backward(ctx, grad):
    grad_a = _sum_to(grad, ctx.shapes[0]) if ctx.needs_input_grad[0] else None
    grad_b = _sum_to(grad * ctx.alpha, ctx.shapes[1]) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b, None, None


add.register_autograd(_add_backward, setup_context=_add_setup)


@torch.library.custom_op(f"{_NAMESPACE}::mul", mutates_args=())
def mul(self: torch.Tensor, other: torch.Tensor, device: Optional[str] = None) -> torch.Tensor:
    """torch.mul of two tensors of one dtype, broadcast."""
    return _compute.elementwise("multiply", self, other, device)


@mul.register_fake
def _(self, other, device=None):
    _compute.dtype_name(self, other)
    return self.new_empty(_compute.broadcast_shapes(self.shape, other.shape))


def _mul_setup(ctx, inputs, output):
    a, b, device = inputs
    ctx.save_for_backward(a, b)
    ctx.device = device


def _mul_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = _sum_to(mul(grad, b, ctx.device), a.shape) if ctx.needs_input_grad[0] else None
    grad_b = _sum_to(mul(grad, a, ctx.device), b.shape) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b, None


mul.register_autograd(_mul_backward, setup_context=_mul_setup)
