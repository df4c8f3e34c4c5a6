"""The simulator (accelera.simulate, Note [Simulator]) calibrated here, checked against measurements here,
then asked about machines that are not here.

    python bench/bench_simulate.py [--dist-bench build/dev/bench/accelera_dist_bench] [--plots docs]

1. Calibration: GEMM rates by smallest extent (products of 1024 x s x 1024, s = 64 .. 2048), copy and
   packing rates of cpu and opencl:0 (this sets POCL_DEVICES="pthread pthread" unless it is set), an MPI
   rank's float64 GEMM with the other ranks computing, and MPI broadcast and all-to-all rates per rank count.
2. Validation, in --rounds rounds (default 3), each calibrating every model just before measuring the
   cases it predicts: predicted vs measured seconds (the fastest of 5) for the out-of-core engine on one
   device (cpu, opencl:0) and on two PoCL devices, float32 n = 2048 and 4096 with a budget of 1/8 of A and B; and
   accelera::dist on 1, 2 and 4 MPI ranks (the benchmark program's own timing), float64 n = 2048, and its
   split-K schedule on 2 and 4 ranks. Target: within 15%; the table gives every round's error and their
   median.
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


def measured_engine(devices, n, budget, repeat=5):
    """The fastest of ``repeat`` runs (as the models are calibrated: accelera.simulate._fastest_seconds)."""
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
    return float(min(times)), engine.last_run


def measured_dist(program, ranks, m, n, k, schedule=None):
    """Accelera's fastest seconds of five for an m x n x k float64 product on `ranks` ranks (its own choice of
    schedule, or ``schedule``), from the distributed benchmark."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none", OMP_NUM_THREADS=str(max(1, 2 // ranks)),
               OPENBLAS_NUM_THREADS=str(max(1, 2 // ranks)))
    # The ranks run the OpenBLAS kernels that this process (and the rank GEMM's calibration) runs (Note
    # [OpenBLAS core type]): a C++ program would otherwise keep the library's own choice.
    core = ac.cpu_blas_info()["core"]
    if core:
        env.setdefault("OPENBLAS_CORETYPE", core)
    shape = f"{m}x{n}x{k}"
    forced = ["--schedule", schedule] if schedule else []
    out = subprocess.run(["mpirun", "-np", str(ranks), "--oversubscribe", program, *forced, shape],
                         capture_output=True, text=True, timeout=600, env=env, check=True).stdout
    line = next(l for l in out.splitlines() if l.startswith(f"{shape} float64"))
    return float(re.search(r"fastest ([0-9.]+) s", line).group(1))


def describe(model) -> str:
    rates = ", ".join(f"{dt} {g.peak / 1e9:.0f} GFLOP/s peak" for dt, g in model.gemm.items())
    copies = f"; up {model.upload / 1e9:.1f} GB/s, down {model.download / 1e9:.1f} GB/s" if model.has_bus else ""
    gather = f", gather {model.gather / 1e9:.1f} GB/s" if model.gather else ""
    return f"{model.name}: {rates}{copies}; pack {model.pack / 1e9:.1f} GB/s{gather}"


def engine_cases(rows: list, model, device_lists) -> None:
    """The out-of-core engine on each list of devices (every one modelled by ``model``), float32 n = 2048 and
    4096 with a budget of 1/8 of A and B: predicted and measured rows."""
    for n in (2048, 4096):
        budget = 2 * n * n * 4 // 8
        for devices in device_lists:
            models = [dataclasses.replace(model, name=d, memory=budget) for d in devices]
            predicted = sim.simulate_engine(n, n, n, "float32", models)["seconds"]
            rows.append((f"engine {','.join(devices)} n={n} float32", predicted,
                         measured_engine(devices, n, budget)[0]))


def validation_round(dist_bench: str) -> list[tuple[str, float, float]]:
    """One round: each model calibrated just before the cases it predicts are measured, so that a
    prediction and its measurement see the machine in the same state (a noisy VM moves by a third within
    minutes, Note [Simulator])."""
    rows = []
    cpu = sim.calibrate_device("cpu", dtypes=("float32",))
    print(f"  {describe(cpu)}")
    engine_cases(rows, cpu, [["cpu"]])
    ocl = sim.calibrate_device("opencl:0", dtypes=("float32",))
    print(f"  {describe(ocl)}")
    engine_cases(rows, ocl, [["opencl:0"], ["opencl:0", "opencl:1"]])
    if not os.path.exists(dist_bench):
        print(f"  ({dist_bench} not built: the MPI cases are left out)")
        return rows
    cores = os.cpu_count() or 1
    for ranks, grid in ((1, (1, 1)), (2, (1, 2)), (4, (2, 2))):
        network = sim.calibrate_network(ranks=max(2, ranks))
        print(f"  MPI between {max(2, ranks)} ranks: broadcast {network.bandwidth / 1e9:.2f} GB/s, "
              f"{network.latency * 1e6:.1f} us; all-to-all {network.exchange / 1e9:.2f} GB/s sent per rank")
        # Each rank's GEMM measured while as many processes compute at once (calibrate_rank_gemm), up to one
        # per core: they share caches and memory bandwidth. Beyond that the operating system time-slices
        # the ranks evenly, which the share states (a concurrent calibration's fastest passes would catch
        # moments when some of the others were not running).
        concurrent = min(ranks, cores)
        share = concurrent / ranks
        rank_cpu = dataclasses.replace(cpu, gemm=sim.calibrate_rank_gemm(1, dtypes=("float64",), ranks=concurrent))
        print(f"  one of {ranks} MPI ranks ({concurrent} measured at once, share {share:.2f}): "
              f"{describe(rank_cpu)}")
        predicted = sim.simulate_summa(2048, 2048, 2048, "float64", *grid, rank_cpu, network, block=64,
                                       share=share, overlap=False)["seconds"]
        measured = measured_dist(dist_bench, ranks, 2048, 2048, 2048)
        rows.append((f"dist {ranks} rank(s) n=2048 float64", predicted, measured))
        if ranks > 1:  # a skinny C with a long K, split along K (forced: within one node the library keeps
            # SUMMA, Note [Split K])
            predicted = sim.simulate_split_k(256, 256, 65536, "float64", *grid, rank_cpu, network, block=64,
                                             share=share)["seconds"]
            rows.append((f"dist split K {ranks} ranks 256x256x65536", predicted,
                         measured_dist(dist_bench, ranks, 256, 256, 65536, schedule="split_k")))
    return rows


def validate(dist_bench: str, rounds: int) -> None:
    print(f"validation: {rounds} rounds, each calibrating afresh (predicted vs measured; target within 15%)")
    by_case: dict = {}
    for r in range(rounds):
        print(f"round {r + 1}")
        for what, predicted, seconds in validation_round(dist_bench):
            error = (predicted - seconds) / seconds
            by_case.setdefault(what, []).append((predicted, seconds, error))
            print(f"  {what:<40} predicted {predicted:8.3f} s  measured {seconds:8.3f} s  error {100 * error:+6.1f}%")
    print("\n| case | predicted (median) | measured (median) | error per round | median error |")
    print("| --- | ---: | ---: | --- | ---: |")
    worst = 0.0
    for what, runs in by_case.items():
        median_error = float(np.median([e for _, _, e in runs]))
        worst = max(worst, abs(median_error))
        print(f"| {what} | {np.median([p for p, _, _ in runs]):.3f} s | {np.median([m for _, m, _ in runs]):.3f} s | "
              f"{', '.join(f'{100 * e:+.1f}%' for _, _, e in runs)} | {100 * median_error:+.1f}% |")
    print(f"worst median error: {100 * worst:.1f}%")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dist-bench", default="build/dev/bench/accelera_dist_bench")
    parser.add_argument("--plots", default=None, help="folder for the prediction plots (PNG)")
    parser.add_argument("--skip-validation", action="store_true", help="predictions only")
    parser.add_argument("--rounds", type=int, default=3, help="validation rounds, each calibrated afresh")
    args = parser.parse_args()

    if not args.skip_validation:
        validate(args.dist_bench, args.rounds)
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
