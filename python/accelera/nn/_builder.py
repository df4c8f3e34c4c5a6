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
import math

from .._core import ArgumentError, ShapeError
from . import _conv_layers as C
from . import _layers as L
from . import _recurrent as R
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


def _ints(value):
    """An int or a list of ints as JSON keeps it (the spec is saved with the weights)."""
    return list(value) if isinstance(value, (tuple, list)) else value


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
    def conv2d(filters: int, kernel_size=3, stride=1, padding=0) -> "LayerBuilder":
        """A 2-D convolution of a (C, H, W) input: ``filters`` output channels; ``padding="same"`` keeps H
        and W at stride 1 (odd kernels)."""
        if padding == "same":
            kernel = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
            padding = [k // 2 for k in kernel]
        return LayerBuilder("conv2d", filters=L._positive(filters, "conv2d filters"), kernel_size=_ints(kernel_size),
                            stride=_ints(stride), padding=_ints(padding))

    @staticmethod
    def max_pool2d(pool_size=2, stride=None) -> "LayerBuilder":
        return LayerBuilder("max_pool2d", pool_size=_ints(pool_size), stride=None if stride is None else _ints(stride))

    @staticmethod
    def avg_pool2d(pool_size=2, stride=None) -> "LayerBuilder":
        return LayerBuilder("avg_pool2d", pool_size=_ints(pool_size), stride=None if stride is None else _ints(stride))

    @staticmethod
    def lstm(units: int, return_sequences: bool = False) -> "LayerBuilder":
        """An LSTM over a (length, features) input: its last hidden state (``units``), or every step's
        ((length, units)) with ``return_sequences``."""
        return LayerBuilder("lstm", units=L._positive(units, "lstm units"), return_sequences=bool(return_sequences))

    @staticmethod
    def gru(units: int, return_sequences: bool = False) -> "LayerBuilder":
        """A GRU over a (length, features) input, as :meth:`lstm`."""
        return LayerBuilder("gru", units=L._positive(units, "gru units"), return_sequences=bool(return_sequences))

    @staticmethod
    def flatten() -> "LayerBuilder":
        return LayerBuilder("flatten")

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

    def __init__(self, input_size, device=None):
        """``input_size``: the features of a flat input, or the (C, H, W) shape of an image input."""
        shape = tuple(input_size) if isinstance(input_size, (tuple, list)) else (input_size,)
        self.input_shape = tuple(L._positive(n, "input size") for n in shape)
        self.input_size = math.prod(self.input_shape)
        self.layers: list[LayerBuilder] = []
        self.loss_function = Loss.MeanSquaredError
        self.device_name = device
        self.init_seed = 0
        self.network_dtype = "float32"

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

    def dtype(self, dtype) -> "NetworkBuilder":
        """The weights' and activations' dtype: "float32" (the default) or "float64" (for checks against
        references; mixed precision is TrainingConfig's)."""
        name = dtype if isinstance(dtype, str) else getattr(dtype, "name", None) or getattr(dtype, "__name__", None)
        if name not in ("float32", "float64"):
            raise ArgumentError(f"a network computes in float32 or float64, got {dtype!r}")
        self.network_dtype = name
        return self

    def build(self, device=None) -> "Network":
        from ._network import Network
        if not self.layers:
            raise ArgumentError("a network needs at least one layer")
        return Network(self.spec(), device if device is not None else self.device_name)

    def spec(self) -> dict:
        return {"input_size": self.input_size, "input_shape": list(self.input_shape), "loss": self.loss_function.name, "seed": self.init_seed,
                "dtype": self.network_dtype, "layers": [layer.spec() for layer in self.layers]}


def build_layers(spec: dict, device) -> tuple[Sequential, Activation, int]:
    """The modules of a network spec, the final activation (kept apart for the fused losses) and the output
    width. Shapes are followed layer by layer, without the batch axis: a dense layer after an image layer
    flattens it first; a layer that cannot take its input's shape is an error naming it."""
    modules, shape = [], tuple(spec.get("input_shape", (spec["input_size"],)))
    seed = spec.get("seed", 0)
    dtype = spec.get("dtype", "float32")
    builders = [LayerBuilder.from_spec(s) for s in spec["layers"]]
    for i, layer in enumerate(builders):
        options, layer_seed = layer.options, seed * 1000 + i
        if layer.kind in ("dense", "flatten") and len(shape) > 1:
            modules.append(L.Flatten())
            shape = (math.prod(shape),)
        if layer.kind == "dense":
            modules.append(L.Linear(shape[0], options["units"], device=device, dtype=dtype, seed=layer_seed))
            shape = (options["units"],)
        elif layer.kind in ("conv2d", "max_pool2d", "avg_pool2d"):
            if len(shape) != 3:
                raise ShapeError(f"layer {i} ({layer.kind}) needs a (C, H, W) input, got shape {shape}: start the "
                                 f"network with with_input_size((C, H, W))")
            if layer.kind == "conv2d":
                module = C.Conv2d(shape[0], options["filters"], options["kernel_size"], options["stride"],
                                  options["padding"], device=device, dtype=dtype, seed=layer_seed)
            else:
                pool = C.MaxPool2d if layer.kind == "max_pool2d" else C.AvgPool2d
                module = pool(options["pool_size"], options["stride"])
            modules.append(module)
            shape = module.output_shape(shape)
            if min(shape) < 1:
                raise ShapeError(f"layer {i} ({layer.kind}) leaves no output: its input is smaller than its window")
        elif layer.kind in ("lstm", "gru"):
            if len(shape) != 2:
                raise ShapeError(f"layer {i} ({layer.kind}) needs a (length, features) input, got shape {shape}: "
                                 f"start the network with with_input_size((length, features))")
            modules.append(R.SequenceLayer(layer.kind, shape[1], options["units"], options["return_sequences"],
                                           device=device, dtype=dtype, seed=layer_seed))
            shape = (shape[0], options["units"]) if options["return_sequences"] else (options["units"],)
        elif layer.kind == "dropout":
            modules.append(L.Dropout(options["rate"], seed=layer_seed))
        elif layer.kind == "batch_norm":
            norm = L.BatchNorm2d if len(shape) == 3 else L.BatchNorm1d
            modules.append(norm(shape[0], device=device, dtype=dtype))
        elif layer.kind == "layer_norm":
            modules.append(L.LayerNorm(shape[-1], device=device, dtype=dtype))
        last = i == len(builders) - 1
        activation = layer.activation_function
        if not last and activation.module() is not None:
            modules.append(activation.module()())
    if len(shape) != 1:
        raise ShapeError(f"the network's output has shape {shape}: end it with a dense layer")
    return Sequential(*modules), builders[-1].activation_function, shape[0]


def spec_json(spec: dict) -> str:
    return json.dumps(spec, sort_keys=True)
