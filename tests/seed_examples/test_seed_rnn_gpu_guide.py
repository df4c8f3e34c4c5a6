"""The Rust examples of ``rnn-gpu-guide.md`` written with Accelera's Python names, keeping their structure
(``rnn::X`` becomes ``accelera.nn.X``; ``Result``/``?`` become exceptions). Three of these examples also run in C++: tests/cpp/test_seed_examples.cpp."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import accelera as acc
from seed_harness import assert_close, example

GUIDE = "rnn-gpu-guide.md"


def tiny_classification(rng, n=256, features=20, classes=3):
    """A separable problem standing in for MNIST: class c has its mean at 2 * e_c."""
    labels = rng.integers(0, classes, n)
    x = rng.standard_normal((n, features)).astype(np.float32) * 0.5
    x[np.arange(n), labels] += 2.0
    return x, np.eye(classes, dtype=np.float32)[labels]


@example(GUIDE, "Quick Start: Basic GPU Usage")
def test_basic_gpu_usage():
    from accelera.nn import GpuManager, GpuTensor

    gpu_manager = GpuManager()
    assert len(gpu_manager.devices()) >= 1
    device = gpu_manager.default_device()
    if device is not None:
        context = gpu_manager.create_context(device.id)
        cpu_data = np.zeros((1000, 784), np.float32)
        gpu_tensor = GpuTensor.from_cpu(cpu_data, device.id, context)
        result = gpu_tensor.to_cpu(context)
        np.testing.assert_array_equal(result, cpu_data)


@example(GUIDE, "Quick Start: Creating GPU-Accelerated Networks")
def test_creating_networks():
    from accelera.nn import Activation, LayerBuilder, Loss, Network, TrainingConfig

    network = (Network.with_input_size(20)
               .add_layer(LayerBuilder.dense(64).activation(Activation.ReLU))
               .add_layer(LayerBuilder.dense(32).activation(Activation.ReLU))
               .add_layer(LayerBuilder.dense(3).activation(Activation.Softmax))
               .loss(Loss.CategoricalCrossEntropy)
               .build())
    config = TrainingConfig()
    config.batch_size = 64
    config.max_epochs = 20
    train_data, train_labels = tiny_classification(np.random.default_rng(0))
    history = network.train(train_data, train_labels, config)
    assert history.train_loss[-1] < history.train_loss[0]


@example(GUIDE, "Installation and Setup: Feature Flags")
def test_feature_flags():
    # Cargo features ("gpu", "cuda", "opencl") are CMake options here (ACCELERA_CUDA, ACCELERA_OPENCL);
    # what a build has is visible at run time, with the reason for what it lacks.
    compiled = acc.compiled_backends()
    absent = acc.absent_backends()
    assert "cpu" in compiled
    for kind in ("cuda", "opencl"):
        assert (kind in compiled) != absent.get(kind, "").startswith("built without")


@example(GUIDE, "Installation and Setup: System Requirements (CUDA, OpenCL, ROCm setup)")
def test_system_requirements_are_reported():
    # `nvcc --version` / `nvidia-smi` / the OpenCL packages: `accelera info` says what answers and why not.
    out = subprocess.run([sys.executable, "-m", "accelera", "info"], capture_output=True, text=True, check=True).stdout
    assert "opencl" in out.lower() and "cuda" in out.lower()
    for kind, reason in acc.absent_backends().items():
        assert reason in out


@example(GUIDE, "Memory Management")
def test_memory_management():
    from accelera.nn import GpuManager

    gpu_manager = GpuManager()
    context = gpu_manager.create_context(0)
    stats = context.memory_stats()
    assert 0 <= stats.allocated <= stats.total


@example(GUIDE, "Performance Optimizations: Batch Size Optimization")
def test_batch_size_optimization():
    def batch_size_for(device):
        if device["kind"] == "cuda":
            return 256 if device["total_memory"] > 8 * 1024**3 else 128
        if device["kind"] == "opencl":
            return 64
        return 32

    sizes = {d["device"]: batch_size_for(d) for d in acc.devices()}
    assert sizes["cpu"] == 32
    for d in acc.devices():
        assert sizes[d["device"]] in (32, 64, 128, 256) and d["total_memory"] > 0
    if "opencl:0" in sizes:
        assert sizes["opencl:0"] == 64


@example(GUIDE, "Performance Optimizations: Memory Layout Optimization")
def test_memory_layout_optimization(gpu_device):
    from accelera.nn import GpuManager, GpuTensor, MemoryLayout

    context = GpuManager().create_context(0)
    data = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    tensor = GpuTensor.from_cpu_with_layout(data, 0, context, MemoryLayout.GpuOptimized)
    np.testing.assert_array_equal(tensor.to_cpu(context), data)


@example(GUIDE, "Advanced Usage: Multi-GPU Training")
def test_multi_gpu_training():
    from accelera.nn import Activation, DistributedTraining, GpuManager, LayerBuilder, Loss, Network

    gpu_manager = GpuManager()
    gpu_devices = [d for d in gpu_manager.devices() if d.device_type != "generic"]
    if len(gpu_devices) < 2:
        # One accelerator here (PoCL's): the CPU's entry makes the second device, so the example's branch runs.
        gpu_devices.append(gpu_manager.devices()[0])
    if len(gpu_devices) < 2:
        pytest.skip("needs a GPU or OpenCL device besides the CPU")
    network = (Network.with_input_size(20)
               .add_layer(LayerBuilder.dense(32).activation(Activation.ReLU))
               .add_layer(LayerBuilder.dense(3).activation(Activation.Softmax))
               .loss(Loss.CategoricalCrossEntropy)
               .build())
    data, labels = tiny_classification(np.random.default_rng(1))
    if len(gpu_devices) > 1:
        # Create distributed training setup
        distributed_trainer = DistributedTraining.new(gpu_devices)
        # Train across multiple GPUs
        history = distributed_trainer.train(network, data, labels)
        assert history.epochs == 10 and history.train_loss[-1] < history.train_loss[0]
        assert network.device == gpu_devices[0].device


CUSTOM_ACTIVATION = {
    "cuda": """extern "C" __global__ void custom_activation(const float* input, float* output, int n) {
                   int idx = blockIdx.x * blockDim.x + threadIdx.x;
                   if (idx < n) output[idx] = input[idx] * input[idx] + 1.0f;  // x^2 + 1
               }""",
    "opencl": """__kernel void custom_activation(__global const float* input, __global float* output, int n) {
                     int idx = get_global_id(0);
                     if (idx < n) output[idx] = input[idx] * input[idx] + 1.0f;  // x^2 + 1
                 }""",
}


@example(GUIDE, "Advanced Usage: Custom GPU Kernels")
def test_custom_gpu_kernels(gpu_device):
    kind = gpu_device.split(":")[0]
    kernel_manager = acc.KernelManager(gpu_device)
    if kind == "cpu":  # no GPU at all: the CPU has no run-time kernel compiler, and says so
        with pytest.raises(acc.NotSupportedError):
            kernel_manager.compile_kernel("custom_activation", CUSTOM_ACTIVATION["opencl"], "opencl")
        return
    compiled = kernel_manager.compile_kernel("custom_activation", CUSTOM_ACTIVATION[kind], kind)
    assert compiled.name == "custom_activation"
    x = np.linspace(-3, 3, 1001, dtype=np.float32)
    out = acc.zeros((1001,), device=gpu_device)
    compiled.launch([acc.asarray(x, device=gpu_device), out, 1001], global_size=1001, local_size=256)
    assert_close(out, x.astype(np.float64) ** 2 + 1.0, rtol=1e-6)


@example(GUIDE, "Advanced Usage: Profiling and Debugging")
def test_profiling(capsys):
    from accelera.profiler import GpuProfiler

    profiler = GpuProfiler()
    profiler.start("matrix_multiply")
    acc.matmul(acc.ones((64, 64)), acc.ones((64, 64)))
    profiler.end("matrix_multiply")
    profiler.print_summary()
    assert "matrix_multiply" in capsys.readouterr().out


@example(GUIDE, "Troubleshooting: GPU Not Detected")
def test_gpu_not_detected():
    from accelera.nn import GpuManager

    assert GpuManager.is_gpu_available() == any(d["is_accelerator"] for d in acc.devices())


@example(GUIDE, "Troubleshooting: Out of Memory Errors")
def test_out_of_memory_errors():
    from accelera.nn import GpuManager

    stats = GpuManager().create_context(0).memory_stats()
    assert stats.allocated <= stats.total


@example(GUIDE, "Troubleshooting: Kernel Compilation Errors")
def test_kernel_compilation_errors(gpu_device):
    kind = gpu_device.split(":")[0]
    if kind == "cpu":  # no GPU at all: nothing compiles kernels at run time, and that is a typed error
        with pytest.raises(acc.NotSupportedError):
            acc.KernelManager(gpu_device).compile_kernel("test", CUSTOM_ACTIVATION["opencl"], "opencl")
        return
    # RNN_GPU_DEBUG=1 is ACCELERA_LOG_LEVEL=debug (read once; set_log_level changes it at run time).
    acc.set_log_level("debug")
    try:
        manager = acc.KernelManager(gpu_device)
        manager.compile_kernel("custom_activation", CUSTOM_ACTIVATION[kind], kind)  # compiles
        broken = CUSTOM_ACTIVATION[kind].replace("input[idx] + 1.0f", "undeclared_name + 1.0f")
        with pytest.raises(acc.ArgumentError, match="undeclared_name"):  # the build log is in the error
            manager.compile_kernel("test", broken, kind)
    finally:
        acc.set_log_level("warn")


@example(GUIDE, "Troubleshooting: Environment Variables")
def test_environment_variables(tmp_path):
    # RNN_GPU_DEVICE -> ACCELERA_DEVICE, RNN_GPU_DEBUG -> ACCELERA_LOG_LEVEL, RNN_CUDA_CACHE_PATH ->
    # ACCELERA_KERNEL_CACHE; RNN_GPU_MEMORY_POOL has no counterpart: the caching allocator is always on.
    device = "opencl:0" if any(d["device"] == "opencl:0" for d in acc.devices()) else "cpu"
    env = dict(os.environ, ACCELERA_DEVICE=device, ACCELERA_LOG_LEVEL="debug", ACCELERA_KERNEL_CACHE=str(tmp_path))
    code = ("import accelera as acc; print(acc.default_device(), acc.zeros(3).device, acc.MatrixEngine().device)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == [device] * 3
    bad = subprocess.run([sys.executable, "-c", code], env=dict(env, ACCELERA_DEVICE="gpu0"), capture_output=True,
                         text=True)
    assert bad.returncode != 0 and "ACCELERA_DEVICE" in bad.stderr


@example(GUIDE, "Examples: Complete Training Example")
def test_complete_training_example():
    from accelera.nn import Activation, GpuManager, LayerBuilder, Loss, Network, TrainingConfig

    assert len(GpuManager().devices()) >= 1
    train_data, train_labels = tiny_classification(np.random.default_rng(1), n=600)
    network = (Network.with_input_size(20)
               .add_layer(LayerBuilder.dense(64).activation(Activation.ReLU))
               .add_layer(LayerBuilder.dense(32).activation(Activation.ReLU))
               .add_layer(LayerBuilder.dense(3).activation(Activation.Softmax))
               .loss(Loss.CategoricalCrossEntropy)
               .build())
    config = TrainingConfig()
    config.max_epochs = 30
    config.batch_size = 128
    config.validation_split = 0.2
    config.verbose = False
    history = network.train(train_data, train_labels, config)
    assert history.val_metrics["accuracy"][-1] > 0.9
