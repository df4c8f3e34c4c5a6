// The gather kernel of take and take_along_axis on the CPU (Note [Gather and index checks] in ops/take.hpp):
// elements move as raw bits, so one loop per element size serves every dtype.
#include <algorithm>
#include <atomic>

#include "accelera/core/error.hpp"

#include "backends/common/strided_loop.hpp"
#include "ops/take.hpp"

namespace accelera::cpu {

namespace {

template <typename E, typename I>
void gather(const Tensor& source, std::int64_t axis_stride, std::int64_t axis_size, const Tensor& indices,
            const Tensor& out, std::atomic<bool>& bad) {
  const auto layout = backends::make_layout<3>(out.shape(), {&out.strides(), &source.strides(), &indices.strides()});
  E* o = static_cast<E*>(out.data_ptr());
  const E* s = static_cast<const E*>(source.data_ptr());
  const I* ind = static_cast<const I*>(indices.data_ptr());
  // The element an index names along the axis (negative ones count from the end); -1 when out of range.
  const auto position = [axis_size](I index) {
    std::int64_t i = static_cast<std::int64_t>(index);
    if (i < 0) i += axis_size;
    return i >= 0 && i < axis_size ? i : std::int64_t{-1};
  };
  backends::parallel_for_each_run(layout, [&](auto off, std::int64_t len, auto st) {
    bool run_bad = false;
    if (st[2] == 0) {  // one index for the whole run (rows gathered along an outer axis): checked once
      const std::int64_t i = position(ind[off[2]]);
      if (i < 0) {
        bad.store(true, std::memory_order_relaxed);
        return;
      }
      const E* from = s + off[1] + i * axis_stride;
      E* to = o + off[0];
      if (st[0] == 1 && st[1] == 1) {
        std::copy(from, from + len, to);
      } else {
        for (std::int64_t k = 0; k < len; ++k) to[k * st[0]] = from[k * st[1]];
      }
      return;
    }
    for (std::int64_t k = 0; k < len; ++k) {
      const std::int64_t i = position(ind[off[2] + k * st[2]]);
      if (i < 0) {
        run_bad = true;
        continue;
      }
      o[off[0] + k * st[0]] = s[off[1] + k * st[1] + i * axis_stride];
    }
    if (run_bad) bad.store(true, std::memory_order_relaxed);
  });
}

template <typename E>
void gather_by_index(const Tensor& source, std::int64_t axis_stride, std::int64_t axis_size, const Tensor& indices,
                     const Tensor& out, std::atomic<bool>& bad) {
  if (indices.dtype() == DType::i32) return gather<E, std::int32_t>(source, axis_stride, axis_size, indices, out, bad);
  ACC_ASSERT(indices.dtype() == DType::i64, "take on the CPU with {} indices", dtype_name(indices.dtype()));
  gather<E, std::int64_t>(source, axis_stride, axis_size, indices, out, bad);
}

void take_kernel(const Tensor& source, std::int64_t axis_stride, std::int64_t axis_size, const Tensor& indices,
                 const Tensor& out, const Tensor& bad_flag) {
  std::atomic<bool> bad{false};
  switch (out.itemsize()) {
    case 1: gather_by_index<std::uint8_t>(source, axis_stride, axis_size, indices, out, bad); break;
    case 2: gather_by_index<std::uint16_t>(source, axis_stride, axis_size, indices, out, bad); break;
    case 4: gather_by_index<std::uint32_t>(source, axis_stride, axis_size, indices, out, bad); break;
    case 8: gather_by_index<std::uint64_t>(source, axis_stride, axis_size, indices, out, bad); break;
    default: ACC_ASSERT(false, "take on the CPU for {}-byte elements", out.itemsize());
  }
  if (bad.load()) *bad_flag.data<std::int32_t>() = 1;
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::take, DeviceKind::cpu, dtypes::all, &take_kernel); }

}  // namespace accelera::cpu
