// sort and argsort on CUDA: launcher of sort.cu (Note [Sort keys] in ops/sort.hpp).
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/sort_launch.hpp"
#include "ops/sort.hpp"

namespace accelera::cuda {

namespace {

// Scratch from the library's allocator, as int64 elements covering `bytes`. It returns to the cache when the
// launcher returns, while the kernels may still use it: only later work on the compute stream can reuse it
// (Note [CUDA memory and streams]).
Tensor scratch_of(std::size_t bytes, const Device& device) {
  return Tensor::empty(Shape{static_cast<std::int64_t>((bytes + 7) / 8)}, DType::i64, device);
}

void sort_kernel(const Tensor& x, const Tensor& values, const Tensor& indices, bool descending) {
  CudaDevice& d = cuda_device(x.device());
  DeviceGuard guard(d.index);
  const std::int64_t rows = x.dim(0), n = x.dim(1);
  const std::size_t bytes = kernels::sort_scratch_bytes(x.dtype(), rows, n);
  const Tensor scratch = scratch_of(bytes, x.device());
  kernels::sort(x.dtype(), x.data_ptr(), rows, n, values.defined() ? values.data_ptr() : nullptr,
                indices.defined() ? indices.data<std::int64_t>() : nullptr, descending, scratch.data_ptr(), bytes,
                launch_of(d));
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::sort, DeviceKind::cuda, dtypes::all, &sort_kernel); }

}  // namespace accelera::cuda
