// Flash attention on OpenCL devices: forward (attention.cl) and the FlashAttention-2 backward
// (attention_delta.cl, attention_backward_kv.cl, attention_backward_q.cl), with attention_common.cl's
// helpers before each. Private rows are sized by a head-dim bucket (64, 128 or 256) so that few programs
// are built; tiles are sized from the device's local memory and work-groups from what the device allows
// the kernel, both queried.
#include "backends/opencl/nn_common.hpp"
#include "ops/attention.hpp"

namespace accelera::opencl {

using namespace nn;

namespace {

constexpr std::int64_t kMaxHeadDim = 256;
constexpr std::size_t kTile = 32;

std::int64_t head_dim_bucket(std::int64_t d) {
  ACC_CHECK(d <= kMaxHeadDim, NotSupportedError, "attention on OpenCL supports head_dim up to {}, got {}",
            kMaxHeadDim, d);
  return d <= 64 ? 64 : (d <= 128 ? 128 : 256);
}

// Rows per local tile so that `arrays` tiles of (rows x d) plus `vectors` per-row scalars fit in local memory.
std::size_t tile_rows(const ClDevice& dev, std::int64_t d, std::size_t itemsize, int arrays, int vectors) {
  const std::size_t per_row = (static_cast<std::size_t>(arrays * d) + vectors) * itemsize;
  const std::size_t rows = std::min(kTile, local_memory_bytes(dev) / per_row);
  ACC_CHECK(rows >= 1, NotSupportedError, "{}: local memory of {} bytes cannot hold one attention row of head_dim {}",
            dev.name, local_memory_bytes(dev), d);
  return rows;
}

std::string options(const ClDevice& dev, DType dtype, std::int64_t d, std::size_t tile) {
  return fmt::format("{} -DHEAD_DIM_MAX={} -DTILE={}", element_options(dev, dtype), head_dim_bucket(d), tile);
}

// Work-items per group: up to 64, within the device's and the kernel's limits.
std::size_t group_size(const ClDevice& dev, const Kernel& kernel) {
  return std::min<std::size_t>(64, reduction_local(dev, kernel.get()));
}

void attention_kernel(const Tensor& q, const Tensor& k, const Tensor& v, double scale, bool causal,
                      const Tensor& out, const Tensor& lse) {
  ClDevice& dev = cl_device(out.device());
  const cl_long bh = q.dim(0), lq = q.dim(1), lk = k.dim(1);
  const cl_int d = static_cast<cl_int>(q.dim(2));
  const std::size_t tile = tile_rows(dev, d, q.itemsize(), 2, 0);
  const Kernel kernel =
      make_kernel(dev, "attention", options(dev, q.dtype(), d, tile), embedded_source("attention_common"));
  const std::size_t local = group_size(dev, kernel);
  const cl_long q_blocks = (lq + static_cast<cl_long>(local) - 1) / static_cast<cl_long>(local);
  with_scalar(q.dtype(), scale, [&](auto s) {
    KernelArgs(kernel.get())
        .add(lq)
        .add(lk)
        .add(d)
        .add(q_blocks)
        .add(s)
        .add(static_cast<cl_int>(causal))
        .add(buffer_of(q))
        .add(off(q))
        .add(buffer_of(k))
        .add(off(k))
        .add(buffer_of(v))
        .add(off(v))
        .add(buffer_of(out))
        .add(off(out))
        .add(buffer_of(lse))
        .add(off(lse))
        .local(tile * d * q.itemsize())
        .local(tile * d * q.itemsize());
  });
  launch(dev, kernel, static_cast<std::size_t>(bh * q_blocks) * local, local, "launching attention");
}

void attention_backward_kernel(const Tensor& grad, const Tensor& q, const Tensor& k, const Tensor& v,
                               const Tensor& out, const Tensor& lse, double scale, bool causal, const Tensor& dq,
                               const Tensor& dk, const Tensor& dv) {
  ClDevice& dev = cl_device(dq.device());
  const cl_long bh = q.dim(0), lq = q.dim(1), lk = k.dim(1);
  const cl_int d = static_cast<cl_int>(q.dim(2));
  const std::size_t item = q.itemsize();
  // D_i = dO_i . O_i.
  const Tensor delta = Tensor::empty(Shape{bh * lq}, q.dtype(), q.device());
  const Kernel delta_kernel = make_kernel(dev, "attention_delta", element_options(dev, q.dtype()));
  KernelArgs(delta_kernel.get()).add(bh * lq).add(d).add(buffer_of(grad)).add(off(grad)).add(buffer_of(out)).add(off(out)).add(buffer_of(delta));
  launch(dev, delta_kernel, static_cast<std::size_t>(bh * lq), 64, "launching attention_delta");

  const std::size_t kv_tile = tile_rows(dev, d, item, 2, 2);
  const Kernel kv = make_kernel(dev, "attention_backward_kv", options(dev, q.dtype(), d, kv_tile),
                                  embedded_source("attention_common"));
  const std::size_t kv_local = group_size(dev, kv);
  const cl_long k_blocks = (lk + static_cast<cl_long>(kv_local) - 1) / static_cast<cl_long>(kv_local);
  with_scalar(q.dtype(), scale, [&](auto s) {
    KernelArgs(kv.get())
        .add(lq).add(lk).add(d).add(k_blocks).add(s).add(static_cast<cl_int>(causal))
        .add(buffer_of(q)).add(off(q)).add(buffer_of(k)).add(off(k)).add(buffer_of(v)).add(off(v))
        .add(buffer_of(grad)).add(off(grad)).add(buffer_of(lse)).add(off(lse)).add(buffer_of(delta))
        .add(buffer_of(dk)).add(off(dk)).add(buffer_of(dv)).add(off(dv))
        .local(kv_tile * d * item).local(kv_tile * d * item).local(kv_tile * item).local(kv_tile * item);
  });
  launch(dev, kv, static_cast<std::size_t>(bh * k_blocks) * kv_local, kv_local, "launching attention_backward_kv");

  const std::size_t q_tile = tile_rows(dev, d, item, 2, 0);
  const Kernel qk = make_kernel(dev, "attention_backward_q", options(dev, q.dtype(), d, q_tile),
                                  embedded_source("attention_common"));
  const std::size_t q_local = group_size(dev, qk);
  const cl_long q_blocks = (lq + static_cast<cl_long>(q_local) - 1) / static_cast<cl_long>(q_local);
  with_scalar(q.dtype(), scale, [&](auto s) {
    KernelArgs(qk.get())
        .add(lq).add(lk).add(d).add(q_blocks).add(s).add(static_cast<cl_int>(causal))
        .add(buffer_of(k)).add(off(k)).add(buffer_of(v)).add(off(v)).add(buffer_of(q)).add(off(q))
        .add(buffer_of(grad)).add(off(grad)).add(buffer_of(lse)).add(off(lse)).add(buffer_of(delta))
        .add(buffer_of(dq)).add(off(dq))
        .local(q_tile * d * item).local(q_tile * d * item);
  });
  launch(dev, qk, static_cast<std::size_t>(bh * q_blocks) * q_local, q_local, "launching attention_backward_q");
  // `delta` goes back to the allocator when this returns; the queue is in order, so the kernels that read
  // it run before any later user of that memory.
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::attention, DeviceKind::opencl, dtypes::floating, &attention_kernel);
  register_kernel(op::attention_backward, DeviceKind::opencl, dtypes::floating, &attention_backward_kernel);
}

}  // namespace accelera::opencl
