#pragma once
// Maps a runtime DType onto a C++ element type for kernel templates. Kernels are only called for the
// dtypes they registered (Note [Kernel table]), so another dtype here is a bug.
#include <complex>
#include <cstdint>

#include "accelera/core/dtype.hpp"
#include "accelera/core/error.hpp"
#include "core/convert.hpp"
#include "core/integer_dtypes.hpp"

namespace accelera::cpu {

using detail::BFloat16;
using detail::Half;

template <typename F>
decltype(auto) dispatch_any(DType dtype, F&& f) {
  return detail::with_storage_type(dtype, std::forward<F>(f));
}

// The dtypes that arithmetic kernels compute on this backend.
template <typename F>
decltype(auto) dispatch_arith(DType dtype, const char* op, F&& f) {
  switch (dtype) {
    case DType::f32: return f(float{});
    case DType::f64: return f(double{});
#define ACC_CPU_ARITH_CASE(dt, type) \
  case dt: return f(type{});
    ACC_FOR_EACH_INTEGER_DTYPE(ACC_CPU_ARITH_CASE)
#undef ACC_CPU_ARITH_CASE
    default: break;
  }
  ACC_ASSERT(false, "the cpu {} kernel was called for {}", op, dtype_name(dtype));
}

// float, double and the complex types (std::complex of them): the factorisations' dtypes.
template <typename F>
decltype(auto) dispatch_float_or_complex(DType dtype, const char* op, F&& f) {
  switch (dtype) {
    case DType::f32: return f(float{});
    case DType::f64: return f(double{});
    case DType::c64: return f(std::complex<float>{});
    case DType::c128: return f(std::complex<double>{});
    default: break;
  }
  ACC_ASSERT(false, "the cpu {} kernel was called for {}", op, dtype_name(dtype));
}

template <typename F>
decltype(auto) dispatch_float(DType dtype, const char* op, F&& f) {
  switch (dtype) {
    case DType::f32: return f(float{});
    case DType::f64: return f(double{});
    default: break;
  }
  ACC_ASSERT(false, "the cpu {} kernel was called for {}", op, dtype_name(dtype));
}

}  // namespace accelera::cpu
