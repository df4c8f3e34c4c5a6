#pragma once
// Validation shared by the fused neural-network ops.
// Note [Fused kernel contract]: unlike the element-wise kernels, the fused kernels (gelu, linear_gelu,
// layer_norm, softmax, attention and their backward passes) receive C-contiguous tensors (their offsets
// may be non-zero) of one floating dtype, shapes already checked here, outputs freshly allocated. "rows"
// means all leading axes flattened. The half formats compute in float32.
#include <string_view>

#include "accelera/nn_ops.hpp"
#include "ops/common.hpp"

namespace accelera::ops_detail {

inline bool is_nn_dtype(DType dtype) {
  return dtype == DType::f32 || dtype == DType::f64 || dtype == DType::f16 || dtype == DType::bf16;
}

// `t` is defined and floating; `what` names it in messages ("x", "weight", ...).
inline void check_nn_operand(const Tensor& t, std::string_view op, std::string_view what) {
  check_defined(t, op, what);
  ACC_CHECK(is_nn_dtype(t.dtype()), DTypeError,
            "{}: {} has dtype {}; this op computes floating dtypes (which ones depends on the device: see "
            "accelera info --ops): convert with astype",
            op, what, dtype_name(t.dtype()));
}

// `t` matches the reference operand's dtype and device.
inline void check_like(const Tensor& t, const Tensor& ref, std::string_view op, std::string_view what,
                       std::string_view ref_what) {
  check_nn_operand(t, op, what);
  ACC_CHECK(t.dtype() == ref.dtype(), DTypeError, "{}: {} has dtype {} but {} has {}; all operands must share one dtype",
            op, what, dtype_name(t.dtype()), ref_what, dtype_name(ref.dtype()));
  ACC_CHECK(t.device() == ref.device(), DeviceError, "{}: {} is on {} but {} is on {}; move one with .to(device)", op,
            what, t.device().str(), ref_what, ref.device().str());
}

inline void check_same_shape(const Tensor& t, const Tensor& ref, std::string_view op, std::string_view what,
                             std::string_view ref_what) {
  ACC_CHECK(t.shape() == ref.shape(), ShapeError, "{}: {} has shape {} but {} has shape {}; they must be equal", op,
            what, t.shape().str(), ref_what, ref.shape().str());
}

// An optional per-feature vector (weight, bias): undefined, or 1-D with `n` elements.
inline void check_vector(const Tensor& t, const Tensor& ref, std::int64_t n, std::string_view op,
                         std::string_view what, std::string_view matched = "x's last axis") {
  if (!t.defined()) return;
  check_like(t, ref, op, what, "x");
  ACC_CHECK(t.ndim() == 1 && t.dim(0) == n, ShapeError, "{}: {} must have shape ({},) to match {}, got {}", op, what,
            n, matched, t.shape().str());
}

// A contiguous (rows, n) view of t over its last axis (a copy only when t is not contiguous).
inline Tensor as_rows(const Tensor& t) {
  const std::int64_t n = t.ndim() == 0 ? 1 : t.dim(-1);
  const std::int64_t rows = n == 0 ? 0 : t.numel() / n;
  const std::int64_t dims[] = {rows, n};
  return t.contiguous().reshape(dims);
}

inline Tensor contiguous_or_undefined(const Tensor& t) { return t.defined() ? t.contiguous() : t; }

}  // namespace accelera::ops_detail
