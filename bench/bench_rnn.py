"""LSTM and GRU layers of accelera.nn against PyTorch's (oneDNN/native CPU kernels), and a recurrent
classifier on real data.

    python bench/bench_rnn.py [--rounds 5] [--steps 5] [--devices cpu,opencl:0] [--epochs 3] [--markdown]

1. Time of one training step (forward over the sequence, backward through time) of a one-layer LSTM and
   GRU at two sizes, each framework in its own process so that thread pools never compete, ``--rounds``
   interleaved rounds of the median of ``--steps`` warm steps; medians of the rounds, their spread (largest
   over smallest) and the 90th percentile of all steps (slow steps: OpenMP wake-ups on a noisy VM, for one).
   Inputs (length, batch, features), float32.
2. ``accelera train --model lstm`` on Fashion-MNIST (each image a sequence of 28 rows of 28 pixels, LSTM 128,
   dense 10) trained ``--epochs`` epochs on cpu: test accuracy and seconds per epoch (0 epochs skips it).
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

SIZES = [  # (length, batch, features, hidden)
    (28, 128, 28, 128),
    (50, 64, 128, 256),
]


def accelera_step(kind, device, size):
    import accelera as acc
    from accelera import nn
    length, batch, features, hidden = size
    rnn = getattr(nn, kind)(features, hidden, device=device, seed=0)
    x = acc.asarray(np.random.default_rng(0).standard_normal((length, batch, features), np.float32), device=device)
    weights = acc.asarray(np.ones((length, batch, hidden), np.float32), device=device)

    def step():
        for p in rnn.parameters():
            p.grad = None
        out, _ = rnn(x)
        acc.sum(out * weights).backward()
        rnn.weight_ih_l0.grad.numpy()  # wait for the device (its gradient is the last one made)
    return step


def torch_step(kind, size):
    import torch
    length, batch, features, hidden = size
    rnn = getattr(torch.nn, kind)(features, hidden)
    x = torch.from_numpy(np.random.default_rng(0).standard_normal((length, batch, features), np.float32))
    weights = torch.ones(length, batch, hidden)

    def step():
        rnn.zero_grad(set_to_none=True)
        out, _ = rnn(x)
        (out * weights).sum().backward()
    return step


def worker(framework: str, kind: str, device: str, size: tuple, steps: int) -> None:
    step = torch_step(kind, size) if framework == "torch" else accelera_step(kind, device, size)
    step()  # warm-up: kernels compiled, buffers cached
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    print(json.dumps({"seconds": times}))


def run_worker(framework, kind, device, size, steps) -> list:
    out = subprocess.run([sys.executable, __file__, "--worker", framework, kind, device, json.dumps(size),
                          str(steps)], check=True, capture_output=True, text=True, env={**os.environ})
    return json.loads(out.stdout.strip().splitlines()[-1])["seconds"]


def percentile_90(values) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def accuracy(epochs: int) -> None:
    from accelera import datasets, nn
    from accelera.nn._train_cli import build_model
    (x, y), (x_test, y_test) = datasets.fashion_mnist()
    net = build_model("lstm", "fashion-mnist", "cpu")
    history = net.train(x, y, nn.TrainingConfig(batch_size=128, max_epochs=epochs, learning_rate=1e-3,
                                                verbose=True))
    score = net.evaluate(x_test, y_test)
    print(f"\nFashion-MNIST row-by-row LSTM 128, {epochs} epochs on cpu: test accuracy {score['accuracy']:.4f}, "
          f"{statistics.median(history.epoch_seconds):.1f} s per epoch (median)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=5, help="timed steps per round")
    parser.add_argument("--devices", default="cpu")
    parser.add_argument("--epochs", type=int, default=0)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.steps < 1 or args.rounds < 1:
        parser.error("--steps and --rounds take a positive count")
    if args.worker:
        framework, kind, device, size, steps = args.worker
        worker(framework, kind, device, tuple(json.loads(size)), int(steps))
        return
    devices = args.devices.split(",")
    rows = []
    for kind in ("LSTM", "GRU"):
        for size in SIZES:
            runs = {f"accelera {d}": [] for d in devices}
            runs["pytorch cpu"] = []
            steps = {name: [] for name in runs}
            for _ in range(args.rounds):  # interleaved rounds
                for name, framework, d in [(f"accelera {d}", "accelera", d) for d in devices] + \
                                          [("pytorch cpu", "torch", "cpu")]:
                    times = run_worker(framework, kind, d, size, args.steps)
                    runs[name].append(statistics.median(times))
                    steps[name].extend(times)
            torch_ms = statistics.median(runs["pytorch cpu"]) * 1e3
            for name, values in runs.items():
                ms = statistics.median(values) * 1e3
                rows.append((kind, size, name, ms, max(values) / min(values), percentile_90(steps[name]) * 1e3,
                             ms / torch_ms))
    if args.markdown:
        print("| layer | (T, B, I, H) | framework | ms per step | spread | p90 ms | vs PyTorch |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for kind, size, name, ms, spread, p90, ratio in rows:
            print(f"| {kind} | {size} | {name} | {ms:.1f} | {spread:.2f}x | {p90:.1f} | {ratio:.2f}x |")
    else:
        for kind, size, name, ms, spread, p90, ratio in rows:
            print(f"{kind:5s} {str(size):22s} {name:18s} {ms:8.1f} ms  spread {spread:.2f}x  p90 {p90:6.1f} ms  "
                  f"{ratio:.2f}x PyTorch")
    if args.epochs:
        accuracy(args.epochs)


if __name__ == "__main__":
    main()
