"""The builder API: ``Network.with_input_size(784).add_layer(LayerBuilder.dense(512).activation(
Activation.ReLU))...loss(Loss.CategoricalCrossEntropy).build()``, trained with ``network.train(x, y,
TrainingConfig())``.

A network is a Sequential of the layers the builder names, on one device. When the last activation and the
loss belong together (Softmax with categorical cross-entropy, Sigmoid with binary cross-entropy) training
computes the loss from the logits through the fused log-softmax (or the stable log-sigmoid form): the same
value, without log(0) and with one kernel fewer; ``predict`` still returns probabilities.
"""

from __future__ import annotations

import enum
import json

from .._core import ArgumentError
from . import _layers as L
from ._module import Sequential


class Activation(enum.Enum):
    """Activation functions a layer can end with."""

    Linear = "linear"
    ReLU = "relu"
    LeakyReLU = "leaky_relu"
    Sigmoid = "sigmoid"
    Tanh = "tanh"
    GELU = "gelu"
    Swish = "swish"
    SiLU = "swish"
    Softmax = "softmax"

    def module(self):
        return {"linear": None, "relu": L.ReLU, "leaky_relu": L.LeakyReLU, "sigmoid": L.Sigmoid, "tanh": L.Tanh,
                "gelu": L.GELU, "swish": L.SiLU, "softmax": L.Softmax}[self.value]


class Loss(enum.Enum):
    """Training objectives; classification losses also report accuracy."""

    MeanSquaredError = "mse"
    MSE = "mse"
    CategoricalCrossEntropy = "categorical_cross_entropy"
    CrossEntropy = "categorical_cross_entropy"
    BinaryCrossEntropy = "binary_cross_entropy"
    Huber = "huber"

    @property
    def is_classification(self) -> bool:
        return self in (Loss.CategoricalCrossEntropy, Loss.BinaryCrossEntropy)


ActivationFunction = Activation  # the seed's names
LossFunction = Loss


def _enum(enum_type, value, what: str):
    if isinstance(value, enum_type):
        return value
    if isinstance(value, str):
        for member in enum_type:
            if value.lower() in (member.name.lower(), member.value):
                return member
    raise ArgumentError(f"unknown {what} {value!r}; one of {', '.join(m.name for m in enum_type)}")


class LayerBuilder:
    """One layer of a builder network: ``LayerBuilder.dense(512).activation(Activation.ReLU)``."""

    def __init__(self, kind: str, **options):
        self.kind = kind
        self.options = options
        self.activation_function = Activation.Linear

    @staticmethod
    def dense(units: int) -> "LayerBuilder":
        return LayerBuilder("dense", units=L._positive(units, "dense units"))

    @staticmethod
    def dropout(rate: float) -> "LayerBuilder":
        if not 0.0 <= rate < 1.0:
            raise ArgumentError(f"dropout rate must be in [0, 1), got {rate}")
        return LayerBuilder("dropout", rate=float(rate))

    @staticmethod
    def batch_norm() -> "LayerBuilder":
        return LayerBuilder("batch_norm")

    @staticmethod
    def layer_norm() -> "LayerBuilder":
        return LayerBuilder("layer_norm")

    def activation(self, activation) -> "LayerBuilder":
        self.activation_function = _enum(Activation, activation, "activation")
        return self

    def spec(self) -> dict:
        return {"kind": self.kind, **self.options, "activation": self.activation_function.name}

    @staticmethod
    def from_spec(spec: dict) -> "LayerBuilder":
        spec = dict(spec)
        kind, activation = spec.pop("kind"), spec.pop("activation")
        return getattr(LayerBuilder, kind)(**spec).activation(activation)


class NetworkBuilder:
    """Collects layers, the loss and the device; ``build()`` makes the :class:`Network`."""

    def __init__(self, input_size: int, device=None):
        self.input_size = L._positive(input_size, "input size")
        self.layers: list[LayerBuilder] = []
        self.loss_function = Loss.MeanSquaredError
        self.device_name = device
        self.init_seed = 0

    def add_layer(self, layer: LayerBuilder) -> "NetworkBuilder":
        if not isinstance(layer, LayerBuilder):
            raise ArgumentError(f"add_layer takes a LayerBuilder, got {type(layer).__name__}")
        self.layers.append(layer)
        return self

    def loss(self, loss) -> "NetworkBuilder":
        self.loss_function = _enum(Loss, loss, "loss")
        return self

    def device(self, device) -> "NetworkBuilder":
        self.device_name = device
        return self

    def seed(self, seed: int) -> "NetworkBuilder":
        """The seed of the initial weights (0 by default: a network built twice starts the same)."""
        self.init_seed = int(seed)
        return self

    def build(self, device=None) -> "Network":
        from ._network import Network
        if not self.layers:
            raise ArgumentError("a network needs at least one layer")
        return Network(self.spec(), device if device is not None else self.device_name)

    def spec(self) -> dict:
        return {"input_size": self.input_size, "loss": self.loss_function.name, "seed": self.init_seed,
                "layers": [layer.spec() for layer in self.layers]}


def build_layers(spec: dict, device) -> tuple[Sequential, Activation, int]:
    """The modules of a network spec, the final activation (kept apart for the fused losses) and the output
    width."""
    modules, width = [], spec["input_size"]
    seed = spec.get("seed", 0)
    builders = [LayerBuilder.from_spec(s) for s in spec["layers"]]
    for i, layer in enumerate(builders):
        if layer.kind == "dense":
            modules.append(L.Linear(width, layer.options["units"], device=device, seed=seed * 1000 + i))
            width = layer.options["units"]
        elif layer.kind == "dropout":
            modules.append(L.Dropout(layer.options["rate"], seed=seed * 1000 + i))
        elif layer.kind == "batch_norm":
            modules.append(L.BatchNorm1d(width, device=device))
        elif layer.kind == "layer_norm":
            modules.append(L.LayerNorm(width, device=device))
        last = i == len(builders) - 1
        activation = layer.activation_function
        if not last and activation.module() is not None:
            modules.append(activation.module()())
    return Sequential(*modules), builders[-1].activation_function, width


def spec_json(spec: dict) -> str:
    return json.dumps(spec, sort_keys=True)
