// Five Rust examples of the seed guide rnn-gpu-guide.md written with Accelera's C++ names (accelera::nn for
// the networks), keeping their structure (the Python versions of all its examples are in tests/seed_examples/test_seed_rnn_gpu_guide.py).
// They run on every GPU-API device present (opencl:N here, cuda:N on a GPU machine), and on the CPU.
#include <random>

#include "accelera/accelera.hpp"
#include "accelera/kernel.hpp"
#include "accelera/nn.hpp"
#include "helpers.hpp"

namespace acc_test {
namespace {

using accelera::KernelArg;
using accelera::KernelManager;
using accelera::LaunchSize;

// The devices an example that "uses the GPU" runs on: every OpenCL and CUDA device, else the CPU.
std::vector<Device> gpu_devices() {
  std::vector<Device> out;
  for (const auto& info : accelera::devices()) {
    if (!info.device.is_cpu()) out.push_back(info.device);
  }
  if (out.empty()) out.push_back(Device::cpu());
  return out;
}

// "Quick Start: Basic GPU Usage": list the devices, move data to one, work there, bring the result back.
TEST(SeedRnnGuide, BasicGpuUsage) {
  const auto devices = accelera::devices();
  ASSERT_FALSE(devices.empty());
  EXPECT_TRUE(devices.front().device.is_cpu());
  std::mt19937_64 rng(1);
  const Tensor cpu_data = random_tensor(Shape({100, 784}), DType::f32, rng);
  for (const Device& device : gpu_devices()) {
    SCOPED_TRACE(device.str());
    const Tensor gpu_tensor = cpu_data.to(device);  // GpuTensor::from_cpu
    EXPECT_EQ(gpu_tensor.device(), device);
    const Tensor doubled = accelera::add(gpu_tensor, gpu_tensor);  // an operation on the device
    const Tensor result = doubled.to(Device::cpu());               // to_cpu
    for (std::int64_t i = 0; i < 100; i += 7) {
      for (std::int64_t j = 0; j < 784; j += 13) ASSERT_EQ(get(result, {i, j}), 2.0 * get(cpu_data, {i, j}));
    }
  }
}

// "Memory Management": the device's memory statistics, allocated against total.
TEST(SeedRnnGuide, MemoryStats) {
  for (const Device& device : gpu_devices()) {
    SCOPED_TRACE(device.str());
    const auto before = accelera::memory_stats(device);
    const std::int64_t total = accelera::device_interface(device).total_memory(device.index);
    EXPECT_LE(before.budget_bytes, total);
    {
      const Tensor t = Tensor::empty(Shape({1024, 256}), DType::f32, device);
      const auto during = accelera::memory_stats(device);
      EXPECT_EQ(during.current_bytes, before.current_bytes + 1024 * 256 * 4);
      EXPECT_LE(during.current_bytes, during.budget_bytes);
    }
    EXPECT_EQ(accelera::memory_stats(device).current_bytes, before.current_bytes);
  }
}

constexpr const char* kCustomActivationCuda = R"(
extern "C" __global__ void custom_activation(const float* input, float* output, long long n) {
    long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (idx < n) output[idx] = input[idx] * input[idx] + 1.0f;  // x^2 + 1
})";
constexpr const char* kCustomActivationOpenCl = R"(
__kernel void custom_activation(__global const float* input, __global float* output, long n) {
    long idx = get_global_id(0);
    if (idx < n) output[idx] = input[idx] * input[idx] + 1.0f;  // x^2 + 1
})";

