"""Optimizers (SGD with momentum and Nesterov, Adam, AdamW, RMSprop), learning-rate schedules and gradient
clipping. Updates run on the parameters' device under no_grad; each parameter is overwritten in place, so
modules and graphs keep referring to the same tensor.
"""

from __future__ import annotations

import math

from .. import _ops as O
from .._core import ArgumentError, Tensor, _copy_into
from ..autograd import no_grad


def _nonnegative(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ArgumentError(f"{what} must be a finite number >= 0, got {value!r}")
    return float(value)


class Optimizer:
    """Holds parameters (leaf tensors that require grad) and their per-parameter state; ``step()`` applies
    one update from their ``.grad`` (parameters without a gradient are left alone)."""

    def __init__(self, params, lr: float):
        self.params = list(params)
        if not self.params:
            raise ArgumentError(f"{type(self).__name__} got an empty parameter list")
        for i, p in enumerate(self.params):
            if not isinstance(p, Tensor) or not p.requires_grad or not p.is_leaf:
                raise ArgumentError(f"{type(self).__name__}: parameter {i} is not a leaf tensor that requires grad")
        self.lr = _nonnegative(lr, "learning rate")
        self.state: dict[int, dict] = {}
        self.steps = 0

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    def step(self) -> None:
        self.steps += 1
        with no_grad():
            for i, p in enumerate(self.params):
                if p.grad is not None:
                    _copy_into(self._updated(p, p.grad, self.state.setdefault(i, {})), p)

    def _updated(self, p: Tensor, g: Tensor, state: dict) -> Tensor:
        raise NotImplementedError

    def state_dict(self) -> dict:
        return {"lr": self.lr, "steps": self.steps, "state": self.state}


class SGD(Optimizer):
    """p -= lr * (g + weight_decay p), with heavy-ball ``momentum`` (buffer = momentum buffer + g) or
    ``nesterov`` (g + momentum * buffer)."""

    def __init__(self, params, lr: float = 0.01, momentum: float = 0.0, nesterov: bool = False,
                 weight_decay: float = 0.0):
        super().__init__(params, lr)
        self.momentum = _nonnegative(momentum, "momentum")
        self.weight_decay = _nonnegative(weight_decay, "weight_decay")
        if nesterov and self.momentum == 0:
            raise ArgumentError("Nesterov momentum needs momentum > 0")
        self.nesterov = bool(nesterov)

    def _updated(self, p, g, state):
        if self.weight_decay:
            g = O.add(g, O.multiply(p, self.weight_decay))
        if self.momentum:
            buf = state.get("momentum")
            buf = g if buf is None else O.add(O.multiply(buf, self.momentum), g)
            state["momentum"] = buf
            g = O.add(g, O.multiply(buf, self.momentum)) if self.nesterov else buf
        return O.subtract(p, O.multiply(g, self.lr))


class Adam(Optimizer):
    """Adam (Kingma & Ba) with bias correction; ``weight_decay`` adds an L2 term to the gradient (use
    :class:`AdamW` for decoupled decay)."""

    decoupled = False

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0.0):
        super().__init__(params, lr)
        b1, b2 = betas
        if not (0 <= b1 < 1 and 0 <= b2 < 1):
            raise ArgumentError(f"Adam betas must be in [0, 1), got {betas}")
        self.betas = (float(b1), float(b2))
        self.eps = _nonnegative(eps, "eps")
        self.weight_decay = _nonnegative(weight_decay, "weight_decay")

    def _updated(self, p, g, state):
        b1, b2 = self.betas
        if self.weight_decay and not self.decoupled:
            g = O.add(g, O.multiply(p, self.weight_decay))
        m, v = state.get("m"), state.get("v")
        m = O.multiply(g, 1 - b1) if m is None else O.add(O.multiply(m, b1), O.multiply(g, 1 - b1))
        g2 = O.square(g)
        v = O.multiply(g2, 1 - b2) if v is None else O.add(O.multiply(v, b2), O.multiply(g2, 1 - b2))
        state["m"], state["v"] = m, v
        t = self.steps
        # lr * m_hat / (sqrt(v_hat) + eps), with both bias corrections folded into two scalars
        step_size = self.lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        eps_hat = self.eps * math.sqrt(1 - b2 ** t)
        if self.weight_decay and self.decoupled:
            p = O.multiply(p, 1 - self.lr * self.weight_decay)
        return O.subtract(p, O.multiply(O.divide(m, O.add(O.sqrt(v), eps_hat)), step_size))


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): p *= 1 - lr * weight_decay each step."""

    decoupled = True

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0.01):
        super().__init__(params, lr, betas, eps, weight_decay)


class RMSprop(Optimizer):
    """p -= lr * g / (sqrt(mean of g^2) + eps), the mean a running average with ``alpha``; optional
    momentum on the scaled step."""

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8, momentum: float = 0.0,
                 weight_decay: float = 0.0):
        super().__init__(params, lr)
        if not 0 <= alpha < 1:
            raise ArgumentError(f"RMSprop alpha must be in [0, 1), got {alpha}")
        self.alpha = float(alpha)
        self.eps = _nonnegative(eps, "eps")
        self.momentum = _nonnegative(momentum, "momentum")
        self.weight_decay = _nonnegative(weight_decay, "weight_decay")

    def _updated(self, p, g, state):
        if self.weight_decay:
            g = O.add(g, O.multiply(p, self.weight_decay))
        sq = state.get("square_avg")
        g2 = O.square(g)
        sq = O.multiply(g2, 1 - self.alpha) if sq is None else O.add(O.multiply(sq, self.alpha),
                                                                     O.multiply(g2, 1 - self.alpha))
        state["square_avg"] = sq
        step = O.divide(g, O.add(O.sqrt(sq), self.eps))
        if self.momentum:
            buf = state.get("momentum")
            step = step if buf is None else O.add(O.multiply(buf, self.momentum), step)
            state["momentum"] = step
        return O.subtract(p, O.multiply(step, self.lr))


OPTIMIZERS = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop}


# ---- learning-rate schedules -------------------------------------------------------------------------

class LRSchedule:
    """Sets ``optimizer.lr`` from the step count; call ``step()`` once per epoch (or per batch)."""

    def __init__(self, optimizer: Optimizer):
        self.optimizer = optimizer
        self.base_lr = optimizer.lr
        self.count = 0

    def step(self) -> float:
        self.count += 1
        self.optimizer.lr = self.lr_at(self.count)
        return self.optimizer.lr

    def lr_at(self, count: int) -> float:
        raise NotImplementedError


class StepLR(LRSchedule):
    """lr * gamma ** (count // step_size)."""

    def __init__(self, optimizer, step_size: int, gamma: float = 0.1):
        super().__init__(optimizer)
        if step_size < 1:
            raise ArgumentError(f"StepLR step_size must be >= 1, got {step_size}")
        self.step_size, self.gamma = int(step_size), float(gamma)

    def lr_at(self, count):
        return self.base_lr * self.gamma ** (count // self.step_size)


class CosineAnnealingLR(LRSchedule):
    """eta_min + (lr - eta_min) (1 + cos(pi count / t_max)) / 2, held at eta_min after t_max."""

    def __init__(self, optimizer, t_max: int, eta_min: float = 0.0):
        super().__init__(optimizer)
        if t_max < 1:
            raise ArgumentError(f"CosineAnnealingLR t_max must be >= 1, got {t_max}")
        self.t_max, self.eta_min = int(t_max), float(eta_min)

    def lr_at(self, count):
        c = min(count, self.t_max)
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * c / self.t_max)) / 2


