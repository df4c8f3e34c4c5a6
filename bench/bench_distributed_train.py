"""Data-parallel training (accelera.nn.DistributedTraining) against training on one device, in one run.

    python bench/bench_distributed_train.py [--rows 8192] [--batch 512] [--epochs 3] [--repeat 3]
                                            [--sets opencl:0 opencl:0,opencl:1 opencl:0,cpu]

An MLP (784-256-128-10, float32) on random data; each set is a device list (one device: Network.train; more:
DistributedTraining at the same global batch). Reported: the median epoch time of --repeat interleaved runs
with its spread, and the ratio to the first set (above 1 is faster). Without POCL_DEVICES in the environment
this sets "pthread pthread", so PoCL offers two devices, both on the host's own cores: there the physical
limit is a ratio of 1.0 (nothing to gain, the cost of splitting and summing is what is measured); two GPUs
would approach 2.0 for a model whose gradients are small next to its compute.
"""

from __future__ import annotations

import argparse
import os
import statistics

os.environ.setdefault("POCL_DEVICES", "pthread pthread")

import numpy as np  # noqa: E402

from accelera.nn import (Activation, DistributedTraining, LayerBuilder, Loss, Network,  # noqa: E402
                         TrainingConfig)


def build(device):
    return (Network.with_input_size(784)
            .add_layer(LayerBuilder.dense(256).activation(Activation.ReLU))
            .add_layer(LayerBuilder.dense(128).activation(Activation.ReLU))
            .add_layer(LayerBuilder.dense(10).activation(Activation.Softmax))
            .loss(Loss.CategoricalCrossEntropy).build(device))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=8192)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sets", nargs="+", default=["opencl:0", "opencl:0,opencl:1", "opencl:0,cpu"])
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(args.rows, 784)).astype(np.float32)
    y = rng.integers(0, 10, args.rows)
    times = {s: [] for s in args.sets}
    losses = {}
    for _ in range(args.repeat):
        for s in args.sets:
            devices = s.split(",")
            network = build(devices[0])
            config = TrainingConfig(batch_size=args.batch, max_epochs=args.epochs, verbose=False)
            if len(devices) == 1:
                history = network.train(x, y, config)
            else:
                history = DistributedTraining(devices).train(network, x, y, config)
            times[s].append(statistics.median(history.epoch_seconds[1:] or history.epoch_seconds))
            losses[s] = history.train_loss[-1]
    base = statistics.median(times[args.sets[0]])
    print(f"MLP 784-256-128-10, {args.rows} rows, global batch {args.batch}, {args.epochs} epochs x {args.repeat}")
    for s in args.sets:
        med = statistics.median(times[s])
        spread = (max(times[s]) - min(times[s])) / med
        print(f"  {s:<22} epoch {med:7.3f} s  ratio {base / med:5.2f}  spread {100 * spread:4.1f}%  "
              f"final loss {losses[s]:.6f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
