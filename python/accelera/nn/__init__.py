"""accelera.nn: layers, losses, optimizers and training on every backend, with the builder API.

Two ways to write a model:

* the builder: ``Network.with_input_size(784).add_layer(LayerBuilder.dense(256).activation(Activation.ReLU))
  ...loss(Loss.CategoricalCrossEntropy).build()``, then ``network.train(x, y, TrainingConfig(...))``,
  ``evaluate``, ``predict``, ``save`` and ``Network.load``;
* modules: subclass :class:`Module`, hold layers and :func:`Parameter` s, write ``forward``, and train
  with accelera.autograd and :mod:`accelera.nn.optim`.

Everything runs on the tensors' device (``cpu``, ``opencl:N``, ``cuda:N``) through the op table.
"""

from __future__ import annotations

from . import functional, optim
from ..amp import GradScaler, autocast
from ._conv_layers import (AvgPool1d, AvgPool2D, AvgPool2d, AvgPool3d, Conv1d, Conv2D, Conv2d, Conv3D, Conv3d,
                           MaxPool1d, MaxPool2D, MaxPool2d, MaxPool3d)
from ._builder import Activation, ActivationFunction, LayerBuilder, Loss, LossFunction, NetworkBuilder
from ._data import DataLoader
from ._distributed import DistributedTraining
from ._gpu import DeviceInfo, GpuContext, GpuManager, GpuTensor, MemoryLayout, MemoryStats
from ._layers import (GELU, BatchNorm1d, BatchNorm2d, Dense, Dropout, Embedding, Flatten, Identity, LayerNorm,
                      LeakyReLU, Linear, LogSoftmax, MultiHeadAttention, ReLU, Reshape, Sigmoid, SiLU, Softmax, Swish,
                      Tanh)
from ._losses import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, MSELoss
from ._module import Module, Parameter, Sequential
from ._recurrent import GRU, LSTM
from ._network import History, Network, TrainingConfig
from .optim import SGD, Adam, AdamW, RMSprop

__all__ = [
    "Activation", "ActivationFunction", "Adam", "AdamW", "AvgPool1d", "AvgPool2D", "AvgPool2d", "AvgPool3d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d",
    "Conv1d", "Conv2D", "Conv2d", "Conv3D", "Conv3d", "CrossEntropyLoss", "DataLoader", "Dense", "DeviceInfo", "DistributedTraining", "Dropout", "Embedding", "Flatten", "GELU", "GpuContext", "GradScaler",
    "GRU", "GpuManager", "GpuTensor", "History", "HuberLoss", "Identity", "LayerBuilder", "LayerNorm", "LeakyReLU",
    "LSTM", "Linear", "LogSoftmax", "MaxPool1d", "MaxPool2D", "MaxPool2d", "MaxPool3d", "Loss", "LossFunction", "MSELoss", "MemoryLayout", "MemoryStats", "Module",
    "MultiHeadAttention", "Network", "NetworkBuilder", "Parameter", "RMSprop", "ReLU", "Reshape", "SGD",
    "Sequential", "SiLU", "Sigmoid", "Softmax", "Swish", "Tanh", "TrainingConfig", "autocast", "functional", "optim",
]
