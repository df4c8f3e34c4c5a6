"""Losses as modules, over :mod:`accelera.nn.functional`."""

from __future__ import annotations

from . import functional as F
from ._module import Module


class _Loss(Module):
    def __init__(self, reduction: str = "mean"):
        super().__init__()
        self.reduction = reduction


class MSELoss(_Loss):
    def forward(self, prediction, target):
        return F.mse_loss(prediction, target, self.reduction)


class CrossEntropyLoss(_Loss):
    """Softmax cross-entropy from logits, with integer labels or class probabilities as targets."""

    def forward(self, logits, target):
        return F.cross_entropy(logits, target, self.reduction)


class BCEWithLogitsLoss(_Loss):
    def forward(self, logits, target):
        return F.binary_cross_entropy_with_logits(logits, target, self.reduction)


class BCELoss(_Loss):
    def forward(self, probabilities, target):
        return F.binary_cross_entropy(probabilities, target, self.reduction)


class HuberLoss(_Loss):
    def __init__(self, delta: float = 1.0, reduction: str = "mean"):
        super().__init__(reduction)
        self.delta = delta

    def forward(self, prediction, target):
        return F.huber_loss(prediction, target, self.delta, self.reduction)