// "Advanced Usage: Custom GPU Kernels": compile x^2 + 1 at run time and launch it with 256-wide groups.
TEST(SeedRnnGuide, CustomGpuKernel) {
  std::mt19937_64 rng(2);
  constexpr std::int64_t n = 1001;
  const Tensor x = random_tensor(Shape({n}), DType::f32, rng);
  for (const Device& device : gpu_devices()) {
    SCOPED_TRACE(device.str());
    KernelManager kernel_manager(device);
    if (device.is_cpu()) {  // no GPU at all: the CPU has no run-time compiler, and says so
      EXPECT_THROW(kernel_manager.compile_kernel("custom_activation", kCustomActivationOpenCl, "opencl"),
                   accelera::Error);
      continue;
    }
    const bool cuda = device.kind == accelera::DeviceKind::cuda;
    auto compiled = kernel_manager.compile_kernel("custom_activation", cuda ? kCustomActivationCuda : kCustomActivationOpenCl,
                                                  cuda ? "cuda" : "opencl");
    EXPECT_EQ(compiled->name(), "custom_activation");
    const Tensor output = Tensor::empty(Shape({n}), DType::f32, device);
    const std::vector<KernelArg> args = {x.to(device), output, std::int64_t{n}};
    compiled->launch(args, LaunchSize{n}, LaunchSize{256});
    const Tensor result = output.to(Device::cpu());
    for (std::int64_t i = 0; i < n; ++i) {
      const double v = get(x, {i});
      ASSERT_NEAR(get(result, {i}), v * v + 1.0, 1e-6 * (v * v + 1.0)) << "at " << i;
    }
  }
}

// A separable problem standing in for MNIST (the Python examples' tiny_classification): class c has its mean
// at 2 e_c; one-hot targets.
std::pair<Tensor, Tensor> tiny_classification(std::uint64_t seed, std::int64_t n = 256, std::int64_t features = 20,
                                              std::int64_t classes = 3) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> noise(0.0f, 0.5f);
  Tensor x = Tensor::empty(Shape{n, features}, DType::f32), y = accelera::zeros(Shape{n, classes}, DType::f32);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto label = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(classes));
    for (std::int64_t j = 0; j < features; ++j) x.data<float>()[i * features + j] = noise(rng) + (j == label ? 2.0f : 0.0f);
    y.data<float>()[i * classes + label] = 1.0f;
  }
  return {x, y};
}

// "Quick Start: Creating GPU-Accelerated Networks".
TEST(SeedRnnGuide, CreatingGpuAcceleratedNetworks) {
  using namespace accelera::nn;
  for (const Device& device : gpu_devices()) {
    SCOPED_TRACE(device.str());
    Network network = Network::with_input_size(20, device)
                          .add_layer(LayerBuilder::dense(64).activation(ActivationFunction::ReLU))
                          .add_layer(LayerBuilder::dense(32).activation(ActivationFunction::ReLU))
                          .add_layer(LayerBuilder::dense(3).activation(ActivationFunction::Softmax))
                          .loss(LossFunction::CategoricalCrossEntropy)
                          .build();
    TrainingConfig config;
    config.batch_size = 64;
    config.max_epochs = 20;
    config.verbose = false;
    auto [train_data, train_labels] = tiny_classification(0);
    const History history = network.train(train_data, train_labels, config);
    EXPECT_LT(history.train_loss.back(), history.train_loss.front());
  }
}

// "Examples: Complete Training Example" (MNIST replaced by the separable stand-in, 50 epochs by 30).
TEST(SeedRnnGuide, CompleteTrainingExample) {
  using namespace accelera::nn;
  for (const Device& device : gpu_devices()) {
    SCOPED_TRACE(device.str());
    auto [train_data, train_labels] = tiny_classification(1, 600);
    Network network = Network::with_input_size(20, device)
                          .add_layer(LayerBuilder::dense(64).activation(ActivationFunction::ReLU))
                          .add_layer(LayerBuilder::dense(32).activation(ActivationFunction::ReLU))
                          .add_layer(LayerBuilder::dense(3).activation(ActivationFunction::Softmax))
                          .loss(LossFunction::CategoricalCrossEntropy)
                          .build();
    TrainingConfig config;
    config.max_epochs = 30;
    config.batch_size = 128;
    config.validation_split = 0.2;
    config.verbose = false;
    const History history = network.train(train_data, train_labels, config);
    EXPECT_GT(history.val_metrics.at("accuracy").back(), 0.9);
  }
}

}  // namespace
}  // namespace acc_test
