#pragma once
// Maps a compute dtype onto the C++ type the element-wise kernels of one kind are instantiated for: only
// the dtypes the kind registers (ops/elementwise.hpp), so that no function is compiled for a type it does
// not define (~x of a float, sin of a bool).
#include <cstdint>
#include <type_traits>

#include "accelera/core/error.hpp"
#include "backends/cpu/dispatch.hpp"
#include "ops/elementwise.hpp"

namespace accelera::cpu {

// The floating dtypes the cpu element-wise kernels register: float16 and bfloat16 are stored as such and
// computed in float (Note [Half formats on the cpu]).
inline constexpr DTypeSet kElementwiseFloating = dtypes::floating | dtypes::half;

// Note [Half formats on the cpu]
// float16 and bfloat16 elements are widened to float when read and rounded once (to nearest even) when
// written, so a kernel computes exactly what the float32 kernel computes on the widened inputs, then
// rounds. The loops read through widen() and write through narrow<O>(), which are the identity for the
// other types, so those loops compile as before.
template <typename T>
inline auto widen(T v) {
  return detail::load_element(v);
}
template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <typename O, typename V>
inline O narrow(V v) {
  if constexpr (kIsHalf<O>) {
    return detail::store_element<O>(static_cast<float>(v));
  } else {
    return static_cast<O>(v);
  }
}

template <ElementwiseKind Kind, typename F>
void dispatch_elementwise(DType dtype, const char* op, F&& f) {
  constexpr DTypeSet computed = elementwise_dtypes(Kind, kElementwiseFloating);
  switch (dtype) {
    case DType::f32:
      if constexpr (computed.contains(DType::f32)) return f(float{});
      break;
    case DType::f64:
      if constexpr (computed.contains(DType::f64)) return f(double{});
      break;
    case DType::f16:
      if constexpr (computed.contains(DType::f16)) return f(Half{});
      break;
    case DType::bf16:
      if constexpr (computed.contains(DType::bf16)) return f(BFloat16{});
      break;
#define ACC_CPU_ELEMENTWISE_INTEGER(dt, type)              \
  case dt:                                                 \
    if constexpr (computed.contains(dt)) return f(type{}); \
    break;
    ACC_FOR_EACH_INTEGER_DTYPE(ACC_CPU_ELEMENTWISE_INTEGER)
#undef ACC_CPU_ELEMENTWISE_INTEGER
    case DType::boolean:
      if constexpr (computed.contains(DType::boolean)) return f(bool{});
      break;
    default: break;
  }
  ACC_ASSERT(false, "the cpu {} kernel was called for {}", op, dtype_name(dtype));
}

}  // namespace accelera::cpu
