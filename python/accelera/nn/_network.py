"""Network (built by the builder API), TrainingConfig and History: train, evaluate, predict, save, load.

Note [Training loop]
~~~~~~~~~~~~~~~~~~~~
The training set goes to the device once; each epoch draws a permutation on the host (NumPy, seeded),
uploads it (8 bytes a row) and gathers each batch on the device with ``take``, so no batch crosses the bus.
The per-batch loss and hit count are summed on the device and read back once per epoch: the device queue
never drains in the middle of an epoch for bookkeeping. ``validation_split`` follows Keras: the last
fraction of the rows, before any shuffling, is held out.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import sys
import time

import numpy as np

from .. import _creation as C
from .. import _elementwise as E
from .. import _ops as O
from .. import _statistics as S
from .. import amp
from .._convert import asarray, device_or_default
from .._core import ArgumentError, ShapeError, Tensor
from ..autograd import no_grad
from . import functional as F
from . import optim
from ._builder import Activation, Loss, NetworkBuilder, build_layers, spec_json
from .safetensors import load_file, save_file


@dataclasses.dataclass
class TrainingConfig:
    """How :meth:`Network.train` trains. ``optimizer``: "adam", "adamw", "sgd", "rmsprop" or an
    :class:`accelera.nn.optim.Optimizer` class; ``lr_schedule``: None, "cosine" or "step";
    ``early_stopping_patience``: epochs without improvement of the monitored loss (the validation loss
    when there is a validation set) before stopping, None for never; ``mixed_precision``: None, "bfloat16"
    or "float16": the forward pass under ``accelera.amp.autocast`` of that dtype with float32 weights, and
    for float16 dynamic loss scaling (``accelera.amp.GradScaler``; skipped steps are counted in the
    History)."""

    batch_size: int = 32
    max_epochs: int = 10
    learning_rate: float = 1e-3
    optimizer: object = "adam"
    momentum: float = 0.9
    weight_decay: float = 0.0
    validation_split: float = 0.0
    shuffle: bool = True
    seed: int | None = 0
    verbose: bool = True
    early_stopping_patience: int | None = None
    early_stopping_min_delta: float = 0.0
    restore_best_weights: bool = True
    lr_schedule: str | None = None
    warmup_epochs: int = 0
    gradient_clip_norm: float | None = None
    mixed_precision: str | None = None

    def validate(self) -> None:
        for name in ("batch_size", "max_epochs"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ArgumentError(f"TrainingConfig.{name} must be a positive integer, got {value!r}")
        if not isinstance(self.validation_split, (int, float)) or not 0.0 <= self.validation_split < 1.0:
            raise ArgumentError(f"TrainingConfig.validation_split must be in [0, 1), got {self.validation_split!r}")
        if not self.learning_rate > 0:
            raise ArgumentError(f"TrainingConfig.learning_rate must be > 0, got {self.learning_rate!r}")
        if self.lr_schedule not in (None, "cosine", "step"):
            raise ArgumentError(f"TrainingConfig.lr_schedule must be None, 'cosine' or 'step', got "
                                f"{self.lr_schedule!r}")
        if self.early_stopping_patience is not None and self.early_stopping_patience < 1:
            raise ArgumentError("TrainingConfig.early_stopping_patience must be >= 1 or None")
        if self.mixed_precision not in (None, "bfloat16", "float16"):
            raise ArgumentError(f"TrainingConfig.mixed_precision must be None, 'bfloat16' or 'float16', got "
                                f"{self.mixed_precision!r}")

    @staticmethod
    def default() -> "TrainingConfig":
        return TrainingConfig()


@dataclasses.dataclass
class History:
    """Per-epoch figures of a training run."""

    train_loss: list = dataclasses.field(default_factory=list)
    val_loss: list = dataclasses.field(default_factory=list)
    train_metrics: dict = dataclasses.field(default_factory=dict)
    val_metrics: dict = dataclasses.field(default_factory=dict)
    epoch_seconds: list = dataclasses.field(default_factory=list)
    learning_rates: list = dataclasses.field(default_factory=list)
    best_epoch: int | None = None
    stopped_early: bool = False
    skipped_steps: int = 0  # optimizer steps a float16 loss scaler skipped for an inf or nan gradient

    @property
    def epochs(self) -> int:
        return len(self.train_loss)

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


def _as_rows(name: str, value) -> np.ndarray:
    array = value.numpy() if isinstance(value, Tensor) else np.asarray(value)
    if array.ndim == 0:
        raise ShapeError(f"{name} must have a batch axis, got a scalar")
    return array


class _Progress:
    """One line per epoch; redrawn in place with a bar while the epoch runs when the output is a terminal."""

    def __init__(self, epochs: int, batches: int, enabled: bool, stream=None):
        self.epochs, self.batches, self.enabled = epochs, batches, enabled
        self.stream = stream or sys.stdout
        self.live = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()

    def batch(self, epoch: int, done: int) -> None:
        if self.live and (done == self.batches or done % max(1, self.batches // 50) == 0):
            filled = 30 * done // self.batches
            bar = "=" * max(0, filled - 1) + (">" if filled < 30 else "=") + "." * (30 - filled)
            self.stream.write(f"\rEpoch {epoch}/{self.epochs} [{bar}] {done}/{self.batches}")
            self.stream.flush()

    def end(self, epoch: int, seconds: float, figures: dict) -> None:
        if self.enabled:
            text = " - ".join(f"{k}: {v:.4f}" for k, v in figures.items())
            prefix = "\r" if self.live else ""
            self.stream.write(f"{prefix}Epoch {epoch}/{self.epochs} [{'=' * 30}] {self.batches}/{self.batches} - "
                              f"{seconds:.2f}s - {text}\n")
            self.stream.flush()


class Network:
    """A feed-forward network from the builder API, on one device (``network.device``)."""

    def __init__(self, spec: dict, device=None):
        self.spec = copy.deepcopy(spec)
        self.input_size = spec["input_size"]
        self.input_shape = tuple(spec.get("input_shape", (self.input_size,)))
        self.loss_function = Loss[spec["loss"]]
        self.dtype = spec.get("dtype", "float32")
        self.model, self.output_activation, self.output_size = build_layers(spec, device_or_default(device))
        if self.output_activation is Activation.Softmax and self.loss_function is Loss.BinaryCrossEntropy:
            raise ArgumentError("a Softmax output with BinaryCrossEntropy: use Sigmoid for binary outputs or "
                                "CategoricalCrossEntropy for classes")

    @staticmethod
    def with_input_size(input_size, device=None) -> NetworkBuilder:
        """A builder for inputs of ``input_size`` features, or of shape ``(C, H, W)`` given as a tuple."""
        return NetworkBuilder(input_size, device)

    with_input_shape = with_input_size

    # ---- the module underneath ----------------------------------------------------------------
    @property
    def device(self) -> str:
        return self.model.device

    def to(self, device) -> "Network":
        self.model.to(device)
        return self

    def parameters(self):
        return self.model.parameters()

    def num_parameters(self) -> int:
        return self.model.num_parameters()

    def state_dict(self):
        return self.model.state_dict()

    def load_state_dict(self, state) -> None:
        self.model.load_state_dict(state)

    def __repr__(self) -> str:
        return (f"Network(input_size={self.input_size}, loss={self.loss_function.name}, device={self.device}, "
                f"parameters={self.num_parameters()})\n{self.model!r}")

    # ---- forward passes -------------------------------------------------------------------------
    def _fused_loss(self) -> bool:
        return ((self.output_activation is Activation.Softmax and self.loss_function is Loss.CategoricalCrossEntropy)
                or (self.output_activation is Activation.Sigmoid and self.loss_function is Loss.BinaryCrossEntropy))

    def _activate(self, z: Tensor) -> Tensor:
        module = self.output_activation.module()
        return z if module is None else module()(z)

    def forward(self, x: Tensor) -> Tensor:
        """The network's output (after its final activation) for a batch on its device."""
        return self._activate(self.model(x))

    __call__ = forward

    def _loss(self, z: Tensor, y: Tensor) -> Tensor:
        """The loss of the final layer's pre-activation ``z`` against targets ``y``."""
        loss = self.loss_function
        if loss is Loss.CategoricalCrossEntropy:
            if self.output_activation is Activation.Softmax:
                return F.cross_entropy(z, y, check=False)
            p = self._activate(z)
            target = F.one_hot(y, self.output_size, p.dtype) if y._dtype in ("int32", "int64") else y
            return O.mean(O.negative(O.sum(O.multiply(target, O.log(O.maximum(p, 1e-12))), 1)))
        if loss is Loss.BinaryCrossEntropy:
            if self.output_activation is Activation.Sigmoid:
                return F.binary_cross_entropy_with_logits(z, y)
            return F.binary_cross_entropy(self._activate(z), y)
        out = self._activate(z)
        return F.mse_loss(out, y) if loss is Loss.MeanSquaredError else F.huber_loss(out, y)

    def _hits(self, z: Tensor, y: Tensor) -> Tensor:
        """The number of correct predictions in a batch, as a device scalar (classification losses)."""
        if self.loss_function is Loss.BinaryCrossEntropy:
            threshold = 0.0 if self.output_activation is Activation.Sigmoid else 0.5
            predicted = E.greater(z if self.output_activation is Activation.Sigmoid else self._activate(z), threshold)
            return O.sum(E.equal(predicted, E.greater(y, 0.5)).astype("float64"))
        predicted = S.argmax(z, axis=-1)
        labels = y if y.ndim == 1 else S.argmax(y, axis=-1)
        return O.sum(E.equal(predicted, labels.astype(predicted.dtype)).astype("float64"))

    # ---- data -----------------------------------------------------------------------------------
    def _inputs(self, x) -> np.ndarray:
        x = _as_rows("x", x)
        if x.ndim < 2 or math.prod(x.shape[1:]) != self.input_size:
            what = (f"{self.input_size} input features" if len(self.input_shape) == 1
                    else f"inputs of shape {self.input_shape}")
            raise ShapeError(f"the network takes {what}, got x of shape {x.shape}")
        return np.ascontiguousarray(x.reshape((len(x),) + self.input_shape), dtype=self.dtype)

    def _targets(self, y, rows: int) -> np.ndarray:
        y = _as_rows("y", y)
        if len(y) != rows:
            raise ShapeError(f"x has {rows} rows but y has {len(y)}")
        if self.loss_function is Loss.CategoricalCrossEntropy and y.ndim == 1:
            if not np.issubdtype(y.dtype, np.integer):
                raise ArgumentError(f"class labels must be integers, got {y.dtype}")
            if rows and (y.min() < 0 or y.max() >= self.output_size):
                bad = y.min() if y.min() < 0 else y.max()
                raise ArgumentError(f"label {bad} is outside [0, {self.output_size}) for the network's "
                                    f"{self.output_size} outputs")
            return y.astype(np.int64)
        y = y.reshape(rows, -1) if y.ndim == 1 and self.output_size == 1 else y
        if y.shape[1:] != (self.output_size,):
            raise ShapeError(f"the network has {self.output_size} outputs, got targets of shape {y.shape}")
        return np.ascontiguousarray(y, dtype=self.dtype)

    # ---- training -------------------------------------------------------------------------------
    def _optimizer(self, config: TrainingConfig) -> optim.Optimizer:
        choice = config.optimizer
        cls = optim.OPTIMIZERS.get(choice.lower()) if isinstance(choice, str) else choice
        if not (isinstance(cls, type) and issubclass(cls, optim.Optimizer)):
            raise ArgumentError(f"unknown optimizer {choice!r}; one of {', '.join(optim.OPTIMIZERS)}")
        params, lr = self.parameters(), config.learning_rate
        if cls is optim.SGD:
            return optim.SGD(params, lr, momentum=config.momentum, weight_decay=config.weight_decay)
        if cls in (optim.Adam, optim.AdamW, optim.RMSprop):
            return cls(params, lr, weight_decay=config.weight_decay)
        return cls(params, lr)

    def _schedule(self, optimizer, config: TrainingConfig):
        after = None
        if config.lr_schedule == "cosine":
            after = optim.CosineAnnealingLR(optimizer, max(1, config.max_epochs - config.warmup_epochs))
        elif config.lr_schedule == "step":
            after = optim.StepLR(optimizer, max(1, config.max_epochs // 3))
        if config.warmup_epochs:
            return optim.WarmupLR(optimizer, config.warmup_epochs, after)
        return after

    def train(self, x, y, config: TrainingConfig | None = None) -> History:
        """Fits the network to (x, y) and returns the per-epoch :class:`History` (Note [Training loop]).

        y: one-hot rows or integer labels for categorical cross-entropy, 0/1 values for binary
        cross-entropy, targets of the output's shape for MSE and Huber."""
        return self._fit(x, y, config, _OneDevice)

    def _fit(self, x, y, config: TrainingConfig | None, batches_on) -> History:
        """The training loop; ``batches_on(network, x, y)`` runs each batch's forward and backward passes
        (:class:`_OneDevice` here, replicas on several devices for DistributedTraining)."""
        config = config or TrainingConfig()
        config.validate()
        x = self._inputs(x)
        y = self._targets(y, len(x))
        held_out = int(len(x) * config.validation_split)
        if len(x) - held_out < 1:
            raise ArgumentError(f"validation_split {config.validation_split} leaves no training rows of {len(x)}")
        x_train, y_train = x[:len(x) - held_out], y[:len(y) - held_out]
        validation = (x[len(x) - held_out:], y[len(y) - held_out:]) if held_out else None

        runner = batches_on(self, x_train, y_train)
        n, batch = len(x_train), config.batch_size
        batches = math.ceil(n / batch)
        rng = np.random.default_rng(config.seed)
        optimizer = self._optimizer(config)
        schedule = self._schedule(optimizer, config)
        classification = self.loss_function.is_classification
        history = History()
        precision = config.mixed_precision
        autocast = amp.autocast(precision or "bfloat16", enabled=precision is not None)
        scaler = amp.GradScaler(enabled=precision == "float16")

        def update() -> None:
            if config.gradient_clip_norm is not None:
                scaler.unscale_(optimizer)
                optim.clip_grad_norm_(optimizer.params, config.gradient_clip_norm)
            scaler.step(optimizer)
            scaler.update()

        if classification:
            history.train_metrics["accuracy"] = []
            if validation is not None:
                history.val_metrics["accuracy"] = []
        progress = _Progress(config.max_epochs, batches, config.verbose)
        best, best_state, waited = math.inf, None, 0
        self.model.train()
        for epoch in range(1, config.max_epochs + 1):
            start = time.perf_counter()
            runner.epoch(rng.permutation(n) if config.shuffle else np.arange(n))
            loss_sum = hits = C.zeros((), dtype="float64", device=self.device)
            for b in range(batches):
                optimizer.zero_grad()
                batch_loss, batch_hits = runner.batch(b * batch, min(n, (b + 1) * batch), autocast, scaler, update)
                loss_sum = O.add(loss_sum, batch_loss)
                if classification:
                    hits = O.add(hits, batch_hits)
                progress.batch(epoch, b + 1)
            history.train_loss.append(runner.total(float(loss_sum.item())) / n)
            figures = {"loss": history.train_loss[-1]}
            if classification:
                history.train_metrics["accuracy"].append(runner.total(float(hits.item())) / n)
                figures["accuracy"] = history.train_metrics["accuracy"][-1]
            if validation is not None:
                result = self.evaluate(*validation, batch_size=max(batch, 256))
                self.model.train()
                history.val_loss.append(result["loss"])
                figures["val_loss"] = result["loss"]
                if classification:
                    history.val_metrics["accuracy"].append(result["accuracy"])
                    figures["val_accuracy"] = result["accuracy"]
            history.learning_rates.append(optimizer.lr)
            if schedule is not None:
                schedule.step()
            history.epoch_seconds.append(time.perf_counter() - start)
            progress.end(epoch, history.epoch_seconds[-1], figures)

            monitored = history.val_loss[-1] if validation is not None else history.train_loss[-1]
            if monitored < best - config.early_stopping_min_delta:
                best, waited, history.best_epoch = monitored, 0, epoch
                if config.early_stopping_patience is not None and config.restore_best_weights:
                    best_state = {k: v.clone() for k, v in self.state_dict().items()}
            elif config.early_stopping_patience is not None:
                waited += 1
                if waited >= config.early_stopping_patience:
                    history.stopped_early = True
                    break
        if best_state is not None and history.stopped_early:
            self.load_state_dict(best_state)
        self.model.eval()
        history.skipped_steps = scaler.skipped_steps
        return history

    fit = train

    def evaluate(self, x, y, batch_size: int = 1024) -> dict:
        """``{"loss": ..., "accuracy": ...}`` (accuracy for classification losses) over (x, y), in eval mode."""
        x = self._inputs(x)
        y = self._targets(y, len(x))
        if len(x) == 0:
            raise ArgumentError("evaluate() of an empty data set")
        self.model.eval()
        device = self.device
        loss_sum = hits = C.zeros((), dtype="float64", device=device)
        with no_grad():
            for start in range(0, len(x), batch_size):
                xb = asarray(x[start:start + batch_size], device=device)
                yb = asarray(y[start:start + batch_size], device=device)
                z = self.model(xb)
                loss_sum = O.add(loss_sum, O.multiply(self._loss(z, yb).astype("float64"), float(len(xb))))
                if self.loss_function.is_classification:
                    hits = O.add(hits, self._hits(z, yb))
        result = {"loss": float(loss_sum.item()) / len(x)}
        if self.loss_function.is_classification:
            result["accuracy"] = float(hits.item()) / len(x)
        return result

    def predict(self, x, batch_size: int = 1024) -> np.ndarray:
        """The network's outputs (after the final activation: probabilities for Softmax) as a NumPy array."""
        x = self._inputs(x)
        self.model.eval()
        outs = []
        with no_grad():
            for start in range(0, len(x), batch_size):
                outs.append(self.forward(asarray(x[start:start + batch_size], device=self.device)).numpy())
        return np.concatenate(outs) if outs else np.zeros((0, self.output_size), self.dtype)

    # ---- files ----------------------------------------------------------------------------------
    def save(self, path) -> None:
        """Weights and architecture in one safetensors file (written atomically)."""
        save_file(dict(self.state_dict()), path, {"format": "accelera.nn.Network", "architecture": spec_json(self.spec)})

    @staticmethod
    def load(path, device=None) -> "Network":
        """A network saved by :meth:`save`, on ``device`` (default: the default device)."""
        tensors, metadata = load_file(path)
        if metadata.get("format") != "accelera.nn.Network":
            raise ArgumentError(f"{path} holds no accelera.nn.Network (its metadata: {metadata})")
        network = Network(json.loads(metadata["architecture"]), device)
        network.load_state_dict(tensors)
        network.model.eval()
        return network


class _OneDevice:
    """Network.train's batches on the network's own device: the training set goes up once, each epoch's
    order once, and batches are gathered there (Note [Training loop])."""

    def __init__(self, network: Network, x: np.ndarray, y: np.ndarray):
        self.network, self.device = network, network.device
        self.xs, self.ys = asarray(x, device=self.device), asarray(y, device=self.device)
        self.order = None

    def epoch(self, order: np.ndarray) -> None:
        self.order = asarray(order.astype(np.int64), device=self.device)

    def forward_backward(self, start: int, stop: int, autocast, scaler, weight: float = 1.0):
        """Rows [start, stop) of this epoch's order: forward, the loss times ``weight`` backward (scaled),
        and the batch's loss sum and hit count as float64 device scalars (hits None for regression)."""
        net = self.network
        idx = self.order[start:stop]
        xb, yb = O.take(self.xs, idx, axis=0), O.take(self.ys, idx, axis=0)
        with autocast:
            z = net.model(xb)
            loss = net._loss(z, yb)
        scaler.scale(loss if weight == 1.0 else O.multiply(loss, weight)).backward()
        with no_grad():
            loss_sum = O.multiply(loss.detach().astype("float64"), float(stop - start))
            hits = net._hits(z.detach(), yb) if net.loss_function.is_classification else None
        return loss_sum, hits

    def batch(self, start: int, stop: int, autocast, scaler, update):
        loss_sum, hits = self.forward_backward(start, stop, autocast, scaler)
        update()
        return loss_sum, hits

    @staticmethod
    def total(value: float) -> float:
        """An epoch's figure over every process taking part (this one alone)."""
        return value
