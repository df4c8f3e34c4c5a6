// The Rust examples of the seed guide rnn-gpu-guide.md written with Accelera's C++ names (accelera::nn for
// the networks), keeping their structure (the Python versions of all its examples are in tests/seed_examples/test_seed_rnn_gpu_guide.py).
// They run on every GPU-API device present (opencl:N here, cuda:N on a GPU machine), and on the CPU.
#include <random>
#include <sstream>

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

// "Quick Start: Basic GPU Usage": list the devices, take the default one, move data there, work there, bring
// the result back.
TEST(SeedRnnGuide, BasicGpuUsage) {
  using namespace accelera::nn;
  GpuManager gpu_manager;
  ASSERT_FALSE(gpu_manager.devices().empty());
  EXPECT_EQ(gpu_manager.devices().front().device_type, GpuDeviceType::Generic);  // id 0 is the CPU
  std::mt19937_64 rng(1);
  const Tensor cpu_data = random_tensor(Shape({1000, 784}), DType::f32, rng);
  const std::optional<DeviceInfo> device = gpu_manager.default_device();
  ASSERT_TRUE(device.has_value());
  EXPECT_EQ(device->device, accelera::default_device());
  const GpuContext context = gpu_manager.create_context(device->id);
  const GpuTensor gpu_tensor = GpuTensor::from_cpu(cpu_data, device->id, context);
  EXPECT_EQ(gpu_tensor.tensor().device(), device->device);
  const GpuTensor doubled(accelera::add(gpu_tensor.tensor(), gpu_tensor.tensor()), context);  // work on the device
  const Tensor result = doubled.to_cpu(context);
  for (std::int64_t i = 0; i < 1000; i += 37) {
    for (std::int64_t j = 0; j < 784; j += 13) ASSERT_EQ(get(result, {i, j}), 2.0 * get(cpu_data, {i, j}));
  }
  // Every device by id, and the seed's MemoryLayout variant.
  for (const DeviceInfo& info : gpu_manager.devices()) {
    SCOPED_TRACE(info.device.str());
    const GpuContext c = gpu_manager.create_context(info.id);
    const GpuTensor t = GpuTensor::from_cpu_with_layout(cpu_data, info.id, c, MemoryLayout::GpuOptimized);
    EXPECT_EQ(t.shape(), cpu_data.shape());
    EXPECT_EQ(get(t.to_cpu(), {999, 783}), get(cpu_data, {999, 783}));
  }
  EXPECT_THROW(gpu_manager.create_context(static_cast<int>(gpu_manager.devices().size())), accelera::DeviceError);
  EXPECT_THROW(GpuTensor::from_cpu(cpu_data, device->id + 1, context), accelera::ValueError);
}

// "Memory Management": the device's memory statistics, allocated against total.
TEST(SeedRnnGuide, MemoryStats) {
  using namespace accelera::nn;
  GpuManager gpu_manager;
  for (const DeviceInfo& info : gpu_manager.devices()) {
    SCOPED_TRACE(info.device.str());
    const GpuContext context = gpu_manager.create_context(info.id);
    const auto before = context.memory_stats();
    EXPECT_LE(before.total, info.total_memory);
    EXPECT_GT(before.total, 0);
    {
      const Tensor t = Tensor::empty(Shape({1024, 256}), DType::f32, context.device());
      const auto during = context.memory_stats();
      EXPECT_EQ(during.allocated, before.allocated + 1024 * 256 * 4);
      EXPECT_GE(during.peak, during.allocated);
      EXPECT_GE(during.reserved, during.allocated);
      EXPECT_LE(during.allocated, during.total);
    }
    EXPECT_EQ(context.memory_stats().allocated, before.allocated);
  }
}

// "Performance Optimizations: Batch Size Optimization": choose by the device's type and memory.
TEST(SeedRnnGuide, BatchSizeByDeviceType) {
  using namespace accelera::nn;
  GpuManager gpu_manager;
  for (const DeviceInfo& device : gpu_manager.devices()) {
    std::int64_t batch_size = 32;
    switch (device.device_type) {
      case GpuDeviceType::Cuda: batch_size = device.total_memory > (std::int64_t{8} << 30) ? 256 : 128; break;
      case GpuDeviceType::OpenCL: batch_size = 64; break;
      default: batch_size = 32; break;
    }
    SCOPED_TRACE(device.device.str());
    switch (device.device.kind) {
      case accelera::DeviceKind::cuda: EXPECT_EQ(batch_size, device.total_memory > (std::int64_t{8} << 30) ? 256 : 128); break;
      case accelera::DeviceKind::opencl: EXPECT_EQ(batch_size, 64); break;
      case accelera::DeviceKind::cpu: EXPECT_EQ(batch_size, 32); break;
    }
  }
}

// "Profiling and Debugging": regions around device work, with the memory used, then the report.
TEST(SeedRnnGuide, ProfilingAndDebugging) {
  using namespace accelera::nn;
  for (const Device& device : gpu_devices()) {
    SCOPED_TRACE(device.str());
    GpuProfiler profiler;
    std::mt19937_64 rng(3);
    const Tensor a = random_tensor(Shape({256, 256}), DType::f32, rng).to(device);
    profiler.start("matrix_multiply");
    const Tensor product = accelera::matmul(a, a);
    const std::int64_t memory_used = accelera::memory_stats(device).current_bytes;
    profiler.end("matrix_multiply", memory_used, device.index);
    profiler.start("activation");
    const Tensor activated = accelera::relu(product);
    profiler.end("activation", memory_used, device.index);
    std::ostringstream report;
    profiler.print_summary(report);
    EXPECT_NE(report.str().find("matrix_multiply"), std::string::npos) << report.str();
    EXPECT_NE(report.str().find("activation"), std::string::npos) << report.str();
    EXPECT_NE(report.str().find("peak"), std::string::npos) << report.str();
    const auto rows = profiler.summary();
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_NEAR(rows[0].share + rows[1].share, 1.0, 1e-12);
    EXPECT_EQ(profiler.regions()[0].memory_used, memory_used);
  }
}

// "Troubleshooting: GPU Not Detected".
TEST(SeedRnnGuide, GpuNotDetected) {
  bool any_accelerator = false;
  for (const auto& info : accelera::devices()) any_accelerator = any_accelerator || info.is_accelerator;
  EXPECT_EQ(accelera::nn::GpuManager::is_gpu_available(), any_accelerator);
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
  GpuManager gpu_manager;
  EXPECT_GE(gpu_manager.devices().size(), 1u);  // "Available devices: {}"
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
