"""accelera.simulate (Note [Simulator]) and the plans it replays: MatrixEngine.plan and the planner with
given budgets. The simulator's agreement with measurements is benchmarked (bench/bench_simulate.py); these
check what must hold whatever the machine."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import accelera as ac
from accelera import simulate as sim


def covers_exactly(tiles, m, n):
    covered = np.zeros((m, n), dtype=np.int64)
    for r0, rows, c0, cols in tiles:
        covered[r0:r0 + rows, c0:c0 + cols] += 1
    return bool((covered == 1).all())


@pytest.mark.parametrize("devices", [1, 2, 3, 8])
def test_plans_cover_c_once_and_give_every_device_several_tiles(devices):
    # Budgets large enough for a few big tiles: with several devices the tiles shrink so that each gets 4.
    p = sim.plan(3000, 2000, 1000, "float32", [64 << 20] * devices)
    assert covers_exactly(p["tiles"], 3000, 2000)
    if devices > 1:
        assert len(p["tiles"]) >= 4 * devices
    assert p["device_bytes"] <= 64 << 20


def test_a_budget_too_small_for_any_tile_is_out_of_memory():
    with pytest.raises(ac.OutOfMemoryError):
        sim.plan(4096, 4096, 4096, "float64", [1024])


def test_engine_plan_says_in_core_or_streamed_without_computing():
    engine = ac.MatrixEngine(device="cpu", memory_budget="1MB", enable_progress=False)
    small = engine.plan((64, 32), (32, 48), "float32")
    assert small["in_core"] and small["tiles"] == [(0, 64, 0, 48)]
    large = engine.plan((1000, 700), (700, 900), "float64")
    assert not large["in_core"] and covers_exactly(large["tiles"], 1000, 900)
    assert large["device_bytes"] <= 1 << 20
    a = np.random.default_rng(0).uniform(-1, 1, (1000, 700))
    b = np.random.default_rng(1).uniform(-1, 1, (700, 900))
    engine.matmul(a, b)
    assert engine.last_run["tiles"] == len(large["tiles"])
    assert engine.last_run["tile_shape"] == large["tile_shape"]
    with pytest.raises(ac.ShapeError):
        engine.plan((3, 4), (5, 6))


def cpu_like(name="d", upload=0.0, shares_host=False, memory=1 << 22):
    return sim.DeviceModel(name=name, gemm={"float32": sim.GemmModel(1e11, 0.0, 0.0)}, upload=upload,
                           download=upload, latency=0.0, pack=1e12, shares_host=shares_host, memory=memory)


def test_one_device_without_a_bus_takes_its_gemm_time_plus_packing():
    n = 1024
    result = sim.simulate_engine(n, n, n, "float32", [cpu_like()])
    gemm = 2.0 * n ** 3 / 1e11
    assert gemm <= result["seconds"] <= gemm * 1.05
    assert result["tiles"] == [len(result["plan"]["tiles"])]


def test_independent_devices_share_the_work_and_host_sharing_ones_do_not_gain():
    n = 2048
    one = sim.simulate_engine(n, n, n, "float32", [cpu_like(upload=1e12)])["seconds"]
    two = sim.simulate_engine(n, n, n, "float32", [cpu_like("a", 1e12), cpu_like("b", 1e12)])
    assert two["seconds"] == pytest.approx(one / 2, rel=0.15)
    assert min(two["tiles"]) > 0
    shared = sim.simulate_engine(n, n, n, "float32", [cpu_like("a", 1e12, True), cpu_like("b", 1e12, True)])
    assert shared["seconds"] == pytest.approx(one, rel=0.15)


def test_a_slow_bus_bounds_the_stream():
    n = 2048
    fast = sim.simulate_engine(n, n, n, "float32", [cpu_like(upload=1e12)])
    slow = sim.simulate_engine(n, n, n, "float32", [cpu_like(upload=1e8)])
    moved = fast["plan"]["bytes_host_to_device"]
    assert slow["seconds"] >= moved / 1e8 * 0.99


def test_copies_hide_behind_gemms_only_on_a_device_with_copy_engines():
    # A bus at 1e10 B/s: the copies take a few percent of the GEMMs' time. A device with copy engines hides
    # them; one on the host's cores (PoCL) copies on the cores that compute, so they add up.
    n = 2048
    engines = sim.simulate_engine(n, n, n, "float32", [cpu_like(upload=1e10)])
    gemm = sum(sim.GemmModel(1e11, 0.0, 0.0).seconds(t[1], t[3], min(engines["plan"]["tile_shape"][2], n - k0))
               for t in engines["plan"]["tiles"] for k0 in range(0, n, engines["plan"]["tile_shape"][2]))
    copies = (engines["plan"]["bytes_host_to_device"] + engines["plan"]["bytes_device_to_host"]) / 1e10
    assert copies > 0.05 * gemm
    assert engines["seconds"] < gemm + 0.5 * copies
    on_host = sim.simulate_engine(n, n, n, "float32", [cpu_like(upload=1e10, shares_host=True)])
    assert on_host["seconds"] == pytest.approx(gemm + copies, rel=0.01)


def test_products_that_fit_run_in_core():
    result = sim.simulate_engine(100, 100, 100, "float32", [cpu_like(memory=1 << 30)])
    assert result["in_core"] and result["seconds"] == pytest.approx(2e6 / 1e11)


def test_summa_on_one_process_has_no_broadcasts_and_more_processes_take_less_time():
    device = cpu_like(memory=1 << 34)
    network = sim.NetworkModel(bandwidth=1e10, latency=1e-6)
    one = sim.simulate_summa(4096, 4096, 4096, "float32", 1, 1, device, network)
    assert one["broadcast_seconds"] == 0
    assert one["seconds"] >= 2.0 * 4096 ** 3 / 1e11
    four = sim.simulate_summa(4096, 4096, 4096, "float32", 2, 2, device, network)
    assert four["broadcast_seconds"] > 0 and four["seconds"] < one["seconds"]
    assert four["local_shape"] == (2048, 2048)


def test_summa_overlap_hides_offloaded_broadcasts_only():
    device = cpu_like(memory=1 << 34)
    args = (8192, 8192, 8192, "float32", 4, 4, device)
    rdma = sim.NetworkModel(bandwidth=5e9, latency=1e-6, offloaded=True)
    shared = dataclasses.replace(rdma, offloaded=False)
    serial = sim.simulate_summa(*args, rdma, overlap=False)
    overlapped = sim.simulate_summa(*args, rdma)
    assert serial["seconds"] == pytest.approx(serial["broadcast_seconds"] + serial["compute_seconds"])
    # Each step costs the slower of the product and the next broadcast: at least the larger total, and less
    # than the sum by nearly the smaller one.
    slower = max(serial["broadcast_seconds"], serial["compute_seconds"])
    assert slower <= overlapped["seconds"] < serial["seconds"]
    assert overlapped["seconds"] <= slower + serial["broadcast_seconds"] / 8
    # Over shared memory the copies are the rank's own core's work: nothing is hidden.
    assert sim.simulate_summa(*args, shared)["seconds"] == pytest.approx(serial["seconds"])


def test_split_k_on_one_process_is_the_product_and_pays_only_for_skinny_products():
    device = cpu_like(memory=1 << 34)
    network = sim.NetworkModel(bandwidth=2.3e10, latency=3e-6)
    alone = sim.simulate_split_k(256, 256, 65536, "float32", 1, 1, device, network)
    assert alone["exchange_seconds"] == 0 and alone["reduce_seconds"] == 0 and alone["share"] == 65536
    assert alone["seconds"] == pytest.approx(device.gemm["float32"].seconds(256, 256, 65536))
    # A skinny C with a long K on 64 ranks: split K moves far less than SUMMA's panels (Note [Split K]).
    skinny = (1024, 1024, 1 << 22, "float32", 8, 8, device, network)
    split, summa = sim.simulate_split_k(*skinny), sim.simulate_summa(*skinny, overlap=False)
    assert split["exchange_seconds"] + split["reduce_seconds"] < 0.05 * summa["broadcast_seconds"]
    assert split["seconds"] < 0.6 * summa["seconds"]
    # A square product: each rank's partial C would be the whole C; SUMMA wins.
    square = (16384, 16384, 16384, "float32", 8, 8, device, network)
    assert sim.simulate_summa(*square, overlap=False)["seconds"] < sim.simulate_split_k(*square)["seconds"]


def test_split_k_packs_whole_shares_at_the_gather_rate_and_copies_its_own_part():
    network = sim.NetworkModel(bandwidth=1e10, latency=0.0, exchange_bandwidth=4e9)
    fast = cpu_like(memory=1 << 34)  # no gather rate measured: half the packing rate
    slow = dataclasses.replace(fast, gather=1e9)
    shape = (256, 256, 65536, "float32", 1, 2)  # one process row: A in place, B's K-halves exchanged
    b_bytes = 32768 * 256 * 4  # the rank's half of K, every column
    sent, own_copy = b_bytes / 2 / 4e9, 2 * (b_bytes / 2) / slow.pack
    assert sim.simulate_split_k(*shape, slow, network)["exchange_seconds"] == pytest.approx(
        sent + 2 * b_bytes / 1e9 + own_copy)
    assert sim.simulate_split_k(*shape, fast, network)["exchange_seconds"] == pytest.approx(
        sent + 2 * b_bytes / (fast.pack / 2) + own_copy)


def test_summa_panels_widen_for_a_small_local_c_as_the_library_chooses():
    assert sim._panel_width(2048, 2048, 8192) == 512   # 2 Mi elements over both panels' rows
    assert sim._panel_width(128, 128, 65536) == 8192   # capped at 2 Mi elements
    assert sim._panel_width(64, 64, 700) == 256        # at least 256
    assert sim._panel_width(40, 24, 4000) == 1000      # no wider than a quarter of K


def test_local_extents_add_up_and_the_first_process_holds_the_most():
    for n in range(0, 50):
        for nb in (1, 3, 8):
            for p in (1, 2, 3, 5):
                extents = [sim._local_extent(n, nb, i, p) for i in range(p)]
                assert sum(extents) == n and extents[0] == max(extents)


def test_the_scheduler_steals_as_the_engine_does():
    s = sim._Scheduler(10, 3)  # the C++ scheduler's test: runs 0-3, 4-6, 7-9
    assert [s.take(0), s.take(1), s.take(2), s.take(2), s.take(2)] == [0, 4, 7, 8, 9]
    assert [s.take(2), s.take(2), s.take(0), s.take(2), s.take(0), s.take(0)] == [2, 3, 1, 6, 5, None]


def test_stated_models_say_what_they_assume():
    gpu = sim.h100_pcie(8)
    assert gpu.has_bus and not gpu.shares_host and gpu.upload <= 50e9
    assert sim.h100_pcie(1).upload == 50e9
    assert math.isclose(sim.infiniband_ndr200().bandwidth, 23e9)
    replaced = dataclasses.replace(gpu, memory=1)
    assert replaced.memory == 1


def test_a_long_k_product_takes_the_long_k_rate_and_the_others_the_short_k_rate():
    model = sim.GemmModel(2e11, 0.0, 0.0, table=((64, 1e11), (1024, 2e11)), long_k_table=((64, 5e10), (1024, 2e11)))
    assert model.seconds(64, 64, 1 << 16) == pytest.approx(2.0 * 64 * 64 * (1 << 16) / 5e10)  # K the long side
    assert model.seconds(1024, 1024, 64) == pytest.approx(2.0 * 1024 * 1024 * 64 / 1e11)  # K the short side
    assert model.seconds(64, 1024, 1024) == pytest.approx(2.0 * 64 * 1024 * 1024 / 1e11)  # K not the longest
    plain = sim.GemmModel(2e11, 0.0, 0.0, table=((64, 1e11), (1024, 2e11)))
    assert plain.seconds(64, 64, 1 << 16) == pytest.approx(2.0 * 64 * 64 * (1 << 16) / 1e11)


def test_split_k_exchanges_at_the_all_to_all_rate_when_one_is_measured():
    device = cpu_like(memory=1 << 34)
    broadcast_only = sim.NetworkModel(bandwidth=1e10, latency=0.0)
    slow_exchange = dataclasses.replace(broadcast_only, exchange_bandwidth=2.5e9)
    assert broadcast_only.exchange == 1e10 and slow_exchange.exchange == 2.5e9
    args = (256, 256, 65536, "float32", 2, 2, device)
    fast, slow = sim.simulate_split_k(*args, broadcast_only), sim.simulate_split_k(*args, slow_exchange)
    assert slow["exchange_seconds"] > 2 * fast["exchange_seconds"] and slow["reduce_seconds"] > fast["reduce_seconds"]
    assert slow["compute_seconds"] == fast["compute_seconds"]


def test_oversubscribed_ranks_pack_at_their_share_of_a_core():
    device = dataclasses.replace(cpu_like(memory=1 << 34), pack=1e9)
    network = sim.NetworkModel(bandwidth=1e10, latency=0.0)
    args = (2048, 2048, 2048, "float32", 2, 2, device, network)
    whole = sim.simulate_summa(*args, share=1.0, overlap=False)
    half = sim.simulate_summa(*args, share=0.5, overlap=False)
    assert half["compute_seconds"] > 1.9 * whole["compute_seconds"]  # products and packing both at half speed


def test_calibration_measures_both_tables_on_the_cpu():
    model = sim.calibrate_device("cpu", dtypes=("float32",), edges=(64, 128), repeat=1)
    gemm = model.gemm["float32"]
    assert [e for e, _ in gemm.table] == [64, 128] and [e for e, _ in gemm.long_k_table] == [64, 128]
    assert all(math.isfinite(r) and r > 1e8 for _, r in gemm.table + gemm.long_k_table)
    assert 0 < gemm.call_seconds <= 1e-3 and model.pack > 0 and not model.has_bus


def test_rank_calibration_runs_its_processes_together():
    gemms = sim.calibrate_rank_gemm(1, dtypes=("float64",), edges=(64, 128), ranks=2)
    gemm = gemms["float64"]
    assert [e for e, _ in gemm.table] == [64, 128] and [e for e, _ in gemm.long_k_table] == [64, 128]
    assert all(math.isfinite(r) and r > 1e8 for _, r in gemm.table + gemm.long_k_table)
