"""accelera.nn.DistributedTraining (Note [Data-parallel training]): a Network trained over several devices
follows one device's loss curve at the same global batch size. In this process PoCL offers one OpenCL
device, so the pair is an OpenCL device with the CPU; two OpenCL devices run in a child process with
POCL_DEVICES="pthread pthread"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import accelera as ac
from accelera.nn import (Activation, DistributedTraining, GpuManager, LayerBuilder, Loss, Network,
                         TrainingConfig)

OTHERS = [d["device"] for d in ac.devices() if d["kind"] != "cpu"]
needs_device = pytest.mark.skipif(not OTHERS, reason="needs a GPU or OpenCL device besides the CPU")


def classifier(device, dtype="float64"):
    return (Network.with_input_size(12).add_layer(LayerBuilder.dense(16).activation(Activation.Tanh))
            .add_layer(LayerBuilder.dense(3).activation(Activation.Softmax)).loss(Loss.CategoricalCrossEntropy)
            .dtype(dtype).build(device))


def regressor(device):
    return (Network.with_input_size(5).add_layer(LayerBuilder.dense(8).activation(Activation.ReLU))
            .add_layer(LayerBuilder.dense(2)).loss(Loss.MeanSquaredError).dtype("float64").build(device))


def data(rows, features, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(rows, features)), rng.integers(0, 3, rows)


def relative(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(a), 1e-300)))


def weights_close(one, two, rtol):
    w1, w2 = one.state_dict(), two.state_dict()
    for name in w1:
        np.testing.assert_allclose(w2[name].numpy(), w1[name].numpy(), rtol=rtol, atol=1e-12, err_msg=name)


@needs_device
@pytest.mark.parametrize("optimizer, clip", [("adam", None), ("sgd", 0.5)])
def test_fifty_full_batch_steps_follow_one_device_within_1e_5(optimizer, clip):
    # One batch of all 101 rows per epoch: each epoch's loss is one step's, so History compares step by
    # step. 101 rows: the shards hold 51 and 50.
    x, y = data(101, 12)
    config = dict(batch_size=101, max_epochs=50, verbose=False, learning_rate=1e-2, optimizer=optimizer,
                  gradient_clip_norm=clip)
    one = classifier("cpu")
    h1 = one.train(x, y, TrainingConfig(**config))
    two = classifier("cpu")
    trainer = DistributedTraining([OTHERS[0], "cpu"])
    h2 = trainer.train(two, x, y, TrainingConfig(**config))
    assert h2.epochs == 50 and two.device == OTHERS[0]
    assert relative(h1.train_loss, h2.train_loss) <= 1e-5
    assert relative(h1.train_metrics["accuracy"], h2.train_metrics["accuracy"]) == 0.0
    assert h1.train_loss[-1] < h1.train_loss[0]
    weights_close(one, two, 1e-5)


@needs_device
def test_minibatches_with_a_short_last_batch_and_a_validation_set():
    # 263 rows less 10% held out: 237 in batches of 64, the last of 45; MSE over two outputs.
    rng = np.random.default_rng(1)
    x = rng.normal(size=(263, 5))
    y = np.stack([x[:, 0] - 2 * x[:, 1], np.tanh(x[:, 2])], axis=1)
    config = dict(batch_size=64, max_epochs=4, verbose=False, learning_rate=1e-2, validation_split=0.1)
    one, two = regressor("cpu"), regressor("cpu")
    h1 = one.train(x, y, TrainingConfig(**config))
    h2 = DistributedTraining([OTHERS[0], "cpu"]).train(two, x, y, TrainingConfig(**config))
    assert relative(h1.train_loss, h2.train_loss) <= 1e-5
    assert relative(h1.val_loss, h2.val_loss) <= 1e-5
    weights_close(one, two, 1e-5)


def test_one_device_is_ordinary_training():
    x, y = data(50, 12)
    config = dict(batch_size=16, max_epochs=3, verbose=False)
    one, two = classifier("cpu"), classifier("cpu")
    h1 = one.train(x, y, TrainingConfig(**config))
    h2 = DistributedTraining(["cpu"]).train(two, x, y, TrainingConfig(**config))
    assert h1.train_loss == h2.train_loss


def test_devices_come_from_names_all_or_the_gpu_manager():
    assert DistributedTraining("all", include_cpu=True).devices == OTHERS + ["cpu"]
    infos = [d for d in GpuManager().devices() if d.is_accelerator or d.device_type != "generic"]
    if infos:
        assert DistributedTraining.new(infos).devices == [d.device for d in infos]
    assert repr(DistributedTraining(["cpu"])) == "DistributedTraining(devices=['cpu'])"


@pytest.mark.parametrize("devices, error, words", [
    (5, ac.ArgumentError, "'all' or a list"),
    ([3], ac.ArgumentError, "'all' or a list"),
    (["cpu", "cpu"], ValueError, "named twice"),
    (["opencl:57"], ac.DeviceError, "opencl:57"),
])
def test_bad_device_lists_are_refused(devices, error, words):
    with pytest.raises(error, match=words):
        DistributedTraining(devices)


def test_train_takes_a_network():
    with pytest.raises(ac.ArgumentError, match="takes a Network"):
        DistributedTraining(["cpu"]).train(object(), np.zeros((2, 3)), np.zeros(2))


def test_a_float64_network_computes_and_saves_in_float64(tmp_path):
    net = classifier("cpu")
    assert {p.dtype.name for p in net.parameters()} == {"float64"}
    assert net.predict(np.ones((2, 12))).dtype == np.float64
    net.save(tmp_path / "n.safetensors")
    assert {p.dtype.name for p in Network.load(tmp_path / "n.safetensors").parameters()} == {"float64"}
    assert {p.dtype.name for p in classifier("cpu", np.float32).parameters()} == {"float32"}
    with pytest.raises(ac.ArgumentError, match="float32 or float64"):
        classifier("cpu", "float16")


CHILD = textwrap.dedent("""
    import json, sys
    import numpy as np
    import accelera as ac
    from accelera.nn import Activation, DistributedTraining, LayerBuilder, Loss, Network, TrainingConfig

    def build(device):
        return (Network.with_input_size(12).add_layer(LayerBuilder.dense(16).activation(Activation.Tanh))
                .add_layer(LayerBuilder.dense(3).activation(Activation.Softmax))
                .loss(Loss.CategoricalCrossEntropy).dtype("float64").build(device))

    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(101, 12)), rng.integers(0, 3, 101)
    config = lambda: TrainingConfig(batch_size=101, max_epochs=50, verbose=False, learning_rate=1e-2)
    one, two = build("opencl:0"), build("opencl:0")
    trainer = DistributedTraining("all")
    h1, h2 = one.train(x, y, config()), trainer.train(two, x, y, config())
    w1, w2 = one.state_dict(), two.state_dict()
    print(json.dumps({"devices": trainer.devices, "one": h1.train_loss, "two": h2.train_loss,
                      "weights": max(float(np.max(np.abs(w1[k].numpy() - w2[k].numpy()) /
                                                  np.maximum(np.abs(w1[k].numpy()), 1e-12))) for k in w1)}))
