#pragma once
// Validation helpers shared by the ops.
#include <string_view>

#include "accelera/core/error.hpp"
#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"
#include "ops/fill.hpp"

namespace accelera::ops_detail {

inline void check_defined(const Tensor& t, std::string_view op, std::string_view what) {
  ACC_CHECK(t.defined(), ValueError, "{}: {} is an undefined tensor", op, what);
}

inline void check_same_device(const Tensor& a, const Tensor& b, std::string_view op) {
  ACC_CHECK(a.device() == b.device(), DeviceError,
            "{}: operands are on different devices ({} and {}); move one with .to(device)", op, a.device().str(),
            b.device().str());
}

// Every element of t = value (degenerate cases of ops whose kernels need at least one element).
inline void fill_tensor(const Tensor& t, double value) {
  if (t.numel() == 0) return;
  if (is_complex(t.dtype())) {  // value + 0i through the real view (Note [Complex copies])
    const Tensor parts = t.view_as_real();
    const auto fill = kernel_for(op::fill, t.device(), parts.dtype());
    fill(parts.select(-1, 0), value);
    fill(parts.select(-1, 1), 0.0);
    return;
  }
  kernel_for(op::fill, t.device(), t.dtype())(t, value);
}

inline Tensor cast_to(const Tensor& t, DType dtype) { return t.dtype() == dtype ? t : t.astype(dtype); }

// Note [Integer accumulation]
// Sums and products (sum, prod, cumulative_sum, cumulative_prod) of bool and the signed integers return
// int64, those of the unsigned integers uint64, as NumPy's and the array API standard's do. By default
// kernels read int64 for all of them: wrapping two's-complement sums and products have the same low bits
// whatever the signedness and width, so uint64 (or a narrower requested dtype) is the int64 result cast
// back.
// A backend may instead register its sum (prod) kernel for the integer dtypes themselves: the kernel then
// reads x in its own dtype and writes the int64 output (the CPU does, saving a widened copy of x).
inline DType accumulation_dtype(DType in) {
  if (in == DType::boolean || (is_integral(in) && !is_unsigned(in))) return DType::i64;
  if (is_unsigned(in)) return DType::u64;
  return in;
}
// The dtype an accumulating kernel runs in for a `result` dtype.
inline DType accumulation_kernel_dtype(DType result) { return is_integral(result) ? DType::i64 : result; }

// The dtype op's kernel runs in for `dtype` on `device`: `dtype` itself, except float16 and bfloat16 on a
// device that registers float32 but not them (the CPU and OpenCL backends), where the op computes in
// float32 and rounds the result once (the array API's rule for hardware without a native half path).
// Another unregistered dtype stays as it is, so that kernel_for names what is missing.
inline DType kernel_dtype(std::string_view op, const Device& device, DType dtype) {
  if (dtype != DType::f16 && dtype != DType::bf16) return dtype;
  const auto registered = detail::registered_dtypes(op, device.kind);
  if (registered && !registered->contains(dtype) && registered->contains(DType::f32)) return DType::f32;
  return dtype;
}

}  // namespace accelera::ops_detail
