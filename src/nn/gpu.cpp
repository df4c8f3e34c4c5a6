// The seed's device names over Accelera's devices (include/accelera/nn/gpu.hpp).
#include "accelera/nn/gpu.hpp"

#include <algorithm>

#include "accelera/core/allocator.hpp"
#include "accelera/core/error.hpp"
#include "accelera/core/registry.hpp"

namespace accelera::nn {

MemoryStats GpuContext::memory_stats() const {
  const accelera::MemoryStats s = accelera::memory_stats(m_info.device);
  const std::int64_t total = s.budget_bytes > 0 ? std::min(m_info.total_memory, s.budget_bytes) : m_info.total_memory;
  return {s.current_bytes, s.peak_bytes, s.reserved_bytes, total};
}

GpuManager::GpuManager() {
  int id = 0;
  for (const auto& d : accelera::devices()) {
    const GpuDeviceType type = d.device.kind == DeviceKind::cuda     ? GpuDeviceType::Cuda
                               : d.device.kind == DeviceKind::opencl ? GpuDeviceType::OpenCL
                                                                     : GpuDeviceType::Generic;
    m_devices.push_back({id++, d.name, d.device, type, d.total_memory, d.is_accelerator});
  }
}

std::optional<DeviceInfo> GpuManager::default_device() const {
  const Device device = accelera::default_device();
  for (const auto& d : m_devices)
    if (d.device == device) return d;
  return std::nullopt;
}

GpuContext GpuManager::create_context(int device_id) const {
  if (device_id < 0 || device_id >= static_cast<int>(m_devices.size())) {
    std::string names;
    for (const auto& d : m_devices) names += (names.empty() ? "" : ", ") + d.device.str();
    throw DeviceError(fmt::format("no device with id {}: this machine has {} ({})", device_id, m_devices.size(), names));
  }
  return GpuContext(m_devices[static_cast<std::size_t>(device_id)]);
}

bool GpuManager::is_gpu_available() {
  const auto all = accelera::devices();
  return std::any_of(all.begin(), all.end(), [](const auto& d) { return d.is_accelerator; });
}

GpuTensor GpuTensor::from_cpu(const Tensor& data, int device_id, const GpuContext& context) {
  if (device_id != context.info().id)
    throw ValueError(fmt::format("device id {} does not match the context's device {} ({})", device_id,
                                 context.info().id, context.device().str()));
  if (!data.defined()) throw ValueError("GpuTensor::from_cpu of an undefined tensor");
  return GpuTensor(data.to(context.device()).contiguous(), context);
}

GpuTensor GpuTensor::from_cpu_with_layout(const Tensor& data, int device_id, const GpuContext& context, MemoryLayout) {
  return from_cpu(data, device_id, context);  // both layouts are row-major (see MemoryLayout)
}

}  // namespace accelera::nn
