#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include "accelera/core/export.hpp"

namespace accelera {

// Every dtype can be stored, copied, cast and exchanged; which ones an op computes is up to the op.
enum class DType : std::uint8_t { f32, f64, f16, bf16, i32, i64, boolean };

inline constexpr DType all_dtypes[] = {DType::f32, DType::f64, DType::f16, DType::bf16,
                                       DType::i32, DType::i64, DType::boolean};

ACC_API std::size_t dtype_size(DType dtype) noexcept;
// NumPy-style name: "float32", "float64", "float16", "bfloat16", "int32", "int64", "bool".
ACC_API std::string_view dtype_name(DType dtype) noexcept;
// Accepts the NumPy names and the short forms "f32", "f64", "f16", "bf16", "i32", "i64". Throws DTypeError.
ACC_API DType dtype_from_name(std::string_view name);
ACC_API bool is_floating(DType dtype) noexcept;
ACC_API bool is_integral(DType dtype) noexcept;
// The result dtype of a binary op on a and b, following NumPy's promotion rules (int with float gives
// float64; float16 with bfloat16 gives float32).
ACC_API DType promote_types(DType a, DType b) noexcept;

}  // namespace accelera
