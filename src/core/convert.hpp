#pragma once
// Element conversions as NumPy's astype does them, on the host: the CPU copy and fill kernels use them,
// and the device backends use element_bits() so that a fill converts its value exactly as the CPU does.
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "accelera/core/dtype.hpp"
#include "accelera/core/error.hpp"
#include "core/half.hpp"
#include "core/integer_dtypes.hpp"

namespace accelera::detail {

// Storage types of the half formats: raw bits, converted through float.
struct Half {
  std::uint16_t bits;
};
struct BFloat16 {
  std::uint16_t bits;
};

// The value of a stored element in the type it converts through (float for the half formats).
template <typename T>
inline auto load_element(const T& v) {
  if constexpr (std::is_same_v<T, Half>) {
    return half_to_float(v.bits);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return bf16_to_float(v.bits);
  } else {
    return v;
  }
}

// v converted to the storage type T.
template <typename T, typename V>
inline T store_element(V v) {
  // Wider sources round once, directly to the half format (see double_to_float_round_odd).
  if constexpr (std::is_same_v<T, Half>) {
    if constexpr (std::is_same_v<V, float>) return Half{float_to_half(v)};
    return Half{double_to_half(static_cast<double>(v))};
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    if constexpr (std::is_same_v<V, float>) return BFloat16{float_to_bf16(v)};
    return BFloat16{double_to_bf16(static_cast<double>(v))};
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != V{};
  } else if constexpr (std::is_integral_v<T> && std::is_floating_point_v<V>) {
    // Out-of-range and nan are undefined in C++. NumPy on x86 converts through the hardware's 32- or
    // 64-bit conversion and keeps the low bits, and so do we: int32 and int64 take INT_MIN out of range,
    // int8 and int16 the low bits of the int32 conversion, the unsigned types the low bits of the int64
    // conversion (so -1.0 becomes 255 as uint8), uint64 values in [2^63, 2^64) convert exactly.
    if constexpr (std::is_same_v<T, std::uint64_t>) {
      if (v >= V(0x1p63) && v < V(0x1p64)) return static_cast<T>(v);
      return static_cast<T>(store_element<std::int64_t>(v));
    } else if constexpr (std::is_unsigned_v<T>) {
      return static_cast<T>(store_element<std::int64_t>(v));
    } else if constexpr (sizeof(T) < 4) {
      return static_cast<T>(store_element<std::int32_t>(v));
    } else {
      constexpr auto lo = static_cast<V>(std::numeric_limits<T>::min());
      return (v >= lo && v < -lo) ? static_cast<T>(v) : std::numeric_limits<T>::min();
    }
  } else {
    return static_cast<T>(v);
  }
}

// Calls f(T{}) with the storage type of `dtype`.
template <typename F>
decltype(auto) with_storage_type(DType dtype, F&& f) {
  switch (dtype) {
    case DType::f32: return f(float{});
    case DType::f64: return f(double{});
    case DType::f16: return f(Half{});
    case DType::bf16: return f(BFloat16{});
#define ACC_STORAGE_TYPE_CASE(dt, type) \
  case dt: return f(type{});
    ACC_FOR_EACH_INTEGER_DTYPE(ACC_STORAGE_TYPE_CASE)
#undef ACC_STORAGE_TYPE_CASE
    case DType::boolean: break;
    case DType::c64:
    case DType::c128:
      // Complex tensors reach the kernels as their real views (Note [Complex copies]).
      ACC_ASSERT(false, "no storage type for {}: complex tensors go through view_as_real", dtype_name(dtype));
  }
  return f(bool{});
}

// The bit pattern of `value` stored as `dtype`, in the low dtype_size(dtype) bytes.
inline std::uint64_t element_bits(DType dtype, double value) {
  return with_storage_type(dtype, [&](auto t) {
    using T = decltype(t);
    const T element = store_element<T>(value);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &element, sizeof(T));
    return bits;
  });
}

}  // namespace accelera::detail
