#pragma once
// The interface every device backend implements, and the registry that finds them.
// Note [Backend contract]: ops validate everything (shapes, dtypes, devices) before calling a backend,
// allocate the outputs, and broadcast inputs to the output shape with stride-0 views. A backend kernel
// may therefore assume: all tensors are on one of its devices, have the dtypes the op promised, and
// have matching shapes. Kernels must handle any strides (zero and negative included).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "accelera/core/allocator.hpp"
#include "accelera/core/device.hpp"
#include "accelera/core/tensor.hpp"

namespace accelera {

struct DeviceInfo {
  Device device;
  std::string name;
  std::string vendor;
  std::int64_t total_memory = 0;  // bytes
  std::int64_t free_memory = 0;   // bytes, as the driver or OS reports now
  int compute_units = 0;
  bool is_accelerator = false;  // a GPU or accelerator (not a CPU, even one behind OpenCL)
};

enum class BinaryOp { add, subtract, multiply, divide };
enum class UnaryOp { neg, exp, log, tanh, relu, sigmoid };
enum class ReduceOp { sum, mean, max };

std::string_view binary_op_name(BinaryOp op) noexcept;
std::string_view unary_op_name(UnaryOp op) noexcept;
std::string_view reduce_op_name(ReduceOp op) noexcept;

class Backend {
 public:
  virtual ~Backend() = default;
  virtual DeviceKind kind() const noexcept = 0;
  virtual int device_count() const noexcept = 0;
  virtual DeviceInfo device_info(int index) const = 0;
  // Total memory in bytes; the allocator's default budget is a fraction of it.
  virtual std::int64_t total_memory(int index) const = 0;
  virtual RawAllocator& raw_allocator(int index) = 0;

  // Copies between host memory and a contiguous tensor on one of this backend's devices. Device memory
  // is addressed through the tensor (storage handle + offset): on some APIs it is not a pointer.
  virtual void copy_from_host(const Tensor& dst, const void* src) = 0;
  virtual void copy_to_host(void* dst, const Tensor& src) = 0;
  virtual void synchronize(int index) = 0;

  // Kernels (see Note [Backend contract]).
  // dst = src converted to dst's dtype; same shape, any strides on both sides.
  virtual void copy(const Tensor& src, const Tensor& dst) = 0;
  virtual void fill(const Tensor& dst, double value) = 0;
  // a: (..., M, K), b: (..., K, N), out: (..., M, N), all batch extents equal; f32 or f64.
  virtual void matmul(const Tensor& a, const Tensor& b, const Tensor& out) = 0;
  virtual void binary(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) = 0;
  virtual void unary(UnaryOp op, const Tensor& x, const Tensor& out) = 0;
  // out has x's rank with the reduced axes of extent 1; axes are sorted and unique.
  virtual void reduce(ReduceOp op, const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) = 0;
};

// The backend serving a device. Throws DeviceError saying "built without X support", "no X device
// found" or that the index is out of range.
Backend& backend_for(const Device& device);
// Every device that answers now, CPU first.
std::vector<DeviceInfo> devices();
// Names of the backends compiled into this build ("cpu", ...).
std::vector<std::string> compiled_backends();
// The device Accelera picks when none is given: the first GPU or accelerator, else the CPU.
Device default_device();

// Memory helpers over allocator_for(device).
MemoryStats memory_stats(const Device& device);
void empty_cache(const Device& device);
// Sets a device's budget in bytes; throws ValueError when not positive.
void set_memory_budget(const Device& device, std::int64_t bytes);

}  // namespace accelera
