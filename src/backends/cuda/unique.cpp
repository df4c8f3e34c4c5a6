// The group kernels of unique_* on CUDA: launchers of unique.cu (Note [Unique by groups] in ops/unique.hpp).
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/sort_launch.hpp"
#include "ops/unique.hpp"

namespace accelera::cuda {

namespace {

// Scratch from the library's allocator, as int64 elements covering `bytes`. It returns to the cache when the
// launcher returns, while the kernels may still use it: only later work on the compute stream can reuse it
// (Note [CUDA memory and streams]).
Tensor scratch_of(std::size_t bytes, const Device& device) {
  return Tensor::empty(Shape{static_cast<std::int64_t>((bytes + 7) / 8)}, DType::i64, device);
}

std::int64_t unique_groups_kernel(const Tensor& sorted, const Tensor& group) {
  CudaDevice& d = cuda_device(sorted.device());
  DeviceGuard guard(d.index);
  const std::int64_t n = sorted.numel();
  const std::size_t bytes = kernels::unique_groups_scratch_bytes(n);
  const Tensor scratch = scratch_of(bytes, sorted.device());
  kernels::unique_groups(sorted.dtype(), sorted.data_ptr(), n, group.data<std::int64_t>(), scratch.data_ptr(), bytes,
                         launch_of(d));
  // The groups are numbered from 0: the last number + 1 counts them (the one value read back).
  return *group.slice(0, n - 1, n).to(Device::cpu()).data<std::int64_t>() + 1;
}

void unique_scatter_kernel(const Tensor& sorted, const Tensor& order, const Tensor& group, const Tensor& values,
                           const Tensor& first, const Tensor& bounds, const Tensor& inverse) {
  CudaDevice& d = cuda_device(sorted.device());
  DeviceGuard guard(d.index);
  const auto or_null = [](const Tensor& t) { return t.defined() ? t.data<std::int64_t>() : nullptr; };
  kernels::unique_scatter(sorted.dtype(), sorted.data_ptr(), or_null(order), group.data<std::int64_t>(),
                          sorted.numel(), values.data_ptr(), or_null(first), bounds.data<std::int64_t>(),
                          or_null(inverse), launch_of(d));
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::unique_groups, DeviceKind::cuda, dtypes::all, &unique_groups_kernel);
  register_kernel(op::unique_scatter, DeviceKind::cuda, dtypes::all, &unique_scatter_kernel);
}

}  // namespace accelera::cuda
