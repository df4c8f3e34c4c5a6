#pragma once
// The seed guide's device names (GpuManager, GpuContext, GpuTensor, memory statistics) as thin names over
// Accelera's devices and tensors, as in Python's accelera.nn: a context is a device, a GpuTensor a Tensor
// on it. Device ids are positions in GpuManager::devices(); id 0 is the CPU.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accelera/core/device.hpp"
#include "accelera/core/export.hpp"
#include "accelera/core/tensor.hpp"

namespace accelera::nn {

enum class GpuDeviceType { Cuda, OpenCL, Generic };  // Generic: the CPU

struct DeviceInfo {
  int id = 0;
  std::string name;
  Device device = Device::cpu();
  GpuDeviceType device_type = GpuDeviceType::Generic;
  std::int64_t total_memory = 0;  // bytes
  bool is_accelerator = false;
};

struct MemoryStats {
  std::int64_t allocated = 0;  // bytes held by live tensors
  std::int64_t peak = 0;       // the most ever held at once
  std::int64_t reserved = 0;   // held by the caching allocator (live and cached)
  std::int64_t total = 0;      // the device's memory, or its budget where lower
};

// Tensors are row-major and contiguous on every backend, which is what each backend's kernels read
// fastest; both names give that layout.
enum class MemoryLayout { RowMajor, GpuOptimized };

// A device to put tensors on, with its allocator's statistics.
class ACC_API GpuContext {
 public:
  explicit GpuContext(DeviceInfo info) : m_info(std::move(info)) {}
  const DeviceInfo& info() const { return m_info; }
  const Device& device() const { return m_info.device; }
  MemoryStats memory_stats() const;

 private:
  DeviceInfo m_info;
};

// The devices of this machine: the CPU first, then every OpenCL and CUDA device.
class ACC_API GpuManager {
 public:
  GpuManager();
  const std::vector<DeviceInfo>& devices() const { return m_devices; }
  // The device Accelera uses by default (ACCELERA_DEVICE, else the best accelerator present, else the CPU).
  std::optional<DeviceInfo> default_device() const;
  // Throws DeviceError for an id that names no device.
  GpuContext create_context(int device_id) const;
  static bool is_gpu_available();

 private:
  std::vector<DeviceInfo> m_devices;
};

// A tensor on a context's device.
class ACC_API GpuTensor {
 public:
  GpuTensor(Tensor tensor, GpuContext context) : m_tensor(std::move(tensor)), m_context(std::move(context)) {}
  // A copy of `data` on the context's device; ValueError when device_id is not the context's.
  static GpuTensor from_cpu(const Tensor& data, int device_id, const GpuContext& context);
  static GpuTensor from_cpu_with_layout(const Tensor& data, int device_id, const GpuContext& context, MemoryLayout layout);
  Tensor to_cpu() const { return m_tensor.to(Device::cpu()); }
  Tensor to_cpu(const GpuContext& /*context*/) const { return to_cpu(); }
  const Tensor& tensor() const { return m_tensor; }
  const Shape& shape() const { return m_tensor.shape(); }
  const GpuContext& context() const { return m_context; }

 private:
  Tensor m_tensor;
  GpuContext m_context;
};

}  // namespace accelera::nn
