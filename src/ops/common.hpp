#pragma once
// Validation helpers shared by the ops.
#include <string>
#include <string_view>
#include <vector>

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

// The dtypes `device`'s kernels compute, by name: "float32, float64, int32 and int64".
inline std::string computed_dtype_names(const Backend& backend, bool floating_only = false) {
  std::vector<std::string_view> names;
  for (DType d : all_dtypes) {
    if (backend.computes(d) && (!floating_only || is_floating(d))) names.push_back(dtype_name(d));
  }
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : (i + 1 == names.size() ? " and " : ", "));
    out += names[i];
  }
  return out;
}

inline void check_computed(DType dtype, std::string_view op, const Device& device) {
  const Backend& backend = backend_for(device);
  ACC_CHECK(backend.computes(dtype), DTypeError,
            "{} does not compute {} on {}: supported dtypes there are {} (convert with astype)", op, dtype_name(dtype),
            device.str(), computed_dtype_names(backend));
}

inline Tensor cast_to(const Tensor& t, DType dtype) { return t.dtype() == dtype ? t : t.astype(dtype); }

}  // namespace accelera::ops_detail
