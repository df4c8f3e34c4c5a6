// Fill: every element of a strided tensor = one value, converted as the copy kernel converts.
#include <cstring>

#include "backends/common/strided_loop.hpp"
#include "backends/cpu/dispatch.hpp"
#include "ops/fill.hpp"

namespace accelera::cpu {

namespace {

void fill_kernel(const Tensor& dst, double value) {
  dispatch_any(dst.dtype(), [&](auto d) {
    using D = decltype(d);
    const D v = detail::store_element<D>(value);
    const auto layout = backends::make_layout<1>(dst.shape(), {&dst.strides()});
    D* out = dst.data<D>();
    backends::parallel_for_each_run(layout, [&](auto off, std::int64_t len, auto st) {
      for (std::int64_t k = 0; k < len; ++k) out[off[0] + k * st[0]] = v;
    });
  });
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::fill, DeviceKind::cpu, dtypes::all, &fill_kernel); }

}  // namespace accelera::cpu
