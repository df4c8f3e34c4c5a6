#pragma once
// Run-time compiled user kernels (OpenCL C through clBuildProgram, CUDA C++ through NVRTC), cached on disk
// (Note [Kernel cache] in src/core/kernel_cache.hpp).
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "accelera/core/device.hpp"
#include "accelera/core/tensor.hpp"
#include "accelera/core/export.hpp"

namespace accelera {

// The on-disk cache of built kernels (ours and users'): Note [Kernel cache] in src/core/kernel_cache.hpp.
struct KernelCacheStats {
  std::int64_t hits = 0;
  std::int64_t misses = 0;          // no entry (includes rejected ones)
  std::int64_t rejected = 0;        // entries found corrupt or stale and removed
  std::int64_t stores = 0;
  std::int64_t store_failures = 0;  // the directory or file could not be written
};
ACC_API KernelCacheStats kernel_cache_stats();

// A kernel argument: a tensor (passed as its device buffer, starting at its first element; it must be
// contiguous) or a scalar of the exact C type the kernel declares.
using KernelArg = std::variant<Tensor, std::int32_t, std::int64_t, float, double>;

// Work sizes in up to three dimensions; unused dimensions are 1.
struct LaunchSize {
  std::int64_t x = 1, y = 1, z = 1;
};

// A user kernel built for one device.
class ACC_API CompiledKernel {
 public:
  virtual ~CompiledKernel() = default;
  virtual const std::string& name() const noexcept = 0;
  virtual Device device() const noexcept = 0;
  // Enqueues the kernel on the device's compute stream. `global` counts work-items (threads) per dimension
  // and is rounded up to a multiple of `local`, the work-group (block) size, so kernels must check bounds.
  // A `local` of all zeros lets the backend choose (the OpenCL driver; 256 threads on CUDA).
  // Throws ValueError for a wrong argument count, a non-contiguous tensor or one on another device.
  virtual void launch(std::span<const KernelArg> args, LaunchSize global, LaunchSize local) = 0;
};

// Compiles and keeps user kernels by name, as the KernelManager of the seed documents.
class ACC_API KernelManager {
 public:
  // Kernels for `backend` ("opencl" or "cuda") are built for `device` when it is of that kind, else for
  // device 0 of that kind.
  explicit KernelManager(std::optional<Device> device = std::nullopt);

  // Builds `source` and returns the kernel named `name` in it. A build failure raises ValueError carrying
  // the compiler's log; an absent backend raises DeviceError saying why. `options` go to the compiler.
  std::shared_ptr<CompiledKernel> compile_kernel(const std::string& name, const std::string& source,
                                                 std::string_view backend, const std::string& options = "");
  // Launches a kernel compiled earlier; KeyError-like ValueError when there is none by that name.
  void launch(const std::string& name, std::span<const KernelArg> args, LaunchSize global, LaunchSize local);
  std::shared_ptr<CompiledKernel> get(const std::string& name) const;
  std::vector<std::string> compiled_kernels() const;

 private:
  std::optional<Device> m_device;
  mutable std::mutex m_mutex;
  std::map<std::string, std::shared_ptr<CompiledKernel>> m_kernels;
};

}  // namespace accelera
