"""The simulator (accelera.simulate, Note [Simulator]) calibrated here, checked against measurements here,
then asked about machines that are not here.

    python bench/bench_simulate.py [--dist-bench build/dev/bench/accelera_dist_bench] [--plots docs]

1. Calibration: GEMM rates (fit over square products of 64 to 2048), copy and packing rates of cpu,
   opencl:0 and opencl:1 (this sets POCL_DEVICES="pthread pthread" unless it is set), and MPI broadcast
   bandwidth and latency between two ranks.
2. Validation: predicted vs measured seconds (median of 3) for the out-of-core engine on one device (cpu,
   opencl:0) and on two PoCL devices, float32 n = 2048 and 4096 with a budget of 1/8 of A and B; and
   accelera::dist on 1, 2 and 4 MPI ranks (the benchmark program's own timing), float64 n = 2048.
   Target: within 15%.
3. Predictions, with the stated models (accelera.simulate.h100_pcie, infiniband_ndr200): the engine on
   1-8 H100s in one host for a float32 product of n = 131072 (A and B 64 GiB each), and SUMMA on 1-64 nodes
   of one H100 each, float64, strong (n = 65536) and weak (n = 32768 sqrt(P)) scaling. Plots with --plots.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import re
import subprocess
import time

os.environ.setdefault("POCL_DEVICES", "pthread pthread")

import numpy as np  # noqa: E402

import accelera as ac  # noqa: E402
from accelera import simulate as sim  # noqa: E402


def measured_engine(devices, n, budget, repeat=3):
    rng = np.random.default_rng(n)
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    engine = ac.MatrixEngine(devices=devices, memory_budget=budget, enable_progress=False)
    engine.matmul(a, b)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        engine.matmul(a, b)
        times.append(time.perf_counter() - start)
    return float(np.median(times)), engine.last_run


def measured_dist(program, ranks, m, n, k):
    """Accelera's median seconds for an m x n x k float64 product on `ranks` ranks (its own choice of
    schedule), from the distributed benchmark."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none", OMP_NUM_THREADS=str(max(1, 2 // ranks)),
               OPENBLAS_NUM_THREADS=str(max(1, 2 // ranks)))
    shape = f"{m}x{n}x{k}"
    out = subprocess.run(["mpirun", "-np", str(ranks), "--oversubscribe", program, shape], capture_output=True,
                         text=True, timeout=600, env=env, check=True).stdout
    line = next(l for l in out.splitlines() if l.startswith(f"{shape} float64"))
    return float(re.search(r"Accelera ([0-9.]+) s", line).group(1))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dist-bench", default="build/dev/bench/accelera_dist_bench")
    parser.add_argument("--plots", default=None, help="folder for the prediction plots (PNG)")
    parser.add_argument("--skip-validation", action="store_true", help="predictions only")
    args = parser.parse_args()

    print("calibrating ...")
    cpu = sim.calibrate_device("cpu")
    ocl = sim.calibrate_device("opencl:0")
    network = sim.calibrate_network()
    for m in (cpu, ocl):
        print(f"  {m.name}: float32 {m.gemm['float32'].peak / 1e9:.0f} GFLOP/s peak (half at "
              f"{m.gemm['float32'].half_edge:.0f}), float64 {m.gemm['float64'].peak / 1e9:.0f}; up "
              f"{m.upload / 1e9:.1f} GB/s, down {m.download / 1e9:.1f} GB/s, pack {m.pack / 1e9:.1f} GB/s")
    print(f"  MPI broadcast, 2 ranks: {network.bandwidth / 1e9:.2f} GB/s, {network.latency * 1e6:.1f} us")

    print("\nvalidation (predicted vs measured; target within 15%)")
    rows = []
    for n in (2048, 4096):
        budget = 2 * n * n * 4 // 8
        cases = [("cpu", [cpu]), ("opencl:0", [ocl]),
                 ("opencl:0,opencl:1", [ocl, dataclasses.replace(ocl, name="opencl:1")])]
        for label, models in cases:
            models = [dataclasses.replace(m, memory=budget) for m in models]
            predicted = sim.simulate_engine(n, n, n, "float32", models)["seconds"]
            seconds, _ = measured_engine(label.split(","), n, budget)
            rows.append((f"engine {label} n={n} float32", predicted, seconds))
    if os.path.exists(args.dist_bench):
        cores = os.cpu_count() or 1
        # mpirun binds each rank to one core while there are enough (then a rank's extra BLAS threads share
        # that core), and binds nothing when oversubscribed: ranks then share the cores evenly.
        rank_cpu = dataclasses.replace(cpu, gemm=sim.calibrate_rank_gemm(1))
        for ranks, grid in ((1, (1, 1)), (2, (1, 2)), (4, (2, 2))):
            share = min(1.0, cores / ranks)
            predicted = sim.simulate_summa(2048, 2048, 2048, "float64", *grid, rank_cpu, network, block=64,
                                           share=share, overlap=False)["seconds"]
            rows.append((f"dist {ranks} rank(s) n=2048 float64", predicted,
                         measured_dist(args.dist_bench, ranks, 2048, 2048, 2048)))
        # A skinny C with a long K, which the library splits along K on more than one rank (Note [Split K]).
        for ranks, grid in ((2, (1, 2)), (4, (2, 2))):
            share = min(1.0, cores / ranks)
            predicted = sim.simulate_split_k(256, 256, 65536, "float64", *grid, rank_cpu, network, block=64,
                                             share=share)["seconds"]
            rows.append((f"dist split K {ranks} ranks 256x256x65536", predicted,
                         measured_dist(args.dist_bench, ranks, 256, 256, 65536)))
    else:
        print(f"  ({args.dist_bench} not built: the MPI cases are left out)")
    worst = 0.0
    for what, predicted, seconds in rows:
        error = (predicted - seconds) / seconds
        worst = max(worst, abs(error))
        print(f"  {what:<40} predicted {predicted:8.3f} s  measured {seconds:8.3f} s  error {100 * error:+6.1f}%")
    print(f"  worst: {100 * worst:.1f}%")

    print("\npredictions: the engine on 1-8 H100s in one host, float32 n = 131072 (A, B 64 GiB each)")
    n = 131072
    gpus, effs = [], []
    for count in range(1, 9):
        model = sim.h100_pcie(count)
        result = sim.simulate_engine(n, n, n, "float32", [model] * count)
        ideal = 2.0 * n ** 3 / (count * model.gemm["float32"].peak)
        gpus.append(count)
        effs.append(ideal / result["seconds"])
        print(f"  {count} GPU(s): {result['seconds']:7.1f} s, {2.0 * n ** 3 / result['seconds'] / 1e12:6.1f} "
              f"TFLOP/s, efficiency {100 * effs[-1]:5.1f}%, tiles {result['tiles']}")

    print("\npredictions: SUMMA on nodes of one H100, InfiniBand NDR200, float64, blocks 512")
    gpu, ib = sim.h100_pcie(1), sim.infiniband_ndr200()
    nodes = [1, 4, 16, 64]
    strong, weak = [], []
    for p in nodes:
        side = int(math.isqrt(p))
        for n_, store in ((65536, strong), (int(32768 * math.sqrt(p)), weak)):
            r = sim.simulate_summa(n_, n_, n_, "float64", side, side, gpu, ib, block=512, panel_width=512)
            ideal = 2.0 * n_ ** 3 / (p * gpu.gemm["float64"].peak)
            store.append(ideal / r["seconds"])
            print(f"  {p:2d} nodes n={n_:6d}: {r['seconds']:8.2f} s, efficiency {100 * store[-1]:5.1f}% "
                  f"(broadcasts {r['broadcast_seconds']:.2f} s)")

    print("\npredictions: a skinny product, 4096 x 4096 x 2^24 float64, on nodes of one H100, NDR200, blocks 512"
          " (SUMMA and split K, each forced)")
    for p in nodes:
        side = int(math.isqrt(p))
        shape = (4096, 4096, 1 << 24, "float64", side, side, gpu, ib)
        summa, split = sim.simulate_summa(*shape, block=512), sim.simulate_split_k(*shape, block=512)
        ideal = 2.0 * 4096 * 4096 * (1 << 24) / (p * gpu.gemm["float64"].peak)
        print(f"  {p:2d} nodes: SUMMA {summa['seconds']:7.2f} s ({100 * ideal / summa['seconds']:5.1f}%), split K "
              f"{split['seconds']:7.2f} s ({100 * ideal / split['seconds']:5.1f}%)")

    if args.plots:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(5, 3.2))
        ax.plot(gpus, [100 * e for e in effs], "o-")
        ax.set_xlabel("H100s in one host (PCIe 5.0)")
        ax.set_ylabel("efficiency (% of GEMM peak)")
        ax.set_title("out-of-core float32 matmul, n = 131072 (predicted)")
        ax.set_ylim(0, 105)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(args.plots, "sim_multi_gpu.png"), dpi=110)
        fig, ax = plt.subplots(figsize=(5, 3.2))
        ax.plot(nodes, [100 * e for e in strong], "o-", label="strong, n = 65536")
        ax.plot(nodes, [100 * e for e in weak], "s-", label="weak, n = 32768 sqrt(P)")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("nodes (one H100 each, NDR200)")
        ax.set_ylabel("efficiency (% of GEMM peak)")
        ax.set_title("SUMMA float64 (predicted)")
        ax.set_ylim(0, 105)
        ax.grid(alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(args.plots, "sim_nodes.png"), dpi=110)
        print(f"\nplots: {args.plots}/sim_multi_gpu.png, {args.plots}/sim_nodes.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
