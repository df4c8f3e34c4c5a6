"""``accelera train``: trains, reports the test accuracy, writes the curves atomically, refuses bad input."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from accelera import nn

from test_cli import _run


@pytest.mark.parametrize("model", ["mlp", "cnn", "lstm", "gru"])
def test_train_digits_writes_curves_and_the_network(tmp_path, model):
    plot, saved = tmp_path / "curves.png", tmp_path / "net.safetensors"
    recurrent = ("--epochs", "4", "--learning-rate", "0.01") if model in ("lstm", "gru") else ("--epochs", "2")
    proc = _run("train", "--dataset", "digits", "--model", model, *recurrent, "--plot", str(plot),
                "--save", str(saved))
    assert proc.returncode == 0, proc.stderr
    epochs = recurrent[1]
    assert f"{model} on digits" in proc.stdout and f"Epoch {epochs}/{epochs}" in proc.stdout
    accuracy = float(proc.stdout.split("test accuracy ")[1].split(",")[0])
    assert 0.5 < accuracy <= 1.0  # a few epochs on 1,438 images: far above chance (0.1)
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(plot.stat().st_mode) == 0o666 & ~umask
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curves.png", "net.safetensors"]  # no temporaries
    network = nn.Network.load(saved)
    assert network.predict(np.zeros((1, 64), np.float32)).shape == (1, 10)  # 8 rows of 8 for lstm and gru


def test_train_without_a_plot_and_quiet(tmp_path):
    proc = _run("train", "--dataset", "digits", "--epochs", "1", "--no-plot", "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Epoch" not in proc.stdout and "test accuracy" in proc.stdout
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, needle", [
    (["--model", "rnn"], "invalid choice: 'rnn'"),
    (["--dataset", "mnist"], "invalid choice: 'mnist'"),
    (["--epochs", "0", "--no-plot"], "--epochs and --batch-size must be positive"),
    (["--plot", "/no/such/dir/curves.png"], "does not exist"),
    (["--device", "vulkan:0", "--no-plot", "--dataset", "digits"], "vulkan"),
])
def test_train_bad_arguments_fail_with_a_message(args, needle):
    proc = _run("train", *args)
    assert proc.returncode != 0
    assert needle in proc.stderr, proc.stderr