""")


@pytest.mark.skipif("opencl" not in ac.compiled_backends(), reason="built without OpenCL")
def test_two_opencl_devices_follow_one_within_1e_5():
    env = dict(os.environ, POCL_DEVICES="pthread pthread")
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300, env=env,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["devices"] == ["opencl:0", "opencl:1"]
    assert len(result["two"]) == 50
    assert relative(result["one"], result["two"]) <= 1e-5
    assert result["weights"] <= 1e-5


MPI_CHILD = textwrap.dedent("""
    import json
    import numpy as np
    from mpi4py import MPI
    from accelera.nn import Activation, DistributedTraining, LayerBuilder, Loss, Network, TrainingConfig

    def build(device, seed):
        return (Network.with_input_size(12).add_layer(LayerBuilder.dense(16).activation(Activation.Tanh))
                .add_layer(LayerBuilder.dense(3).activation(Activation.Softmax))
                .loss(Loss.CategoricalCrossEntropy).dtype("float64").seed(seed).build(device))

    comm = MPI.COMM_WORLD
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(101, 12)), rng.integers(0, 3, 101)
    config = lambda: TrainingConfig(batch_size=101, max_epochs=50, verbose=False, learning_rate=1e-2)
    one = build("cpu", 0)
    h1 = one.train(x, y, config())
    # Each rank builds its network from another seed: rank 0's weights must reach every rank first.
    two = build("cpu", comm.Get_rank())
    trainer = DistributedTraining(DEVICES, comm=comm)
    h2 = trainer.train(two, x, y, config())
    w1, w2 = one.state_dict(), two.state_dict()
    report = {"rank": comm.Get_rank(), "repr": repr(trainer), "one": h1.train_loss, "two": h2.train_loss,
              "accuracy": h2.train_metrics["accuracy"],
              "weights": max(float(np.max(np.abs(w1[k].numpy() - w2[k].numpy()) /
                                          np.maximum(np.abs(w1[k].numpy()), 1e-12))) for k in w1)}
    # Batch norm's running statistics come from each rank's shard; rank 0's are every rank's after each step.
    normed = (Network.with_input_size(12).add_layer(LayerBuilder.dense(8).activation(Activation.ReLU))
              .add_layer(LayerBuilder.batch_norm()).add_layer(LayerBuilder.dense(3).activation(Activation.Softmax))
              .loss(Loss.CategoricalCrossEntropy).dtype("float64").build("cpu"))
    DistributedTraining(DEVICES, comm=comm).train(normed, x, y, TrainingConfig(batch_size=40, max_epochs=2,
                                                                                 verbose=False))
    report["state"] = {k: v.numpy().tolist() for k, v in normed.state_dict().items()}
    reports = comm.gather(report)
    if comm.Get_rank() == 0:
        print(json.dumps(reports))
