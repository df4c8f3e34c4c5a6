// Every binary element-wise function of ops/elementwise.hpp, generated from its one-line definition, with
// broadcasting (stride-0 operands): strided loops with vectorisable fast paths for contiguous runs and for
// one operand broadcast along the run. Float add, subtract, multiply and divide runs that are contiguous, or
// contiguous against one broadcast value, go to the vectorised kernels of backends/cpu/simd/ (streaming
// stores for large outputs).
#include <type_traits>

#include "backends/common/strided_loop.hpp"
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/elementwise_dispatch.hpp"
#include "backends/cpu/elementwise_math.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"
#include "ops/elementwise.hpp"

namespace accelera::cpu {

using namespace accelera::backends;  // strided loops

namespace {

namespace functions {
using namespace elementwise_math;
#define ACC_CPU_BINARY_FUNCTION(name, kind, expression) \
  struct name {                                         \
    template <typename T>                               \
    static auto apply(T x, T y) {                       \
      return expression;                                \
    }                                                   \
  };
ACC_BINARY_FUNCTIONS(ACC_CPU_BINARY_FUNCTION)
#undef ACC_CPU_BINARY_FUNCTION
}  // namespace functions

// The functions that have a vectorised kernel name it here.
template <typename Fn>
constexpr bool kHasSimd = false;
template <typename Fn>
constexpr simd::BinaryFunction kSimdFunction{};
#define ACC_CPU_BINARY_SIMD(name)                  \
  template <>                                      \
  constexpr bool kHasSimd<functions::name> = true; \
  template <>                                      \
  constexpr simd::BinaryFunction kSimdFunction<functions::name> = simd::BinaryFunction::name;
ACC_CPU_BINARY_SIMD(add)
ACC_CPU_BINARY_SIMD(subtract)
ACC_CPU_BINARY_SIMD(multiply)
ACC_CPU_BINARY_SIMD(divide)
ACC_CPU_BINARY_SIMD(pow)
ACC_CPU_BINARY_SIMD(atan2)
#undef ACC_CPU_BINARY_SIMD

// T: the storage type of a and b; O: the output's (T, or bool for the functions that return bool).
template <typename Fn, typename T, typename O>
void run(const Tensor& a, const Tensor& b, const Tensor& out) {
  const auto layout = make_layout<3>(out.shape(), {&out.strides(), &a.strides(), &b.strides()});
  O* o_base = out.data<O>();
  const T* a_base = a.data<T>();
  const T* b_base = b.data<T>();
  [[maybe_unused]] const auto store = simd::store_for(static_cast<std::int64_t>(out.nbytes()));
  parallel_for_each_run(layout, [&](auto off, std::int64_t len, auto st) {
    O* __restrict o = o_base + off[0];
    const T* __restrict x = a_base + off[1];
    const T* __restrict y = b_base + off[2];
    if constexpr (kHasSimd<Fn> && std::is_floating_point_v<T> && std::is_same_v<T, O>) {
      const bool unit_or_broadcast = (st[1] == 0 || st[1] == 1) && (st[2] == 0 || st[2] == 1);
      if (st[0] == 1 && unit_or_broadcast && st[1] + st[2] >= 1) {
        return simd::binary(kSimdFunction<Fn>, x, st[1] == 0, y, st[2] == 0, o, len, store);
      }
    }
    if constexpr (kIsHalf<T>) {
      // No simd pragma: GCC 12 fails to compile some of these conversion loops vectorised.
      for (std::int64_t k = 0; k < len; ++k) o[k * st[0]] = narrow<O>(Fn::apply(widen(x[k * st[1]]), widen(y[k * st[2]])));
    } else if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
#pragma omp simd
      for (std::int64_t k = 0; k < len; ++k) o[k] = narrow<O>(Fn::apply(widen(x[k]), widen(y[k])));
    } else if (st[0] == 1 && st[1] == 1 && st[2] == 0) {
      const auto s = widen(*y);
#pragma omp simd
      for (std::int64_t k = 0; k < len; ++k) o[k] = narrow<O>(Fn::apply(widen(x[k]), s));
    } else if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
      const auto s = widen(*x);
#pragma omp simd
      for (std::int64_t k = 0; k < len; ++k) o[k] = narrow<O>(Fn::apply(s, widen(y[k])));
    } else {
      for (std::int64_t k = 0; k < len; ++k) o[k * st[0]] = narrow<O>(Fn::apply(widen(x[k * st[1]]), widen(y[k * st[2]])));
    }
  });
}

template <typename Fn, ElementwiseKind Kind>
void binary_kernel(const Tensor& a, const Tensor& b, const Tensor& out) {
  simd::ensure_target_selected();  // may throw: before any parallel region
  dispatch_elementwise<Kind>(a.dtype(), "binary", [&](auto t) {
    using T = decltype(t);
    run<Fn, T, std::conditional_t<returns_bool(Kind), bool, T>>(a, b, out);
  });
}

}  // namespace

ACC_REGISTER_KERNELS {
#define ACC_CPU_REGISTER_BINARY(name, kind, expression)                                                   \
  register_kernel(op::name, DeviceKind::cpu, elementwise_dtypes(ElementwiseKind::kind, kElementwiseFloating), \
                  &binary_kernel<functions::name, ElementwiseKind::kind>);
  ACC_BINARY_FUNCTIONS(ACC_CPU_REGISTER_BINARY)
#undef ACC_CPU_REGISTER_BINARY
}

}  // namespace accelera::cpu
