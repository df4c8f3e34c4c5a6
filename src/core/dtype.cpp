#include "accelera/core/dtype.hpp"

#include <algorithm>
#include <utility>

#include "accelera/core/error.hpp"

namespace accelera {

std::size_t dtype_size(DType dtype) noexcept {
  switch (dtype) {
    case DType::f32: return 4;
    case DType::f64: return 8;
    case DType::f16: return 2;
    case DType::bf16: return 2;
    case DType::i32: return 4;
    case DType::i64: return 8;
    case DType::boolean: return 1;
    case DType::i8: return 1;
    case DType::i16: return 2;
    case DType::u8: return 1;
    case DType::u16: return 2;
    case DType::u32: return 4;
    case DType::u64: return 8;
    case DType::c64: return 8;
    case DType::c128: return 16;
  }
  return 0;
}

std::string_view dtype_name(DType dtype) noexcept {
  switch (dtype) {
    case DType::f32: return "float32";
    case DType::f64: return "float64";
    case DType::f16: return "float16";
    case DType::bf16: return "bfloat16";
    case DType::i32: return "int32";
    case DType::i64: return "int64";
    case DType::boolean: return "bool";
    case DType::i8: return "int8";
    case DType::i16: return "int16";
    case DType::u8: return "uint8";
    case DType::u16: return "uint16";
    case DType::u32: return "uint32";
    case DType::u64: return "uint64";
    case DType::c64: return "complex64";
    case DType::c128: return "complex128";
  }
  return "unknown";
}

DType dtype_from_name(std::string_view name) {
  static constexpr std::pair<std::string_view, DType> aliases[] = {
      {"float32", DType::f32}, {"f32", DType::f32},        {"float64", DType::f64},
      {"f64", DType::f64},     {"float16", DType::f16},    {"f16", DType::f16},
      {"half", DType::f16},    {"bfloat16", DType::bf16},  {"bf16", DType::bf16},
      {"int32", DType::i32},   {"i32", DType::i32},        {"int64", DType::i64},
      {"i64", DType::i64},     {"bool", DType::boolean},   {"int8", DType::i8},
      {"i8", DType::i8},       {"int16", DType::i16},      {"i16", DType::i16},
      {"uint8", DType::u8},    {"u8", DType::u8},          {"uint16", DType::u16},
      {"u16", DType::u16},     {"uint32", DType::u32},     {"u32", DType::u32},
      {"uint64", DType::u64},  {"u64", DType::u64},        {"complex64", DType::c64},
      {"c64", DType::c64},     {"complex128", DType::c128}, {"c128", DType::c128},
  };
  for (const auto& [alias, dtype] : aliases) {
    if (alias == name) return dtype;
  }
  throw DTypeError(fmt::format(
      "unknown dtype '{}': expected one of float32, float64, float16, bfloat16, int8, int16, int32, int64, uint8, "
      "uint16, uint32, uint64, bool, complex64, complex128",
      name));
}

bool is_floating(DType dtype) noexcept {
  return dtype == DType::f32 || dtype == DType::f64 || dtype == DType::f16 || dtype == DType::bf16;
}

bool is_complex(DType dtype) noexcept { return dtype == DType::c64 || dtype == DType::c128; }

DType real_dtype(DType dtype) noexcept {
  if (dtype == DType::c64) return DType::f32;
  if (dtype == DType::c128) return DType::f64;
  return dtype;
}

DType complex_dtype(DType dtype) noexcept {
  if (is_complex(dtype)) return dtype;
  return float_result_dtype(dtype) == DType::f64 ? DType::c128 : DType::c64;
}

bool is_unsigned(DType dtype) noexcept {
  return dtype == DType::u8 || dtype == DType::u16 || dtype == DType::u32 || dtype == DType::u64;
}

bool is_integral(DType dtype) noexcept {
  return is_unsigned(dtype) || dtype == DType::i8 || dtype == DType::i16 || dtype == DType::i32 ||
         dtype == DType::i64;
}

namespace {

DType signed_of_size(std::size_t bytes) noexcept {
  switch (bytes) {
    case 1: return DType::i8;
    case 2: return DType::i16;
    case 4: return DType::i32;
    default: return DType::i64;
  }
}

DType unsigned_of_size(std::size_t bytes) noexcept {
  switch (bytes) {
    case 1: return DType::u8;
    case 2: return DType::u16;
    case 4: return DType::u32;
    default: return DType::u64;
  }
}

DType promote_integers(DType a, DType b) noexcept {
  const std::size_t sa = dtype_size(a), sb = dtype_size(b);
  if (is_unsigned(a) == is_unsigned(b)) {
    const std::size_t size = std::max(sa, sb);
    return is_unsigned(a) ? unsigned_of_size(size) : signed_of_size(size);
  }
  const std::size_t unsigned_size = is_unsigned(a) ? sa : sb;
  const std::size_t signed_size = is_unsigned(a) ? sb : sa;
  if (signed_size > unsigned_size) return signed_of_size(signed_size);
  if (unsigned_size == 8) return DType::f64;  // no signed type holds both
  return signed_of_size(2 * unsigned_size);
}

// The smallest float of at least `f` that holds every value of the integer dtype `i` (bfloat16 counts as
// float16 here: neither holds a 16-bit integer).
DType promote_integer_float(DType i, DType f) noexcept {
  const DType needed = float_result_dtype(i);
  if (f == DType::f64 || needed == DType::f64) return DType::f64;
  if (f == DType::f32 || needed == DType::f32) return DType::f32;
  return f;  // a half format, with int8 or uint8
}

}  // namespace

DType float_result_dtype(DType dtype) noexcept {
  if (is_floating(dtype) || is_complex(dtype)) return dtype;
  switch (dtype_size(dtype)) {
    case 1: return DType::f16;  // bool, int8, uint8
    case 2: return DType::f32;
    default: return DType::f64;
  }
}

DType promote_types(DType a, DType b) noexcept {
  if (a == b) return a;
  if (a == DType::boolean) return b;
  if (b == DType::boolean) return a;
  if (is_complex(a) || is_complex(b)) return complex_dtype(promote_types(real_dtype(a), real_dtype(b)));
  const bool fa = is_floating(a);
  const bool fb = is_floating(b);
  if (!fa && !fb) return promote_integers(a, b);
  if (!fa) return promote_integer_float(a, b);
  if (!fb) return promote_integer_float(b, a);
  // Both floating and different.
  if (a == DType::f64 || b == DType::f64) return DType::f64;
  return DType::f32;  // f32 with a half type, or f16 with bf16
}

}  // namespace accelera
