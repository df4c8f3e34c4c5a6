#include "accelera/core/dtype.hpp"

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
  }
  return "unknown";
}

DType dtype_from_name(std::string_view name) {
  static constexpr std::pair<std::string_view, DType> aliases[] = {
      {"float32", DType::f32}, {"f32", DType::f32},        {"float64", DType::f64},
      {"f64", DType::f64},     {"float16", DType::f16},    {"f16", DType::f16},
      {"half", DType::f16},    {"bfloat16", DType::bf16},  {"bf16", DType::bf16},
      {"int32", DType::i32},   {"i32", DType::i32},        {"int64", DType::i64},
      {"i64", DType::i64},     {"bool", DType::boolean},
  };
  for (const auto& [alias, dtype] : aliases) {
    if (alias == name) return dtype;
  }
  throw DTypeError(fmt::format(
      "unknown dtype '{}': expected one of float32, float64, float16, bfloat16, int32, int64, bool", name));
}

bool is_floating(DType dtype) noexcept {
  return dtype == DType::f32 || dtype == DType::f64 || dtype == DType::f16 || dtype == DType::bf16;
}

bool is_integral(DType dtype) noexcept { return dtype == DType::i32 || dtype == DType::i64; }

DType promote_types(DType a, DType b) noexcept {
  if (a == b) return a;
  if (a == DType::boolean) return b;
  if (b == DType::boolean) return a;
  const bool fa = is_floating(a);
  const bool fb = is_floating(b);
  if (!fa && !fb) return DType::i64;   // int32 with int64
  if (fa != fb) return DType::f64;     // NumPy: any int32/int64 with any float gives float64
  // Both floating and different.
  if (a == DType::f64 || b == DType::f64) return DType::f64;
  return DType::f32;  // f32 with a half type, or f16 with bf16
}

}  // namespace accelera
