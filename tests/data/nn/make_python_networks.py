"""Writes the network Python's accelera.nn trains and saves, which tests/cpp/test_nn_network.cpp loads:
python_cnn.safetensors (the network) and python_cnn_io.safetensors (a probe batch and Python's predictions),
then python_rnn.safetensors and python_rnn_io.safetensors for a recurrent network.
Run again (python tests/data/nn/make_python_networks.py) after a change to the saved format."""
from pathlib import Path

import numpy as np
from accelera.nn import Network, LayerBuilder, Activation, Loss, TrainingConfig
from accelera.nn.safetensors import save_file

HERE = Path(__file__).resolve().parent

rng = np.random.default_rng(5)
x = rng.random((40, 1, 6, 6), dtype=np.float32)
y = (x.reshape(40, -1).sum(1) > 18).astype(np.int64) + 2 * (x[:, 0, 0, 0] > 0.5)
net = (Network.with_input_size((1, 6, 6))
       .add_layer(LayerBuilder.conv2d(3, kernel_size=3, padding=1))
       .add_layer(LayerBuilder.batch_norm().activation(Activation.ReLU))
       .add_layer(LayerBuilder.max_pool2d(2))
       .add_layer(LayerBuilder.avg_pool2d(1))
       .add_layer(LayerBuilder.dense(8).activation(Activation.GELU))
       .add_layer(LayerBuilder.layer_norm().activation(Activation.Tanh))
       .add_layer(LayerBuilder.batch_norm())
       .add_layer(LayerBuilder.dropout(0.1))
       .add_layer(LayerBuilder.dense(4).activation(Activation.Softmax))
       .loss(Loss.CategoricalCrossEntropy).build())
net.train(x, y, TrainingConfig(batch_size=8, max_epochs=2, learning_rate=1e-2, verbose=False))
probe = rng.random((5, 1, 6, 6), dtype=np.float32)
net.save(HERE / "python_cnn.safetensors")
save_file({"x": probe, "expected": net.predict(probe)}, HERE / "python_cnn_io.safetensors")
print(net)

sequences = rng.random((30, 5, 3), dtype=np.float32)
labels = (sequences[:, :, 0].sum(1) > 2.5).astype(np.int64)
rnn = (Network.with_input_size((5, 3))
       .add_layer(LayerBuilder.lstm(4, return_sequences=True))
       .add_layer(LayerBuilder.gru(3).activation(Activation.Tanh))
       .add_layer(LayerBuilder.dense(2).activation(Activation.Softmax))
       .loss(Loss.CategoricalCrossEntropy).build())
rnn.train(sequences, labels, TrainingConfig(batch_size=8, max_epochs=2, learning_rate=1e-2, verbose=False))
probe = rng.random((4, 5, 3), dtype=np.float32)
rnn.save(HERE / "python_rnn.safetensors")
save_file({"x": probe, "expected": rnn.predict(probe)}, HERE / "python_rnn_io.safetensors")
print(rnn)
