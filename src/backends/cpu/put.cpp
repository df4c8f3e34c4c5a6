// The scatter kernel of put on the CPU (Note [Scatter] in ops/put.hpp): elements move as raw bits, so one
// loop per element size serves every dtype.
#include "accelera/core/error.hpp"
#include "backends/common/strided_loop.hpp"
#include "ops/put.hpp"

namespace accelera::cpu {

namespace {

template <typename E>
void scatter(const Tensor& dest, std::int64_t axis_stride, std::int64_t axis_size, const Tensor& indices,
             const Tensor& values) {
  const auto layout =
      backends::make_layout<3>(values.shape(), {&dest.strides(), &values.strides(), &indices.strides()});
  E* d = static_cast<E*>(dest.data_ptr());
  const E* v = static_cast<const E*>(values.data_ptr());
  const auto* ind = static_cast<const std::int64_t*>(indices.data_ptr());
  backends::parallel_for_each_run(layout, [&](auto off, std::int64_t len, auto st) {
    for (std::int64_t k = 0; k < len; ++k) {
      std::int64_t i = ind[off[2] + k * st[2]];
      if (i < 0) i += axis_size;
      d[off[0] + k * st[0] + i * axis_stride] = v[off[1] + k * st[1]];
    }
  });
}

void put_kernel(const Tensor& dest, std::int64_t axis_stride, std::int64_t axis_size, const Tensor& indices,
                const Tensor& values) {
  switch (dest.itemsize()) {
    case 1: return scatter<std::uint8_t>(dest, axis_stride, axis_size, indices, values);
    case 2: return scatter<std::uint16_t>(dest, axis_stride, axis_size, indices, values);
    case 4: return scatter<std::uint32_t>(dest, axis_stride, axis_size, indices, values);
    case 8: return scatter<std::uint64_t>(dest, axis_stride, axis_size, indices, values);
    default: ACC_ASSERT(false, "put on the CPU for {}-byte elements", dest.itemsize());
  }
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::put, DeviceKind::cpu, dtypes::all, &put_kernel); }

}  // namespace accelera::cpu