class WarmupLR(LRSchedule):
    """Linear warm-up from lr / warmup_steps to lr over ``warmup_steps``, then ``after`` (a schedule
    counted from the end of the warm-up) or the constant lr."""

    def __init__(self, optimizer, warmup_steps: int, after: LRSchedule | None = None):
        super().__init__(optimizer)
        if warmup_steps < 1:
            raise ArgumentError(f"WarmupLR warmup_steps must be >= 1, got {warmup_steps}")
        self.warmup_steps, self.after = int(warmup_steps), after
        optimizer.lr = self.lr_at(0)

    def lr_at(self, count):
        if count < self.warmup_steps:
            return self.base_lr * (count + 1) / self.warmup_steps
        return self.after.lr_at(count - self.warmup_steps) if self.after is not None else self.base_lr


# ---- gradient clipping -------------------------------------------------------------------------------

def clip_grad_norm_(params, max_norm: float) -> float:
    """Scales all gradients together so that their joint L2 norm is at most ``max_norm``; returns the norm
    before clipping (one read-back)."""
    max_norm = _nonnegative(max_norm, "max_norm")
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return 0.0
    with no_grad():
        squares = O.sum(O.square(grads[0])).astype("float64")
        for g in grads[1:]:
            squares = O.add(squares, O.sum(O.square(g)).astype("float64"))
        total = math.sqrt(float(squares.item()))  # the one read-back
        if total > max_norm:
            scale = max_norm / (total + 1e-6)
            for p in params:
                if p.grad is not None:
                    p.grad = O.multiply(p.grad, scale)
    return total


def clip_grad_value_(params, clip_value: float) -> None:
    """Clamps every gradient element to [-clip_value, clip_value]."""
    clip_value = _nonnegative(clip_value, "clip_value")
    with no_grad():
        for p in params:
            if p.grad is not None:
                p.grad = O.minimum(O.maximum(p.grad, -clip_value), clip_value)
