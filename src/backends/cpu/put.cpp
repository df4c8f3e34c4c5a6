// The scatter kernel of put on the CPU (Note [Scatter] in ops/put.hpp): elements move as raw bits, so one
// loop per element size serves every dtype.
#include <algorithm>
#include <cstdlib>

#include "accelera/core/error.hpp"
#include "backends/common/strided_loop.hpp"
#include "ops/put.hpp"

namespace accelera::cpu {

namespace {

// Threads scattering into a small region write the same cache lines, which then bounce between cores:
// 4 Mi writes into 1000 floats took 51 ms on two threads against 18 ms on one. When evenly spaced sample
// indices span at most this many bytes of the destination (a region that stays in cache anyway), one
// thread scatters.
constexpr std::int64_t kSharedRegionBytes = std::int64_t{1} << 20;
constexpr std::int64_t kSamples = 256;

// The span, in elements along the indexed axis, of kSamples indices spread over the layout.
std::int64_t sampled_index_span(const backends::LoopLayout<3>& layout, const std::int64_t* ind,
                                std::int64_t axis_size) {
  std::int64_t low = axis_size, high = -1;
  const std::size_t nd = layout.dims.size();
  for (std::int64_t s = 0; s < kSamples; ++s) {
    std::int64_t flat = layout.numel * s / kSamples, offset = 0;
    for (std::size_t d = nd; d-- > 0;) {
      offset += flat % layout.dims[d] * layout.strides[2][d];
      flat /= layout.dims[d];
    }
    std::int64_t i = ind[offset];
    if (i < 0) i += axis_size;
    low = std::min(low, i), high = std::max(high, i);
  }
  return high - low + 1;
}

template <typename E>
void scatter(const Tensor& dest, std::int64_t axis_stride, std::int64_t axis_size, const Tensor& indices,
             const Tensor& values) {
  const auto layout =
      backends::make_layout<3>(values.shape(), {&dest.strides(), &values.strides(), &indices.strides()});
  E* d = static_cast<E*>(dest.data_ptr());
  const E* v = static_cast<const E*>(values.data_ptr());
  const auto* ind = static_cast<const std::int64_t*>(indices.data_ptr());
  const auto row = [&](auto off, std::int64_t len, auto st) {
    for (std::int64_t k = 0; k < len; ++k) {
      std::int64_t i = ind[off[2] + k * st[2]];
      if (i < 0) i += axis_size;
      d[off[0] + k * st[0] + i * axis_stride] = v[off[1] + k * st[1]];
    }
  };
  // The destination region the indices reach: their sampled span along the axis, times the rest of a slice.
  std::int64_t slice = 1;
  for (std::int64_t a = 0; a < dest.ndim(); ++a) {
    slice += (dest.dim(a) - 1) * std::abs(dest.strides()[static_cast<std::size_t>(a)]);
  }
  const std::int64_t reach = (sampled_index_span(layout, ind, axis_size) - 1) * std::abs(axis_stride) + slice;
  if (reach * static_cast<std::int64_t>(sizeof(E)) <= kSharedRegionBytes) {
    return backends::for_each_run(layout, 0, layout.numel, row);
  }
  backends::parallel_for_each_run(layout, row);
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
