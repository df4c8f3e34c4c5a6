"""``accelera train``: trains an MLP, a CNN, an LSTM or a GRU on Fashion-MNIST or scikit-learn's digits
on any device, with a progress bar per epoch, the final test accuracy, and a PNG of the loss and accuracy curves."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from .. import datasets
from .._core import Error
from .._files import new_file_mode
from ._builder import Activation, LayerBuilder, Loss
from ._network import Network, TrainingConfig

_IMAGE_SIDE = {"fashion-mnist": 28, "digits": 8}


def _load(dataset: str):
    if dataset == "fashion-mnist":
        return datasets.fashion_mnist()
    return datasets.digits()


def build_model(model: str, dataset: str, device) -> Network:
    """The command's models: an MLP (784-256-128-10 on Fashion-MNIST, 64-128-64-10 on digits), a CNN of two
    3x3 convolution + 2x2 max-pool stages (32 and 64 filters) and a 128-unit dense layer, or an LSTM / GRU of
    128 units that reads each image row by row (a sequence of 28 rows of 28 pixels) and classifies from
    its last state."""
    B, A = LayerBuilder, Activation
    side = _IMAGE_SIDE[dataset]
    if model == "mlp":
        hidden = (256, 128) if dataset == "fashion-mnist" else (128, 64)
        builder = Network.with_input_size(side * side)
        for units in hidden:
            builder.add_layer(B.dense(units).activation(A.ReLU))
    elif model in ("lstm", "gru"):
        builder = Network.with_input_size((side, side)).add_layer(getattr(B, model)(128))
    else:
        builder = (Network.with_input_size((1, side, side))
                   .add_layer(B.conv2d(32, 3, padding="same").activation(A.ReLU))
                   .add_layer(B.max_pool2d(2))
                   .add_layer(B.conv2d(64, 3, padding="same").activation(A.ReLU))
                   .add_layer(B.max_pool2d(2))
                   .add_layer(B.dense(128).activation(A.ReLU)))
    return builder.add_layer(B.dense(10).activation(A.Softmax)).loss(Loss.CategoricalCrossEntropy).build(device)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="accelera train", description=__doc__.split("\n")[0].removeprefix("``accelera "
                                                                                                          "train``: "))
    p.add_argument("--dataset", choices=sorted(_IMAGE_SIDE), default="fashion-mnist")
    p.add_argument("--model", choices=("mlp", "cnn", "lstm", "gru"), default="mlp")
    p.add_argument("--device", default=None, help="cpu, opencl:N or cuda:N (default: the best present)")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--validation-split", type=float, default=0.1,
                   help="fraction of the training rows held out for the validation curves (Keras semantics)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--mixed-precision", choices=("bfloat16", "float16"), default=None,
                   help="forward pass in this dtype with float32 weights (accelera.amp)")
    p.add_argument("--plot", default="accelera-train.png", help="where to write the curves (PNG)")
    p.add_argument("--no-plot", action="store_true", help="do not draw the curves")
    p.add_argument("--save", default=None, help="write the trained network here (safetensors)")
    p.add_argument("-q", "--quiet", action="store_true", help="no per-epoch progress")
    return p


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise SystemExit("accelera train: error: drawing the curves needs matplotlib (pip install matplotlib); "
                         "or pass --no-plot") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot_history(history, path: Path, title: str, plt) -> None:
    """Loss and accuracy per epoch, train and validation, written to `path` through a temporary file so
    that an interrupted or failed run never leaves a half-written PNG under the final name."""
    from matplotlib.ticker import MaxNLocator
    epochs = range(1, history.epochs + 1)
    fig, (loss_axes, accuracy_axes) = plt.subplots(1, 2, figsize=(10, 4))
    loss_axes.plot(epochs, history.train_loss, "o-", label="train")
    accuracy_axes.plot(epochs, history.train_metrics["accuracy"], "o-", label="train")
    if history.val_loss:
        loss_axes.plot(epochs, history.val_loss, "s-", label="validation")
        accuracy_axes.plot(epochs, history.val_metrics["accuracy"], "s-", label="validation")
    for axes, name in ((loss_axes, "loss"), (accuracy_axes, "accuracy")):
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_xlabel("epoch")
        axes.set_ylabel(name)
        axes.grid(alpha=0.3)
        axes.legend()
    fig.suptitle(title)
    fig.tight_layout()
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            fig.savefig(out, format="png", dpi=100)
        os.chmod(temporary, new_file_mode())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    finally:
        plt.close(fig)


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.epochs < 1 or args.batch_size < 1:
        raise SystemExit("accelera train: error: --epochs and --batch-size must be positive")
    plt = None if args.no_plot else _pyplot()  # before training: a missing package fails in seconds, not hours
    plot_path = Path(args.plot).resolve()
    if plt is not None and not plot_path.parent.is_dir():
        raise SystemExit(f"accelera train: error: the directory of --plot {args.plot} does not exist")
    try:
        (x_train, y_train), (x_test, y_test) = _load(args.dataset)
        network = build_model(args.model, args.dataset, args.device)
        print(f"{args.model} on {args.dataset}: {len(x_train)} training rows, {len(x_test)} test rows, "
              f"{network.num_parameters():,} parameters, device {network.device}", flush=True)
        config = TrainingConfig(batch_size=args.batch_size, max_epochs=args.epochs, learning_rate=args.learning_rate,
                                validation_split=args.validation_split, seed=args.seed, verbose=not args.quiet,
                                mixed_precision=args.mixed_precision)
        start = time.perf_counter()
        history = network.train(x_train, y_train, config)
        seconds = time.perf_counter() - start
        result = network.evaluate(x_test, y_test)
    except Error as e:
        print(f"accelera train: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\naccelera train: interrupted; nothing written", file=sys.stderr)
        return 130
    print(f"test accuracy {result['accuracy']:.4f}, test loss {result['loss']:.4f} after {history.epochs} epochs "
          f"({seconds:.1f} s, {seconds / history.epochs:.2f} s per epoch)")
    if plt is not None:
        plot_history(history, plot_path, f"{args.model} on {args.dataset} ({network.device}): test accuracy "
                                         f"{result['accuracy']:.4f}", plt)
        print(f"curves written to {plot_path}")
    if args.save:
        network.save(args.save)
        print(f"network written to {args.save}")
    return 0
