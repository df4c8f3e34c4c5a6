#pragma once
// The order-preserving unsigned keys of Note [Sort keys] (ops/sort.hpp) on the CPU and CUDA (constexpr, so
// device code calls them too): each dtype's elements are handled as unsigned bits of their width, and key()
// maps those bits to the key.
#include <cstdint>

#include "accelera/core/dtype.hpp"
#include "core/integer_dtypes.hpp"

namespace accelera::backends {

// NaN -> all ones, -0.0 -> +0.0, else the IEEE bits made to sort as unsigned integers. `inf` is the bit
// pattern of +infinity of the format.
template <typename U, U inf>
constexpr U float_key(U bits) {
  constexpr U sign = static_cast<U>(U{1} << (sizeof(U) * 8 - 1));
  const U magnitude = static_cast<U>(bits & static_cast<U>(~sign));
  // Arithmetic rather than a branch (the sign is random in typical data), so loops of keys vectorise:
  // negative elements are complemented, others get the sign bit.
  const U negative = static_cast<U>(U{0} - static_cast<U>(bits >> (sizeof(U) * 8 - 1)));
  U key = static_cast<U>(bits ^ static_cast<U>(negative | sign));
  key = magnitude == 0 ? sign : key;
  return magnitude > inf ? static_cast<U>(~U{0}) : key;
}

// The element whose key is `key`: exact for every key but the two that several elements share (zero: +0.0;
// NaN: the positive quiet NaN with every payload bit set).
template <typename U>
constexpr U float_element(U key) {
  constexpr U sign = static_cast<U>(U{1} << (sizeof(U) * 8 - 1));
  return (key & sign) != 0 ? static_cast<U>(key & static_cast<U>(~sign)) : static_cast<U>(~key);
}

template <typename U>
constexpr U signed_key(U bits) {
  return static_cast<U>(bits ^ static_cast<U>(U{1} << (sizeof(U) * 8 - 1)));
}

template <typename U, U inf>
constexpr bool float_is_nan(U bits) {
  return static_cast<U>(bits & static_cast<U>(~static_cast<U>(U{1} << (sizeof(U) * 8 - 1)))) > inf;
}

// key(bits): the sort key; is_nan(bits): whether the element is a NaN (each NaN is its own unique value);
// element(key): the element of a key (key's inverse where kSharedKeys is false; for floats, +0.0 and one NaN
// stand for the keys that several elements share).
template <DType>
struct SortKey;
template <>
struct SortKey<DType::f32> {
  using Bits = std::uint32_t;
  static constexpr Bits key(Bits b) { return float_key<Bits, 0x7F800000u>(b); }
  static constexpr bool is_nan(Bits b) { return float_is_nan<Bits, 0x7F800000u>(b); }
  static constexpr Bits element(Bits k) { return float_element(k); }
  static constexpr bool kSharedKeys = true;
};
template <>
struct SortKey<DType::f64> {
  using Bits = std::uint64_t;
  static constexpr Bits key(Bits b) { return float_key<Bits, 0x7FF0000000000000ull>(b); }
  static constexpr bool is_nan(Bits b) { return float_is_nan<Bits, 0x7FF0000000000000ull>(b); }
  static constexpr Bits element(Bits k) { return float_element(k); }
  static constexpr bool kSharedKeys = true;
};
template <>
struct SortKey<DType::f16> {
  using Bits = std::uint16_t;
  static constexpr Bits key(Bits b) { return float_key<Bits, 0x7C00>(b); }
  static constexpr bool is_nan(Bits b) { return float_is_nan<Bits, 0x7C00>(b); }
  static constexpr Bits element(Bits k) { return float_element(k); }
  static constexpr bool kSharedKeys = true;
};
template <>
struct SortKey<DType::bf16> {
  using Bits = std::uint16_t;
  static constexpr Bits key(Bits b) { return float_key<Bits, 0x7F80>(b); }
  static constexpr bool is_nan(Bits b) { return float_is_nan<Bits, 0x7F80>(b); }
  static constexpr Bits element(Bits k) { return float_element(k); }
  static constexpr bool kSharedKeys = true;
};
// Signed integers: the sign bit flipped; unsigned ones are their own keys.
template <typename B>
struct SignedIntegerKey {
  using Bits = B;
  static constexpr Bits key(Bits b) { return signed_key(b); }
  static constexpr bool is_nan(Bits) { return false; }
  static constexpr Bits element(Bits k) { return signed_key(k); }
  static constexpr bool kSharedKeys = false;
};
template <typename B>
struct UnsignedIntegerKey {
  using Bits = B;
  static constexpr Bits key(Bits b) { return b; }
  static constexpr bool is_nan(Bits) { return false; }
  static constexpr Bits element(Bits k) { return k; }
  static constexpr bool kSharedKeys = false;
};
template <>
struct SortKey<DType::i8> : SignedIntegerKey<std::uint8_t> {};
template <>
struct SortKey<DType::i16> : SignedIntegerKey<std::uint16_t> {};
template <>
struct SortKey<DType::i32> : SignedIntegerKey<std::uint32_t> {};
template <>
struct SortKey<DType::i64> : SignedIntegerKey<std::uint64_t> {};
template <>
struct SortKey<DType::u8> : UnsignedIntegerKey<std::uint8_t> {};
template <>
struct SortKey<DType::u16> : UnsignedIntegerKey<std::uint16_t> {};
template <>
struct SortKey<DType::u32> : UnsignedIntegerKey<std::uint32_t> {};
template <>
struct SortKey<DType::u64> : UnsignedIntegerKey<std::uint64_t> {};
template <>
struct SortKey<DType::boolean> {
  using Bits = std::uint8_t;
  static constexpr Bits key(Bits b) { return b; }
  static constexpr bool is_nan(Bits) { return false; }
  static constexpr Bits element(Bits k) { return k; }
  static constexpr bool kSharedKeys = false;
};

// Calls fn(SortKey<dtype>{}) for the runtime dtype.
template <typename Fn>
decltype(auto) with_sort_key(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::f32: return fn(SortKey<DType::f32>{});
    case DType::f64: return fn(SortKey<DType::f64>{});
    case DType::f16: return fn(SortKey<DType::f16>{});
    case DType::bf16: return fn(SortKey<DType::bf16>{});
#define ACC_SORT_KEY_CASE(dt, type) \
  case dt: return fn(SortKey<dt>{});
    ACC_FOR_EACH_INTEGER_DTYPE(ACC_SORT_KEY_CASE)
#undef ACC_SORT_KEY_CASE
    case DType::boolean: return fn(SortKey<DType::boolean>{});
  }
  return fn(SortKey<DType::boolean>{});  // unreachable: every DType is listed (this header is free of ACC_ASSERT)
}

}  // namespace accelera::backends
