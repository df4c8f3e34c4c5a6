// The group kernels of the unique_* functions on OpenCL (Note [Unique by groups] in src/ops/unique.hpp):
// a chunked scan of the group starts (counts per chunk, offsets by one work-item, numbering per chunk),
// then one scatter per element. Only the number of groups comes back to the host.
#include "backends/opencl/layouts.hpp"
#include "backends/opencl/sort_keys.hpp"
#include "ops/unique.hpp"

namespace accelera::opencl {

namespace {

constexpr std::int64_t kChunk = 256;

std::int64_t unique_groups_kernel(const Tensor& sorted, const Tensor& group) {
  ClDevice& d = cl_device(sorted.device());
  const std::string options = sort_key_options(sorted.dtype());
  const std::int64_t n = sorted.numel(), chunks = (n + kChunk - 1) / kChunk;
  const Tensor counts = Tensor::empty(Shape{chunks + 1}, DType::i64, sorted.device());
  const Kernel count = make_kernel(d, "unique_chunk_counts", options, sort_key_prelude());
  KernelArgs(count.get())
      .add(static_cast<cl_long>(n))
      .add(static_cast<cl_long>(kChunk))
      .add(buffer_of(sorted))
      .add(static_cast<cl_long>(sorted.offset()))
      .add(buffer_of(counts));
  launch(d, count, static_cast<std::size_t>(chunks), 64, "launching unique_chunk_counts");
  const Kernel offsets = make_kernel(d, "unique_chunk_offsets", options, sort_key_prelude());
  KernelArgs(offsets.get()).add(static_cast<cl_long>(chunks)).add(buffer_of(counts));
  launch(d, offsets, 1, 1, "launching unique_chunk_offsets");
  const Kernel number = make_kernel(d, "unique_chunk_groups", options, sort_key_prelude());
  KernelArgs(number.get())
      .add(static_cast<cl_long>(n))
      .add(static_cast<cl_long>(kChunk))
      .add(buffer_of(sorted))
      .add(static_cast<cl_long>(sorted.offset()))
      .add(buffer_of(counts))
      .add(buffer_of(group))
      .add(static_cast<cl_long>(group.offset()));
  launch(d, number, static_cast<std::size_t>(chunks), 64, "launching unique_chunk_groups");
  return *counts.slice(0, chunks, chunks + 1).to(Device::cpu()).data<std::int64_t>();
}

void unique_scatter_kernel(const Tensor& sorted, const Tensor& order, const Tensor& group, const Tensor& values,
                           const Tensor& first, const Tensor& bounds, const Tensor& inverse) {
  ClDevice& d = cl_device(sorted.device());
  const Kernel kernel = make_kernel(d, "unique_scatter", sort_key_options(sorted.dtype()), sort_key_prelude());
  KernelArgs(kernel.get())
      .add(static_cast<cl_long>(sorted.numel()))
      .add(buffer_of(sorted))
      .add(static_cast<cl_long>(sorted.offset()))
      .add(order.defined() ? buffer_of(order) : buffer_of(group))  // not read without first and inverse
      .add(static_cast<cl_long>(order.defined() ? order.offset() : 0))
      .add(buffer_of(group))
      .add(static_cast<cl_long>(group.offset()))
      .add(buffer_of(values))
      .add(static_cast<cl_long>(values.offset()))
      .add(first.defined() ? buffer_of(first) : buffer_of(group))
      .add(static_cast<cl_long>(first.defined() ? first.offset() : 0))
      .add(buffer_of(bounds))
      .add(static_cast<cl_long>(bounds.offset()))
      .add(inverse.defined() ? buffer_of(inverse) : buffer_of(group))  // not written when not wanted
      .add(static_cast<cl_long>(inverse.defined() ? inverse.offset() : 0))
      .add(static_cast<cl_int>(first.defined()))
      .add(static_cast<cl_int>(inverse.defined()));
  launch(d, kernel, static_cast<std::size_t>(sorted.numel()), 256, "launching unique_scatter");
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::unique_groups, DeviceKind::opencl, dtypes::all, &unique_groups_kernel);
  register_kernel(op::unique_scatter, DeviceKind::opencl, dtypes::all, &unique_scatter_kernel);
}

}  // namespace accelera::opencl
