// Philox random tensors on CUDA: launchers of random.cu (Note [Counter-based random numbers] in
// ops/random.hpp).
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "backends/cuda/random_launch.hpp"
#include "ops/random.hpp"

namespace accelera::cuda {

namespace {

void run(const Tensor& out, const kernels::RandomDraw& draw, const char* op) {
  CudaDevice& d = cuda_device(out.device());
  DeviceGuard guard(d.index);
  check_dispatched(kernels::random(out.dtype(), draw, out.data_ptr(), out.numel(), launch_of(d)), op, out.dtype());
}

void uniform_kernel(const Tensor& out, std::uint64_t seed, std::uint64_t offset, double low, double scale) {
  run(out, {kernels::Distribution::uniform, seed, offset, low, scale, 0, 0}, "random_uniform");
}

void normal_kernel(const Tensor& out, std::uint64_t seed, std::uint64_t offset, double loc, double scale) {
  run(out, {kernels::Distribution::normal, seed, offset, loc, scale, 0, 0}, "random_normal");
}

void integers_kernel(const Tensor& out, std::uint64_t seed, std::uint64_t offset, std::int64_t low,
                     std::uint64_t range) {
  run(out, {kernels::Distribution::integers, seed, offset, 0, 0, low, range}, "random_integers");
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::random_uniform, DeviceKind::cuda, dtypes::floating | dtypes::half, &uniform_kernel);
  register_kernel(op::random_normal, DeviceKind::cuda, dtypes::floating | dtypes::half, &normal_kernel);
  // The op draws the other integer dtypes as int64 (ops/random.cpp).
  register_kernel(op::random_integers, DeviceKind::cuda, DTypeSet{DType::i32, DType::i64}, &integers_kernel);
}

}  // namespace accelera::cuda
