#pragma once
// Maps a runtime DType onto a C++ element type for kernel templates.
#include <cstdint>

#include "accelera/core/dtype.hpp"
#include "accelera/core/error.hpp"

namespace accelera::cpu {

// Storage types of the half formats: raw bits, converted through float.
struct Half { std::uint16_t bits; };
struct BFloat16 { std::uint16_t bits; };

template <typename F>
decltype(auto) dispatch_any(DType dtype, F&& f) {
  switch (dtype) {
    case DType::f32: return f(float{});
    case DType::f64: return f(double{});
    case DType::f16: return f(Half{});
    case DType::bf16: return f(BFloat16{});
    case DType::i32: return f(std::int32_t{});
    case DType::i64: return f(std::int64_t{});
    case DType::boolean: return f(bool{});
  }
  ACC_ASSERT(false, "unhandled dtype {}", static_cast<int>(dtype));
}

// The dtypes that arithmetic kernels compute on this backend.
template <typename F>
decltype(auto) dispatch_arith(DType dtype, const char* op, F&& f) {
  switch (dtype) {
    case DType::f32: return f(float{});
    case DType::f64: return f(double{});
    case DType::i32: return f(std::int32_t{});
    case DType::i64: return f(std::int64_t{});
    default: break;
  }
  throw DTypeError(fmt::format("{} is not computed for {} on cpu", op, dtype_name(dtype)));
}

template <typename F>
decltype(auto) dispatch_float(DType dtype, const char* op, F&& f) {
  switch (dtype) {
    case DType::f32: return f(float{});
    case DType::f64: return f(double{});
    default: break;
  }
  throw DTypeError(fmt::format("{} is not computed for {} on cpu", op, dtype_name(dtype)));
}

}  // namespace accelera::cpu
