#pragma once
// Maps a compute dtype onto the C++ type the element-wise kernels of one kind are instantiated for: only
// the dtypes the kind registers (ops/elementwise.hpp), so that no function is compiled for a type it does
// not define (~x of a float, sin of a bool).
#include <cstdint>

#include "accelera/core/error.hpp"
#include "ops/elementwise.hpp"

namespace accelera::cpu {

template <ElementwiseKind Kind, typename F>
void dispatch_elementwise(DType dtype, const char* op, F&& f) {
  constexpr DTypeSet computed = elementwise_dtypes(Kind, dtypes::floating);
  switch (dtype) {
    case DType::f32:
      if constexpr (computed.contains(DType::f32)) return f(float{});
      break;
    case DType::f64:
      if constexpr (computed.contains(DType::f64)) return f(double{});
      break;
    case DType::i32:
      if constexpr (computed.contains(DType::i32)) return f(std::int32_t{});
      break;
    case DType::i64:
      if constexpr (computed.contains(DType::i64)) return f(std::int64_t{});
      break;
    case DType::boolean:
      if constexpr (computed.contains(DType::boolean)) return f(bool{});
      break;
    default: break;
  }
  ACC_ASSERT(false, "the cpu {} kernel was called for {}", op, dtype_name(dtype));
}

}  // namespace accelera::cpu
