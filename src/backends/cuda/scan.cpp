// cumulative_sum and cumulative_prod on CUDA: launchers of scan.cu (Note [Scans]
// in ops/scan.hpp).
#include "backends/common/scan_blocks.hpp"
#include "backends/cuda/cuda_interface.hpp"
#include "backends/cuda/kernel_layout.hpp"
#include "backends/cuda/scan_launch.hpp"
#include "ops/scan.hpp"

namespace accelera::cuda {

namespace {

template <bool Prod>
void scan_kernel(const Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner, bool include_initial,
                 const Tensor& out) {
  CudaDevice& d = cuda_device(out.device());
  const backends::ScanBlocks split = backends::device_scan_blocks(outer, n, inner);
  const kernels::ScanShape shape{outer, n, inner, split.blocks, split.block, include_initial};
  Tensor totals;  // 8-byte accumulators (double or uint64; float for float16/bfloat16 fits too)
  if (split.blocks > 1) totals = Tensor::empty(Shape{outer * split.blocks * inner}, DType::i64, out.device());
  DeviceGuard guard(d.index);
  // `totals` returns to the cache when this returns; only later work on the compute stream can reuse it.
  check_dispatched(kernels::scan(Prod, out.dtype(), shape, x.data_ptr(), out.data_ptr(),
                                 totals.defined() ? totals.data_ptr() : nullptr, launch_of(d)),
                   Prod ? "cumulative_prod" : "cumulative_sum", out.dtype());
}

}  // namespace

ACC_REGISTER_KERNELS {
  // The op computes int32 (and bool) scans in int64, so int32 never reaches the kernels.
  const DTypeSet computed = dtypes::floating | dtypes::half | DTypeSet{DType::i64};
  register_kernel(op::cumulative_sum, DeviceKind::cuda, computed, &scan_kernel<false>);
  register_kernel(op::cumulative_prod, DeviceKind::cuda, computed, &scan_kernel<true>);
}

}  // namespace accelera::cuda
