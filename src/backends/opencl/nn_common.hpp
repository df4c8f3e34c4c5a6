#pragma once
// Helpers shared by the OpenCL backend's fused neural-network launchers.
#include <algorithm>
#include <bit>

#include "accelera/core/nn_types.hpp"
#include "backends/opencl/opencl_interface.hpp"
#include "backends/opencl/programs.hpp"

namespace accelera::opencl::nn {

inline cl_long off(const Tensor& t) { return static_cast<cl_long>(t.offset()); }
// An absent optional operand: a null buffer (allowed by clSetKernelArg) at offset 0.
inline cl_mem buffer_or_null(const Tensor& t) { return t.defined() ? buffer_of(t) : nullptr; }
inline cl_long off_or_zero(const Tensor& t) { return t.defined() ? off(t) : 0; }

// A power-of-two work-group size for row reductions, within what the device and the kernel allow.
inline std::size_t reduction_local(const ClDevice& d, cl_kernel kernel) {
  std::size_t kernel_max = 0;
  ACC_CL_CHECK(clGetKernelWorkGroupInfo(kernel, d.id, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kernel_max), &kernel_max,
                                        nullptr),
               "querying a kernel's work-group size");
  return std::bit_floor(std::max<std::size_t>(1, std::min({std::size_t{128}, d.max_work_group, kernel_max})));
}

inline std::size_t local_memory_bytes(const ClDevice& d) {
  cl_ulong bytes = 0;
  ACC_CL_CHECK(clGetDeviceInfo(d.id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(bytes), &bytes, nullptr),
               "querying local memory size");
  return static_cast<std::size_t>(bytes);
}

// Calls f with `value` as a kernel argument of the element type (float or double).
template <typename F>
void with_scalar(DType dtype, double value, F&& f) {
  if (dtype == DType::f32) {
    f(static_cast<cl_float>(value));
  } else {
    f(static_cast<cl_double>(value));
  }
}

}  // namespace accelera::opencl::nn
