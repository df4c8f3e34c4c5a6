// The CUDA backend's element-wise kernels (binary, unary) and reductions: layouts and launch choices on the
// host, kernels in kernels/<op>.cu.
#include <algorithm>

#include "backends/common/reduce_axes.hpp"
#include "backends/cuda/cuda_backend.hpp"
#include "backends/cuda/kernel_layout.hpp"

namespace accelera::cuda {

namespace {

// The 16-byte vector path needs every operand contiguous along one coalesced axis and 16-byte aligned.
template <std::size_t N>
bool vectorizable(const backends::LoopLayout<N>& layout, std::initializer_list<const Tensor*> tensors) {
  if (layout.dims.size() != 1) return false;
  for (std::size_t k = 0; k < N; ++k) {
    if (layout.strides[k][0] != 1) return false;
  }
  return std::ranges::all_of(tensors,
                             [](const Tensor* t) { return reinterpret_cast<std::uintptr_t>(t->data_ptr()) % 16 == 0; });
}

[[noreturn]] void not_computed(std::string_view op, DType dtype) {
  throw DTypeError(fmt::format("{} does not compute {} on CUDA", op, dtype_name(dtype)));
}

}  // namespace

void CudaBackend::binary(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  CudaDevice& d = ready(out.device().index);
  if (out.numel() == 0) return;
  const auto layout = backends::make_layout<3>(out.shape(), {&out.strides(), &a.strides(), &b.strides()});
  DeviceGuard guard(d.index);
  const bool ok = kernels::binary(op, out.dtype(), to_kernel_layout(layout, binary_op_name(op).data()),
                                  out.data_ptr(), a.data_ptr(), b.data_ptr(), vectorizable(layout, {&out, &a, &b}),
                                  {d.compute(), max_blocks(d)});
  if (!ok) not_computed(binary_op_name(op), out.dtype());
}

void CudaBackend::unary(UnaryOp op, const Tensor& x, const Tensor& out) {
  CudaDevice& d = ready(out.device().index);
  if (out.numel() == 0) return;
  const auto layout = backends::make_layout<2>(out.shape(), {&out.strides(), &x.strides()});
  DeviceGuard guard(d.index);
  const bool ok = kernels::unary(op, out.dtype(), to_kernel_layout(layout, unary_op_name(op).data()), out.data_ptr(),
                                 x.data_ptr(), vectorizable(layout, {&out, &x}), {d.compute(), max_blocks(d)});
  if (!ok) not_computed(unary_op_name(op), out.dtype());
}

void CudaBackend::reduce(ReduceOp op, const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  CudaDevice& d = ready(out.device().index);
  const auto split = backends::split_axes(x, axes, out);
  const auto kept = backends::make_layout<2>(split.kept_shape, {&split.kept_out, &split.kept_x});
  const auto reduced = backends::make_layout<1>(split.reduced_shape, {&split.reduced_x});
  if (kept.numel == 0) return;
  kernels::ReduceShape shape;
  shape.kept = to_kernel_layout(kept, reduce_op_name(op).data());
  shape.reduced = to_kernel_layout(reduced, reduce_op_name(op).data());
  shape.outputs = kept.numel;
  shape.count = reduced.numel;
  // One thread per output when each output is short, or when there are many outputs whose neighbours are
  // neighbours in memory (column reductions): then a warp reads contiguous memory. Otherwise one block per
  // output, split into parts when a few outputs would leave most of the device idle.
  const bool column = kept.strides[1].back() == 1 && reduced.strides[0].back() != 1;
  const std::int64_t threads_to_fill = static_cast<std::int64_t>(d.sm_count) * 2048;
  shape.per_thread = shape.count <= 32 || (column && shape.outputs >= threads_to_fill);
  if (!shape.per_thread && shape.outputs < 4 * d.sm_count) {
    const std::int64_t by_size = shape.count / (16 * 256);  // at least 16 elements per thread and part
    const std::int64_t by_device = 8 * d.sm_count / shape.outputs;
    shape.parts = std::max<std::int64_t>(1, std::min(by_size, by_device));
  }
  Tensor partials;
  if (shape.parts > 1) partials = Tensor::empty(Shape{shape.outputs * shape.parts}, DType::i64, out.device());
  DeviceGuard guard(d.index);
  // `partials` returns to the cache when this returns, while the kernels may still use it: only later work
  // on the compute stream can reuse it (Note [CUDA memory and streams]).
  const bool ok = kernels::reduce(op, out.dtype(), shape, out.data_ptr(), x.data_ptr(),
                                  partials.defined() ? partials.data_ptr() : nullptr, {d.compute(), max_blocks(d)});
  if (!ok) not_computed(reduce_op_name(op), out.dtype());
}

}  // namespace accelera::cuda
