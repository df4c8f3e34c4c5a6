// Strided copy with conversion between any two stored dtypes (core/copy_kernel.hpp).
#include <cstring>
#include <limits>
#include <type_traits>

#include "backends/common/strided_loop.hpp"
#include "backends/cpu/dispatch.hpp"
#include "core/copy_kernel.hpp"

namespace accelera::cpu {

using namespace accelera::backends;  // strided loops

namespace {

template <typename S, typename D>
void convert(const Tensor& src, const Tensor& dst) {
  const auto layout = make_layout<2>(dst.shape(), {&dst.strides(), &src.strides()});
  D* out = dst.data<D>();
  const S* in = src.data<S>();
  parallel_for_each_run(layout, [&](auto off, std::int64_t len, auto st) {
    D* o = out + off[0];
    const S* i = in + off[1];
    if constexpr (std::is_same_v<S, D>) {
      if (st[0] == 1 && st[1] == 1) {
        std::memcpy(o, i, static_cast<std::size_t>(len) * sizeof(D));
        return;
      }
    }
    if (st[0] == 1 && st[1] == 1) {
#pragma omp simd
      for (std::int64_t k = 0; k < len; ++k) o[k] = detail::store_element<D>(detail::load_element(i[k]));
    } else {
      for (std::int64_t k = 0; k < len; ++k) o[k * st[0]] = detail::store_element<D>(detail::load_element(i[k * st[1]]));
    }
  });
}

}  // namespace

void copy_kernel(const Tensor& src, const Tensor& dst) {
  dispatch_any(src.dtype(), [&](auto s) {
    dispatch_any(dst.dtype(), [&](auto d) { convert<decltype(s), decltype(d)>(src, dst); });
  });
}

ACC_REGISTER_KERNELS { register_kernel(op::copy, DeviceKind::cpu, dtypes::all, &copy_kernel); }

}  // namespace accelera::cpu
