#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include "accelera/core/export.hpp"

namespace accelera {

// Every dtype can be stored, copied, cast and exchanged; which ones an op computes is up to the op.
// The later integer and the complex dtypes were appended so that the earlier values stay as they were.
// A complex element is two floats of the real dtype, real part first (C's and NumPy's layout), so a
// complex tensor is also a real one with a trailing axis of two (view_as_real).
enum class DType : std::uint8_t { f32, f64, f16, bf16, i32, i64, boolean, i8, i16, u8, u16, u32, u64, c64, c128 };

inline constexpr DType all_dtypes[] = {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i8,
                                       DType::i16, DType::i32, DType::i64, DType::u8,   DType::u16,
                                       DType::u32, DType::u64, DType::boolean, DType::c64, DType::c128};
// Every dtype but the complex ones.
inline constexpr DType real_dtypes[] = {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i8,
                                        DType::i16, DType::i32, DType::i64, DType::u8,   DType::u16,
                                        DType::u32, DType::u64, DType::boolean};

ACC_API std::size_t dtype_size(DType dtype) noexcept;
// NumPy-style name: "float32", "float64", "float16", "bfloat16", "int8" ... "int64", "uint8" ... "uint64",
// "bool", "complex64", "complex128".
ACC_API std::string_view dtype_name(DType dtype) noexcept;
// Accepts the NumPy names and the short forms "f32", "f64", "f16", "bf16", "i8" ... "i64", "u8" ... "u64",
// "c64", "c128". Throws DTypeError.
ACC_API DType dtype_from_name(std::string_view name);
// Real floating dtypes (complex ones are not).
ACC_API bool is_floating(DType dtype) noexcept;
ACC_API bool is_complex(DType dtype) noexcept;
// float32 for complex64, float64 for complex128; other dtypes are returned unchanged.
ACC_API DType real_dtype(DType dtype) noexcept;
// The complex dtype whose parts hold `dtype`'s values: complex64 for float32, float16, bfloat16 and the
// integers that float32 holds (as float_result_dtype), complex128 otherwise; a complex dtype stays.
ACC_API DType complex_dtype(DType dtype) noexcept;
// Signed and unsigned integers (not bool).
ACC_API bool is_integral(DType dtype) noexcept;
ACC_API bool is_unsigned(DType dtype) noexcept;
// The result dtype of a binary op on a and b, following NumPy's promotion rules: integers of one kind
// promote to the wider; uintN with intM gives intM when M > N and the signed type of twice N otherwise
// (uint64 with a signed integer gives float64); an integer with a float gives the smallest float of at
// least that float that holds the integer's values (int8 and uint8 fit float16, int16 and uint16 float32,
// wider ones float64); float16 with bfloat16 gives float32, and bfloat16 counts as float16 otherwise. A
// complex dtype with anything gives the complex dtype of the real promotion of their parts (complex64 with
// float64 or int64 gives complex128).
ACC_API DType promote_types(DType a, DType b) noexcept;
// The float dtype a float function (sqrt, exp, mean ...) gives for an integer or bool input, as NumPy:
// float16 for bool, int8 and uint8, float32 for int16 and uint16, float64 for the wider integers; a float
// or complex dtype stays.
ACC_API DType float_result_dtype(DType dtype) noexcept;
}  // namespace accelera
