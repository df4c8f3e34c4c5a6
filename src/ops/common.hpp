#pragma once
// Validation helpers shared by the ops.
#include <string_view>

#include "accelera/backend.hpp"
#include "accelera/core/error.hpp"

namespace accelera::ops_detail {

inline void check_defined(const Tensor& t, std::string_view op, std::string_view what) {
  ACC_CHECK(t.defined(), ValueError, "{}: {} is an undefined tensor", op, what);
}

inline void check_same_device(const Tensor& a, const Tensor& b, std::string_view op) {
  ACC_CHECK(a.device() == b.device(), DeviceError,
            "{}: operands are on different devices ({} and {}); move one with .to(device)", op, a.device().str(),
            b.device().str());
}

// The dtypes the element-wise and reduction kernels compute.
inline bool is_computed(DType dtype) {
  return dtype == DType::f32 || dtype == DType::f64 || dtype == DType::i32 || dtype == DType::i64;
}

inline void check_computed(DType dtype, std::string_view op) {
  ACC_CHECK(is_computed(dtype), DTypeError,
            "{} does not compute {}: supported dtypes are float32, float64, int32 and int64 (convert with "
            "astype)",
            op, dtype_name(dtype));
}

inline Tensor cast_to(const Tensor& t, DType dtype) { return t.dtype() == dtype ? t : t.astype(dtype); }

}  // namespace accelera::ops_detail
