// The backend registry: which backends this build has, which devices answer, and one caching allocator
// per device (created on first use, alive until exit so that tensors outliving main() can still free).
#include <algorithm>
#include <array>
#include <memory>
#include <mutex>

#include "accelera/backend.hpp"
#include "accelera/core/config.hpp"
#include "accelera/core/error.hpp"
#include "backends/register.hpp"

namespace accelera {

namespace {

struct Registry {
  std::array<std::unique_ptr<Backend>, 3> backends;  // indexed by DeviceKind
  std::array<std::string, 3> absent_reasons;
  std::mutex mutex;
  std::vector<std::unique_ptr<CachingAllocator>> allocators;
  std::vector<Device> allocator_devices;

  Registry() {
    detail::BackendRegistration registration{this};
    detail::register_builtin_backends(registration);
  }
};

Registry& registry() {
  // Deliberately leaked: Python may free tensors after static destructors have run.
  static Registry* instance = new Registry();
  return *instance;
}

std::size_t slot(DeviceKind kind) { return static_cast<std::size_t>(kind); }

}  // namespace

namespace detail {

void BackendRegistration::add(std::unique_ptr<Backend> backend) {
  auto* r = static_cast<Registry*>(registry);
  const auto kind = backend->kind();
  if (backend->device_count() == 0) {
    r->absent_reasons[slot(kind)] = fmt::format("no {} device found", device_kind_name(kind));
    return;
  }
  r->backends[slot(kind)] = std::move(backend);
}

void BackendRegistration::absent(DeviceKind kind, std::string reason) {
  static_cast<Registry*>(registry)->absent_reasons[slot(kind)] = std::move(reason);
}

}  // namespace detail

Backend& backend_for(const Device& device) {
  auto& r = registry();
  auto& backend = r.backends[slot(device.kind)];
  if (!backend) {
    const auto& reason = r.absent_reasons[slot(device.kind)];
    throw DeviceError(fmt::format("device {} is not available: {}", device.str(),
                                  reason.empty() ? fmt::format("built without {} support",
                                                               device_kind_name(device.kind))
                                                 : reason));
  }
  ACC_CHECK(device.index >= 0 && device.index < backend->device_count(), DeviceError, "no such device {}: {} {} device(s) present",
            device.str(), backend->device_count(), device_kind_name(device.kind));
  return *backend;
}

std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> out;
  for (auto& backend : registry().backends) {
    if (!backend) continue;
    for (int i = 0; i < backend->device_count(); ++i) out.push_back(backend->device_info(i));
  }
  return out;
}

std::vector<std::string> compiled_backends() {
  std::vector<std::string> names;
  detail::for_each_compiled_backend([&](DeviceKind kind) { names.emplace_back(device_kind_name(kind)); });
  return names;
}

std::string backend_absent_reason(DeviceKind kind) { return registry().absent_reasons[slot(kind)]; }

Device default_device() {
  auto& r = registry();
  for (auto kind : {DeviceKind::cuda, DeviceKind::opencl}) {
    const auto& backend = r.backends[slot(kind)];
    if (!backend) continue;
    for (int i = 0; i < backend->device_count(); ++i) {
      if (backend->device_info(i).is_accelerator) return Device{kind, i};
    }
  }
  return Device::cpu();
}

CachingAllocator& allocator_for(const Device& device) {
  Backend& backend = backend_for(device);
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  for (std::size_t i = 0; i < r.allocator_devices.size(); ++i) {
    if (r.allocator_devices[i] == device) return *r.allocators[i];
  }
  const auto total = backend.total_memory(device.index);
  const auto budget = std::max<std::int64_t>(1, static_cast<std::int64_t>(config().memory_threshold *
                                                                          static_cast<double>(total)));
  r.allocators.push_back(std::make_unique<CachingAllocator>(device, backend.raw_allocator(device.index), budget));
  r.allocator_devices.push_back(device);
  return *r.allocators.back();
}

MemoryStats memory_stats(const Device& device) { return allocator_for(device).stats(); }
void empty_cache(const Device& device) { allocator_for(device).empty_cache(); }
void set_memory_budget(const Device& device, std::int64_t bytes) { allocator_for(device).set_budget(bytes); }

std::string_view binary_op_name(BinaryOp op) noexcept {
  switch (op) {
    case BinaryOp::add: return "add";
    case BinaryOp::subtract: return "subtract";
    case BinaryOp::multiply: return "multiply";
    case BinaryOp::divide: return "divide";
  }
  return "?";
}

std::string_view unary_op_name(UnaryOp op) noexcept {
  switch (op) {
    case UnaryOp::neg: return "neg";
    case UnaryOp::exp: return "exp";
    case UnaryOp::log: return "log";
    case UnaryOp::tanh: return "tanh";
    case UnaryOp::relu: return "relu";
    case UnaryOp::sigmoid: return "sigmoid";
  }
  return "?";
}

std::string_view reduce_op_name(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::mean: return "mean";
    case ReduceOp::max: return "max";
  }
  return "?";
}

}  // namespace accelera

namespace accelera {

void Backend::matmul_accumulate(const Tensor&, const Tensor&, const Tensor&) {
  throw NotSupportedError(fmt::format("the {} backend cannot accumulate a matmul into its output",
                                      device_kind_name(kind())));
}

bool Backend::computes(DType dtype) const noexcept {
  return dtype == DType::f32 || dtype == DType::f64 || dtype == DType::i32 || dtype == DType::i64;
}

std::shared_ptr<CompiledKernel> Backend::compile_kernel(int, const std::string& name, const std::string&,
                                                        const std::string&) {
  throw NotSupportedError(fmt::format("cannot compile kernel '{}': the {} backend has no run-time kernel compiler",
                                      name, device_kind_name(kind())));
}

}  // namespace accelera
