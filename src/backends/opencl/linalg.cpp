// The factorisations for OpenCL devices. Note [OpenCL factorisations]: no LAPACK runs on OpenCL here, so
// each call copies its operands to the host, runs the CPU backend's LAPACK kernel there and copies what the
// kernel wrote back to the device. The round trip is logged at info level on every call (never silent) and
// registered under the OpenCL device kind so `docs/ops.md` shows where the work runs. Everything the ops
// build around the factorisations (triangles, determinants from LU, products, norms) runs on the device.
#include <type_traits>

#include <tuple>

#include "accelera/core/device_interface.hpp"
#include "accelera/core/registry.hpp"
#include "core/log.hpp"
#include "ops/linalg_kernels.hpp"

namespace accelera::opencl {

namespace {

Tensor host_copy(const Tensor& t) { return t.defined() ? t.to(Device::cpu()) : Tensor(); }
bool host_copy(bool flag) { return flag; }

void copy_back(const Tensor& host, const Tensor& device) {
  if (!device.defined() || device.numel() == 0) return;
  DeviceInterface& interface = device_interface(device.device());
  interface.copy_from_host(device, host.data_ptr());
  interface.synchronize(device.device().index);
}
void copy_back(bool, bool) {}

template <typename Arg>
std::int64_t byte_count(const Arg& a) {
  if constexpr (std::is_same_v<Arg, Tensor>) return a.defined() ? static_cast<std::int64_t>(a.nbytes()) : 0;
  return 0;
}

// Runs the CPU kernel of `schema` on host copies of the device tensors `args` (work tensors are contiguous)
// and copies every tensor back (the kernels write all but their read-only inputs, which are small).
template <typename Fn, typename... Args>
void on_host(const OpSchema<Fn>& schema, const Tensor& first, const Args&... args) {
  const std::int64_t bytes = byte_count(first) + (byte_count(args) + ... + 0);
  ACC_LOG_INFO("{} on {}: no LAPACK on OpenCL; running on the CPU (LAPACK) with {} bytes copied to the host and back",
               schema.name, first.device().str(), bytes);
  const Tensor host_first = host_copy(first);
  const auto host_args = std::make_tuple(host_copy(args)...);
  std::apply([&](const auto&... h) { kernel_for(schema, Device::cpu(), first.dtype())(host_first, h...); }, host_args);
  copy_back(host_first, first);
  std::apply([&](const auto&... h) { (copy_back(h, args), ...); }, host_args);
}

void lu_factor_kernel(const Tensor& work, const Tensor& pivots, const Tensor& info) {
  on_host(op::lu_factor, work, pivots, info);
}
void lu_solve_kernel(const Tensor& a, const Tensor& b, const Tensor& info) { on_host(op::lu_solve, a, b, info); }
void cholesky_kernel(const Tensor& work, const Tensor& info) { on_host(op::cholesky, work, info); }
void eigh_kernel(const Tensor& work, const Tensor& w, const Tensor& info, bool vectors) {
  on_host(op::eigh, work, w, info, vectors);
}
void svd_kernel(const Tensor& work, const Tensor& s, const Tensor& u, const Tensor& vt, bool full, const Tensor& info) {
  on_host(op::svd, work, s, u, vt, full, info);
}
void qr_factor_kernel(const Tensor& work, const Tensor& tau, const Tensor& info) {
  on_host(op::qr_factor, work, tau, info);
}
void householder_product_kernel(const Tensor& q, const Tensor& tau, const Tensor& info) {
  on_host(op::householder_product, q, tau, info);
}

}  // namespace

ACC_REGISTER_KERNELS {
  // The CPU's LAPACK kernels take the complex dtypes too.
  constexpr DTypeSet with_complex = dtypes::floating | dtypes::complex;
  register_kernel(op::lu_factor, DeviceKind::opencl, with_complex, &lu_factor_kernel);
  register_kernel(op::lu_solve, DeviceKind::opencl, with_complex, &lu_solve_kernel);
  register_kernel(op::cholesky, DeviceKind::opencl, with_complex, &cholesky_kernel);
  register_kernel(op::eigh, DeviceKind::opencl, with_complex, &eigh_kernel);
  register_kernel(op::svd, DeviceKind::opencl, with_complex, &svd_kernel);
  register_kernel(op::qr_factor, DeviceKind::opencl, with_complex, &qr_factor_kernel);
  register_kernel(op::householder_product, DeviceKind::opencl, with_complex, &householder_product_kernel);
}

}  // namespace accelera::opencl