""")


def _mpirun():
    import shutil
    return shutil.which("mpirun")


def _has_mpi4py():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.skipif(_mpirun() is None or not _has_mpi4py(), reason="needs mpirun and mpi4py (scripts/install-deps.sh)")
@pytest.mark.parametrize("devices", [["cpu"], [OTHERS[0] if OTHERS else "cpu", "cpu"]], ids=["cpu", "two-devices"])
def test_two_mpi_ranks_follow_one_device_within_1e_5(devices, tmp_path):
    if len(set(devices)) < len(devices):
        pytest.skip("needs a GPU or OpenCL device besides the CPU")
    script = tmp_path / "child.py"
    script.write_text(MPI_CHILD.replace("DEVICES", repr(devices)))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none", OMP_NUM_THREADS="1")
    proc = subprocess.run([_mpirun(), "-np", "2", "--oversubscribe", sys.executable, str(script)],
                          capture_output=True, text=True, timeout=300, env=env, check=False)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    reports = json.loads(proc.stdout.strip().splitlines()[-1])
    assert [r["rank"] for r in reports] == [0, 1]
    for r in reports:
        assert r["repr"] == f"DistributedTraining(devices={devices}, ranks=2)"
        assert len(r["two"]) == 50
        assert relative(r["one"], r["two"]) <= 1e-5
        assert r["weights"] <= 1e-5
    # Every rank reports the whole batch's figures.
    assert reports[0]["two"] == reports[1]["two"] and reports[0]["accuracy"] == reports[1]["accuracy"]
    # ... and holds the same network, batch norm's running statistics included.
    assert any("running" in k for k in reports[0]["state"])
    assert reports[0]["state"] == reports[1]["state"]
