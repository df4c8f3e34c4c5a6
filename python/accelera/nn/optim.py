"""Optimizers (SGD with momentum and Nesterov, Adam, AdamW with AMSGrad, RMSprop), learning-rate schedules
and gradient clipping. ``step()`` updates every parameter and its state in place with the fused
``optimizer_step`` op: one kernel pass over the whole group (on the CPU one parallel loop, on CUDA one
launch per 16 parameters, on OpenCL one per parameter) instead of a dozen element-wise ops per parameter.
Modules and graphs keep referring to the same tensors. The update rules are torch.optim's.
"""

from __future__ import annotations

import math

from .. import _core
from .. import _ops as O
from .._core import ArgumentError, Tensor
from .._creation import zeros
from ..autograd import no_grad


def _nonnegative(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ArgumentError(f"{what} must be a finite number >= 0, got {value!r}")
    return float(value)


def _fraction(value, what: str) -> float:
    value = _nonnegative(value, what)
    if value >= 1:
        raise ArgumentError(f"{what} must be in [0, 1), got {value!r}")
    return value


class Optimizer:
    """Holds parameters (leaf tensors that require grad) and their per-parameter state; ``step()`` applies
    one update from their ``.grad`` (parameters without a gradient are left alone, and their step count
    does not advance). ``state[i]`` holds parameter i's ``step`` and its buffers under torch.optim's names."""

    rule = ""

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

    def _hyperparameters(self) -> dict:
        """The keyword arguments of the fused op other than lr and step."""
        raise NotImplementedError

    def step(self) -> None:
        self.steps += 1
        h = self._hyperparameters()
        names = _core.optimizer_state_names(self.rule, h["momentum"], h["amsgrad"], h["centered"])
        # One fused call per (device, dtype, step count): normally the whole model at once.
        groups: dict[tuple, list[int]] = {}
        with no_grad():
            for i, p in enumerate(self.params):
                if p.grad is None:
                    continue
                state = self.state.setdefault(i, {"step": 0})
                for name in names:
                    if name not in state:
                        state[name] = zeros(p.shape, dtype=p.dtype, device=p.device)
                groups.setdefault((str(p.device), str(p.dtype), state["step"] + 1), []).append(i)
            for (_, _, step), members in groups.items():
                _core.optimizer_step([self.params[i] for i in members], [self.params[i].grad for i in members],
                                     [[self.state[i][n] for n in names] for i in members], rule=self.rule,
                                     lr=self.lr, step=step, **h)
                for i in members:  # counted once the update has run: a refused call leaves the state as it was
                    self.state[i]["step"] = step

    def state_dict(self) -> dict:
        return {"lr": self.lr, "steps": self.steps, "state": self.state}


def _options(*, weight_decay=0.0, decoupled=False, momentum=0.0, dampening=0.0, nesterov=False, betas=(0.9, 0.999),
             amsgrad=False, alpha=0.99, centered=False, eps=1e-8) -> dict:
    return {"weight_decay": weight_decay, "decoupled_weight_decay": decoupled, "momentum": momentum,
            "dampening": dampening, "nesterov": nesterov, "beta1": betas[0], "beta2": betas[1], "amsgrad": amsgrad,
            "alpha": alpha, "centered": centered, "eps": eps}


class SGD(Optimizer):
    """p -= lr * (g + weight_decay p), with heavy-ball ``momentum`` (the buffer starts as g, then becomes
    momentum * buffer + (1 - dampening) g) or ``nesterov`` (steps along g + momentum * buffer)."""

    rule = "sgd"

    def __init__(self, params, lr: float = 0.01, momentum: float = 0.0, nesterov: bool = False,
                 weight_decay: float = 0.0, dampening: float = 0.0):
        super().__init__(params, lr)
        self.momentum = _nonnegative(momentum, "momentum")
        self.weight_decay = _nonnegative(weight_decay, "weight_decay")
        self.dampening = _nonnegative(dampening, "dampening")
        if self.dampening > 1:
            raise ArgumentError(f"dampening must be in [0, 1], got {dampening!r}")
        if nesterov and (self.momentum == 0 or self.dampening != 0):
            raise ArgumentError("Nesterov momentum needs momentum > 0 and dampening 0")
        self.nesterov = bool(nesterov)

    def _hyperparameters(self):
        return _options(weight_decay=self.weight_decay, momentum=self.momentum, dampening=self.dampening,
                        nesterov=self.nesterov)


class Adam(Optimizer):
    """Adam (Kingma & Ba) with bias correction; ``weight_decay`` adds an L2 term to the gradient (use
    :class:`AdamW` for decoupled decay); ``amsgrad`` divides by the running maximum of the second moment."""

    rule = "adam"
    decoupled = False

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0.0,
                 amsgrad: bool = False):
        super().__init__(params, lr)
        b1, b2 = betas
        self.betas = (_fraction(b1, "Adam beta1"), _fraction(b2, "Adam beta2"))
        self.eps = _nonnegative(eps, "eps")
        self.weight_decay = _nonnegative(weight_decay, "weight_decay")
        self.amsgrad = bool(amsgrad)

    def _hyperparameters(self):
        return _options(weight_decay=self.weight_decay, decoupled=self.decoupled, betas=self.betas,
                        amsgrad=self.amsgrad, eps=self.eps)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): p *= 1 - lr * weight_decay each step."""

    decoupled = True

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0.01,
                 amsgrad: bool = False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad)


class RMSprop(Optimizer):
    """p -= lr * g / (sqrt(mean of g^2) + eps), the mean a running average with ``alpha``; ``centered``
    subtracts the squared running mean of g first; optional momentum on the scaled step."""

    rule = "rmsprop"

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8, momentum: float = 0.0,
                 weight_decay: float = 0.0, centered: bool = False):
        super().__init__(params, lr)
        self.alpha = _fraction(alpha, "RMSprop alpha")
        self.eps = _nonnegative(eps, "eps")
        self.momentum = _nonnegative(momentum, "momentum")
        self.weight_decay = _nonnegative(weight_decay, "weight_decay")
        self.centered = bool(centered)

    def _hyperparameters(self):
        return _options(weight_decay=self.weight_decay, momentum=self.momentum, alpha=self.alpha,
                        centered=self.centered, eps=self.eps)


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
