"""Training with accelera.nn against PyTorch and NumPy, on real data (no download: Debian's
dataset-fashion-mnist and scikit-learn's digits).

    python bench/bench_train.py [--part mlp|cnn|all] [--epochs 12] [--cnn-epochs 4] [--rounds 3]
                                [--devices cpu,opencl:0] [--cpp build/dev/bench/accelera_train_fashion_mnist]
                                [--synthetic] [--no-torch] [--markdown]

1. Accuracy: the builder-API MLP 784-256-128-10 (ReLU, softmax cross-entropy, Adam 1e-3, batch 128) trained
   ``--epochs`` epochs on Fashion-MNIST's 60,000 training images and scored on its 10,000 test images
   (goal >= 88%, the dataset's published MLP baseline being 88.3%); a 64-128-10 MLP on scikit-learn's digits
   (goal >= 97%), trained 40 epochs on each of five stratified splits (seeds 0-4; the split and the initial
   weights change together): the median, with the worst and best split, since one 360-image test set moves
   by 0.28% per image.
2. Time per epoch of the same MLP and batch size, each framework in its own process (their thread pools
   never compete), ``--rounds`` interleaved rounds, the second (warm) epoch of each: accelera on every
   device of ``--devices``, PyTorch on the CPU with the same thread count, and a NumPy implementation
   (the same layers, backward and Adam written with NumPy/OpenBLAS). Medians and the spread (largest round
   over smallest).
   With ``--cpp``, the same MLP through the C++ library (accelera::nn, bench/train_fashion_mnist.cpp) is
   timed in the same rounds ("accelera C++" rows).
3. The peak bytes accelera's allocator held on the device during training.
4. ``--part cnn``: the CNN of ``accelera train --model cnn`` (two 3x3 convolution + 2x2 max-pool stages of 32
   and 64 filters, dense 128, 10 classes) trained ``--cnn-epochs`` epochs on Fashion-MNIST (goal >= 91%),
   and its time per epoch against PyTorch's (oneDNN convolutions) on the same thread count, from the second
   of two passes over the first 100 batches, scaled to the 469 batches of an epoch. ``--cnn-epochs 0``
   measures the time only.

Times need no real images: ``--synthetic`` times on random images and labels of Fashion-MNIST's shapes (for
machines without the dataset package; it refuses to report accuracy), and ``--no-torch`` leaves PyTorch's
rows out (machines without it). Each table also gives every run's time against accelera's on the CPU when
the CPU is among ``--devices`` (the GPU goal: a CNN epoch >= 10x faster than on the CPU).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

BATCH, LR = 128, 1e-3
SIZES = (784, 256, 128, 10)
DIGITS_SPLITS = 5


SYNTHETIC = "ACCELERA_BENCH_SYNTHETIC"  # set by --synthetic, read by the workers too


def fashion():
    if os.environ.get(SYNTHETIC) == "1":  # Fashion-MNIST's shapes and value range, for timing only
        rng = np.random.default_rng(0)
        images = lambda n: rng.random((n, 784), dtype=np.float32)  # noqa: E731
        labels = lambda n: rng.integers(0, 10, n, dtype=np.int64)  # noqa: E731
        return (images(60000), labels(60000)), (images(10000), labels(10000))
    from accelera import datasets
    return datasets.fashion_mnist()


# ---- one epoch per framework (run in a worker process) -----------------------------------------------

CNN_ROWS = 100 * BATCH  # timed CNN passes cover this many rows; scaled to the 60,000 of an epoch


def accelera_epochs(device: str, epochs: int, model: str = "mlp") -> dict:
    import accelera as acc
    from accelera import nn
    from accelera.nn._train_cli import build_model
    (x, y), _ = fashion()
    if model == "cnn":
        x, y = x[:CNN_ROWS], y[:CNN_ROWS]
    net = mlp(nn, SIZES, device) if model == "mlp" else build_model("cnn", "fashion-mnist", device)
    acc._core.reset_peak_memory(device)
    history = net.train(x, y, nn.TrainingConfig(batch_size=BATCH, max_epochs=epochs, learning_rate=LR, verbose=False))
    return {"epoch_seconds": history.epoch_seconds, "peak_bytes": acc.memory_stats(device)["peak_bytes"]}


def torch_epochs(epochs: int, kind: str = "mlp") -> dict:
    import torch
    nn = torch.nn
    torch.set_num_threads(os.cpu_count())
    (x, y), _ = fashion()
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    torch.manual_seed(0)
    if kind == "mlp":
        model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
    else:
        x, y = x[:CNN_ROWS].reshape(-1, 1, 28, 28), y[:CNN_ROWS]
        model = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, padding=1),
                              nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(),
                              nn.Linear(128, 10))
    opt = torch.optim.Adam(model.parameters(), LR)
    loss_fn = torch.nn.CrossEntropyLoss()
    times = []
    for _ in range(epochs):
        start = time.perf_counter()
        order = torch.randperm(len(x))
        for b in range(0, len(x), BATCH):
            idx = order[b:b + BATCH]
            loss = loss_fn(model(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        times.append(time.perf_counter() - start)
    return {"epoch_seconds": times}


def numpy_epochs(epochs: int) -> dict:
    (x, y), _ = fashion()
    rng = np.random.default_rng(0)
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = np.sqrt(6 / (fan_in + fan_out))
        params += [rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32), np.zeros(fan_out, np.float32)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    step, times = 0, []
    for _ in range(epochs):
        start = time.perf_counter()
        order = rng.permutation(len(x))
        for b in range(0, len(x), BATCH):
            idx = order[b:b + BATCH]
            xb, yb = x[idx], y[idx]
            acts = [xb]
            for i in range(0, len(params), 2):
                z = acts[-1] @ params[i] + params[i + 1]
                acts.append(np.maximum(z, 0) if i + 2 < len(params) else z)
            z = acts[-1]
            p = np.exp(z - z.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            p[np.arange(len(yb)), yb] -= 1
            g = p / len(yb)
            grads = [None] * len(params)
            for i in range(len(params) - 2, -1, -2):
                grads[i], grads[i + 1] = acts[i // 2].T @ g, g.sum(0)
                if i:
                    g = (g @ params[i].T) * (acts[i // 2] > 0)
            step += 1
            for j, gr in enumerate(grads):
                m[j] = 0.9 * m[j] + 0.1 * gr
                v[j] = 0.999 * v[j] + 0.001 * gr * gr
                params[j] -= LR * (m[j] / (1 - 0.9 ** step)) / (np.sqrt(v[j] / (1 - 0.999 ** step)) + 1e-8)
        times.append(time.perf_counter() - start)
    return {"epoch_seconds": times}


def mlp(nn, sizes, device, seed=0):
    builder = nn.Network.with_input_size(sizes[0], device=device).seed(seed)
    for width in sizes[1:-1]:
        builder.add_layer(nn.LayerBuilder.dense(width).activation(nn.Activation.ReLU))
    return (builder.add_layer(nn.LayerBuilder.dense(sizes[-1]).activation(nn.Activation.Softmax))
            .loss(nn.Loss.CategoricalCrossEntropy).build())


def worker(kind: str, device: str, model: str) -> None:
    if kind == "accelera":
        result = accelera_epochs(device, 2, model)
    elif kind == "torch":
        result = torch_epochs(2, model)
    else:
        result = numpy_epochs(2)
    print(json.dumps(result))


def run_cpp(binary: str, device: str) -> dict:
    out = subprocess.run([binary, "--device", device, "--epochs", "2", "--json"], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_worker(kind: str, device: str = "cpu", model: str = "mlp") -> dict:
    out = subprocess.run([sys.executable, __file__, "--worker", kind, "--device", device, "--model", model],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---- the benchmark -----------------------------------------------------------------------------------

def accuracy(epochs: int, device: str) -> dict:
    from accelera import datasets, nn
    (x, y), (xt, yt) = fashion()
    net = mlp(nn, SIZES, device)
    history = net.train(x, y, nn.TrainingConfig(batch_size=BATCH, max_epochs=epochs, learning_rate=LR, verbose=True))
    fashion_acc = net.evaluate(xt, yt)["accuracy"]
    digits = []
    for seed in range(DIGITS_SPLITS):
        (dx, dy), (dxt, dyt) = datasets.digits(seed=seed)
        digits_net = mlp(nn, (64, 128, 10), device, seed=seed)
        digits_net.train(dx, dy, nn.TrainingConfig(batch_size=32, max_epochs=40, learning_rate=LR, verbose=False))
        digits.append(digits_net.evaluate(dxt, dyt)["accuracy"])
    return {"fashion": fashion_acc, "digits": digits, "epoch_seconds": statistics.median(history.epoch_seconds)}


def cnn_part(args, devices) -> None:
    from accelera import nn
    from accelera.nn._train_cli import build_model
    if args.cnn_epochs > 0:
        (x, y), (xt, yt) = fashion()
        net = build_model("cnn", "fashion-mnist", "cpu")
        history = net.train(x, y, nn.TrainingConfig(batch_size=BATCH, max_epochs=args.cnn_epochs,
                                                    learning_rate=LR, verbose=True))
        print(f"\nFashion-MNIST CNN, {args.cnn_epochs} epochs on cpu: test accuracy "
              f"{net.evaluate(xt, yt)['accuracy'] * 100:.2f}% (goal >= 91%), "
              f"{statistics.median(history.epoch_seconds):.1f} s per epoch (median)")
    scale = 60000 / CNN_ROWS
    runs = {f"accelera {d}": [] for d in devices} | ({} if args.no_torch else {"pytorch cpu": []})
    peaks = {}
    for _ in range(args.rounds):
        for d in devices:
            r = run_worker("accelera", d, "cnn")
            runs[f"accelera {d}"].append(r["epoch_seconds"][-1] * scale)
            peaks[d] = max(peaks.get(d, 0), r["peak_bytes"])
        if not args.no_torch:
            runs["pytorch cpu"].append(run_worker("torch", "cpu", "cnn")["epoch_seconds"][-1] * scale)
    report(args, runs, peaks, "CNN seconds per epoch", numpy=False)


def report(args, runs, peaks, title, numpy=True) -> None:
    """One row per run: median seconds, spread, and the ratios (above 1: this run is faster) against PyTorch,
    NumPy and accelera on the CPU, each where it ran."""
    anchors = {"PyTorch": "pytorch cpu", "NumPy": "numpy cpu" if numpy else None, "accelera cpu": "accelera cpu"}
    medians = {name: statistics.median(times) for name, times in runs.items()}
    bar = "|" if args.markdown else ""
    data = " synthetic data," if os.environ.get(SYNTHETIC) == "1" else ""
    print(f"\n{title} (batch {BATCH},{data} {os.cpu_count()} threads), median of {args.rounds} interleaved rounds:")
    print(f"{bar} run {bar} s/epoch {bar} spread {bar} " + " ".join(f"vs {a} {bar}" for a in anchors)
          + f" peak device memory {bar}")
    if args.markdown:
        print("| --- " * (4 + len(anchors)) + "|")
    for name, times in runs.items():
        med = medians[name]
        device = name.split()[1] if name.startswith("accelera") else None
        peak = f"{peaks[device] / 2**20:.0f} MiB" if device in peaks else "-"
        ratios = [f"{medians[a] / med:.2f}x" if a in medians else "-" for a in anchors.values()]
        print(f"{bar} {name} {bar} {med:.3f} {bar} {max(times) / min(times):.2f}x {bar} "
              + " ".join(f"{r} {bar}" for r in ratios) + f" {peak} {bar}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--devices", default=None, help="comma-separated accelera devices (default: every one)")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--worker", choices=("accelera", "torch", "numpy"))
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--model", choices=("mlp", "cnn"), default="mlp", help="the worker's model")
    parser.add_argument("--part", choices=("mlp", "cnn", "all"), default="all")
    parser.add_argument("--cnn-epochs", type=int, default=4)
    parser.add_argument("--cpp", default=None, help="the C++ training program to time beside the Python one")
    parser.add_argument("--synthetic", action="store_true", help="time on random data of Fashion-MNIST's shapes")
    parser.add_argument("--no-torch", action="store_true", help="leave PyTorch's rows out")
    args = parser.parse_args()
    if args.synthetic:
        if args.part != "cnn" or args.cnn_epochs > 0:
            parser.error("--synthetic times only: it takes --part cnn --cnn-epochs 0 (random data has no accuracy)")
        os.environ[SYNTHETIC] = "1"
    if args.no_torch and args.part != "cnn":
        parser.error("--no-torch takes --part cnn (the MLP table's goals are against PyTorch)")
    if args.worker:
        worker(args.worker, args.device, args.model)
        return
    import accelera as acc
    devices = args.devices.split(",") if args.devices else [d["device"] for d in acc.devices()]
    if args.part in ("cnn", "all"):
        cnn_part(args, devices)
    if args.part == "cnn":
        return

    result = accuracy(args.epochs, "cpu")
    print(f"\nFashion-MNIST MLP {'-'.join(map(str, SIZES))}, {args.epochs} epochs on cpu: test accuracy "
          f"{result['fashion'] * 100:.2f}% (goal >= 88%) - digits MLP 64-128-10, median of {DIGITS_SPLITS} splits: "
          f"{statistics.median(result['digits']) * 100:.2f}% (goal >= 97%; splits "
          f"{', '.join(f'{a * 100:.2f}' for a in result['digits'])})")

    runs = {f"accelera {d}": [] for d in devices}
    if args.cpp:
        runs |= {f"accelera C++ {d}": [] for d in devices}
    runs |= {"pytorch cpu": [], "numpy cpu": []}
    peaks = {}
    for _ in range(args.rounds):
        for d in devices:
            r = run_worker("accelera", d)
            runs[f"accelera {d}"].append(r["epoch_seconds"][-1])
            peaks[d] = max(peaks.get(d, 0), r["peak_bytes"])
            if args.cpp:
                runs[f"accelera C++ {d}"].append(run_cpp(args.cpp, d)["epoch_seconds"][-1])
        runs["pytorch cpu"].append(run_worker("torch")["epoch_seconds"][-1])
        runs["numpy cpu"].append(run_worker("numpy")["epoch_seconds"][-1])
    report(args, runs, peaks, "Seconds per epoch")


if __name__ == "__main__":
    main()
