// Strided copy with conversion between any two stored dtypes, and fill.
#include <cstring>
#include <limits>
#include <type_traits>

#include "backends/cpu/kernels/dispatch.hpp"
#include "backends/cpu/kernels/kernels.hpp"
#include "backends/common/strided_loop.hpp"
#include "core/half.hpp"

namespace accelera::cpu {

using namespace accelera::backends;  // strided loops

namespace {

// Conversions go through float (half types) or directly (everything else), as NumPy's astype does.
template <typename T>
inline auto load(const T& v) {
  if constexpr (std::is_same_v<T, Half>) {
    return detail::half_to_float(v.bits);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return detail::bf16_to_float(v.bits);
  } else {
    return v;
  }
}

template <typename T, typename V>
inline T store(V v) {
  // Wider sources round once, directly to the half format (see double_to_float_round_odd).
  if constexpr (std::is_same_v<T, Half>) {
    if constexpr (std::is_same_v<V, float>) return Half{detail::float_to_half(v)};
    return Half{detail::double_to_half(static_cast<double>(v))};
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    if constexpr (std::is_same_v<V, float>) return BFloat16{detail::float_to_bf16(v)};
    return BFloat16{detail::double_to_bf16(static_cast<double>(v))};
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != V{};
  } else if constexpr (std::is_integral_v<T> && std::is_floating_point_v<V>) {
    // Out-of-range and nan are undefined in C++; NumPy gives INT_MIN there, and so do we.
    constexpr auto lo = static_cast<V>(std::numeric_limits<T>::min());
    return (v >= lo && v < -lo) ? static_cast<T>(v) : std::numeric_limits<T>::min();
  } else {
    return static_cast<T>(v);
  }
}

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
      for (std::int64_t k = 0; k < len; ++k) o[k] = store<D>(load(i[k]));
    } else {
      for (std::int64_t k = 0; k < len; ++k) o[k * st[0]] = store<D>(load(i[k * st[1]]));
    }
  });
}

}  // namespace

void copy_kernel(const Tensor& src, const Tensor& dst) {
  dispatch_any(src.dtype(), [&](auto s) {
    dispatch_any(dst.dtype(), [&](auto d) { convert<decltype(s), decltype(d)>(src, dst); });
  });
}

void fill_kernel(const Tensor& dst, double value) {
  dispatch_any(dst.dtype(), [&](auto d) {
    using D = decltype(d);
    const D v = store<D>(value);
    const auto layout = make_layout<1>(dst.shape(), {&dst.strides()});
    D* out = dst.data<D>();
    parallel_for_each_run(layout, [&](auto off, std::int64_t len, auto st) {
      for (std::int64_t k = 0; k < len; ++k) out[off[0] + k * st[0]] = v;
    });
  });
}

}  // namespace accelera::cpu
