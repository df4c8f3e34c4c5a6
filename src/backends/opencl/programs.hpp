#pragma once
// Building and launching the backend's own OpenCL programs. Each kernel file (<name>.cl beside its
// launcher, embedded at build time) is built after common.cl, once per device, option set and prelude.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "backends/opencl/opencl_interface.hpp"

namespace accelera::opencl {

// The embedded source of <name>.cl (generated at build time).
std::string_view embedded_source(std::string_view name);

enum class BuildFailure { internal_error, user_error };

// Builds `source` for the device, through the on-disk cache (Note [Kernel cache]). A build failure throws
// InternalError (our kernels) or ValueError (user kernels) carrying the build log.
cl_program build_program(ClDevice& device, const std::string& source, const std::string& options,
                         const std::string& what, BuildFailure on_failure);
// What a built program depends on: the cache key.
std::string program_cache_key(const ClDevice& device, const std::string& source, const std::string& options);

// Owns a cl_kernel.
class Kernel {
 public:
  explicit Kernel(cl_kernel kernel) : m_kernel(kernel) {}
  ~Kernel() {
    if (m_kernel != nullptr) clReleaseKernel(m_kernel);
  }
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;
  cl_kernel get() const noexcept { return m_kernel; }

 private:
  cl_kernel m_kernel;
};

// The kernel of program `file` (named like the file) built with `options`. `prelude` is source placed
// between common.cl and the file: shared helpers (embedded_source("row_reduce")) or generated definitions.
Kernel make_kernel(ClDevice& device, std::string_view file, const std::string& options,
                   std::string_view prelude = {});

// Mirrors the Layout struct of kernels/common.cl.
struct ClLayout {
  cl_long dims[8];
  cl_long strides[3][8];
};
inline constexpr int kMaxDims = 8;

// Build options naming the element type of a dtype: "-DT=float" etc. (and ACC_INTEGER, UT for ints).
std::string element_options(const ClDevice& device, DType dtype);
// The unsigned OpenCL type of an element size (1, 2, 4 or 8 bytes): kernels that only move elements
// (gathers, selects) are compiled once per size rather than once per dtype.
const char* bits_type(std::size_t itemsize);

// Sets kernel arguments in order.
class KernelArgs {
 public:
  explicit KernelArgs(cl_kernel kernel) : m_kernel(kernel) {}
  template <typename T>
  KernelArgs& add(const T& value) {
    ACC_CL_CHECK(clSetKernelArg(m_kernel, m_index++, sizeof(T), &value), "setting a kernel argument");
    return *this;
  }
  KernelArgs& local(std::size_t bytes) {
    ACC_CL_CHECK(clSetKernelArg(m_kernel, m_index++, bytes, nullptr), "setting a local-memory argument");
    return *this;
  }

 private:
  cl_kernel m_kernel;
  cl_uint m_index = 0;
};

// Work-group size for `items` independent work-items on a CPU device: small enough that every compute
// unit gets several groups, so that a slow core does not hold up the others.
inline std::size_t chunked_group_size(const ClDevice& d, std::size_t items) {
  const std::size_t groups_wanted = 4 * static_cast<std::size_t>(std::max(d.compute_units, 1));
  return std::clamp<std::size_t>(items / groups_wanted, 1, std::min<std::size_t>(16, d.max_work_group));
}

// Enqueues a 1-D launch of `global` work-items (rounded up to `local`) on the compute queue.
void launch(ClDevice& device, const Kernel& kernel, std::size_t global, std::size_t local, const char* what);

}  // namespace accelera::opencl
