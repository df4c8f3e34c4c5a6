// Every unary element-wise function of ops/elementwise.hpp, generated from its one-line definition: strided
// loops, with a vectorisable fast path for contiguous runs. Contiguous float runs of exp, expm1, log, log1p,
// tanh, sigmoid, sin and cos go to the vectorised kernels of backends/cpu/simd/ (dispatched at run time;
// streaming stores for large outputs).
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
#define ACC_CPU_UNARY_FUNCTION(name, kind, expression) \
  struct name {                                        \
    template <typename T>                              \
    static auto apply(T x) {                           \
      return expression;                               \
    }                                                  \
  };
ACC_UNARY_FUNCTIONS(ACC_CPU_UNARY_FUNCTION)
#undef ACC_CPU_UNARY_FUNCTION
}  // namespace functions

// The functions that have a vectorised kernel name it here.
template <typename Fn>
constexpr bool kHasSimd = false;
template <typename Fn>
constexpr simd::UnaryFunction kSimdFunction{};
#define ACC_CPU_UNARY_SIMD(name)                   \
  template <>                                      \
  constexpr bool kHasSimd<functions::name> = true; \
  template <>                                      \
  constexpr simd::UnaryFunction kSimdFunction<functions::name> = simd::UnaryFunction::name;
ACC_CPU_UNARY_SIMD(exp)
ACC_CPU_UNARY_SIMD(expm1)
ACC_CPU_UNARY_SIMD(log)
ACC_CPU_UNARY_SIMD(log1p)
ACC_CPU_UNARY_SIMD(tanh)
ACC_CPU_UNARY_SIMD(sigmoid)
ACC_CPU_UNARY_SIMD(sin)
ACC_CPU_UNARY_SIMD(cos)
ACC_CPU_UNARY_SIMD(tan)
ACC_CPU_UNARY_SIMD(asin)
ACC_CPU_UNARY_SIMD(acos)
ACC_CPU_UNARY_SIMD(atan)
ACC_CPU_UNARY_SIMD(sinh)
ACC_CPU_UNARY_SIMD(cosh)
ACC_CPU_UNARY_SIMD(asinh)
ACC_CPU_UNARY_SIMD(acosh)
ACC_CPU_UNARY_SIMD(atanh)
ACC_CPU_UNARY_SIMD(log2)
ACC_CPU_UNARY_SIMD(log10)
#undef ACC_CPU_UNARY_SIMD

// T: the storage type of x; O: the output's (T, or bool for the functions that return bool).
template <typename Fn, typename T, typename O>
void run(const Tensor& x, const Tensor& out) {
  const auto layout = make_layout<2>(out.shape(), {&out.strides(), &x.strides()});
  O* o_base = out.data<O>();
  const T* x_base = x.data<T>();
  [[maybe_unused]] const auto store = simd::store_for(static_cast<std::int64_t>(out.nbytes()));
  parallel_for_each_run(layout, [&](auto off, std::int64_t len, auto st) {
    O* __restrict o = o_base + off[0];
    const T* __restrict i = x_base + off[1];
    if constexpr (kHasSimd<Fn> && std::is_floating_point_v<T> && std::is_same_v<T, O>) {
      if (st[0] == 1 && st[1] == 1) return simd::unary(kSimdFunction<Fn>, i, o, len, store);
    }
    if constexpr (kIsHalf<T>) {
      // No simd pragma: GCC 12 fails to compile some of these conversion loops vectorised.
      for (std::int64_t k = 0; k < len; ++k) o[k * st[0]] = narrow<O>(Fn::apply(widen(i[k * st[1]])));
    } else if (st[0] == 1 && st[1] == 1) {
#pragma omp simd
      for (std::int64_t k = 0; k < len; ++k) o[k] = narrow<O>(Fn::apply(widen(i[k])));
    } else {
      for (std::int64_t k = 0; k < len; ++k) o[k * st[0]] = narrow<O>(Fn::apply(widen(i[k * st[1]])));
    }
  });
}

template <typename Fn, ElementwiseKind Kind>
void unary_kernel(const Tensor& x, const Tensor& out) {
  simd::ensure_target_selected();  // may throw: before any parallel region
  dispatch_elementwise<Kind>(x.dtype(), "unary", [&](auto t) {
    using T = decltype(t);
    run<Fn, T, std::conditional_t<returns_bool(Kind), bool, T>>(x, out);
  });
}

}  // namespace

ACC_REGISTER_KERNELS {
#define ACC_CPU_REGISTER_UNARY(name, kind, expression)                                                    \
  register_kernel(op::name, DeviceKind::cpu, elementwise_dtypes(ElementwiseKind::kind, kElementwiseFloating), \
                  &unary_kernel<functions::name, ElementwiseKind::kind>);
  ACC_UNARY_FUNCTIONS(ACC_CPU_REGISTER_UNARY)
#undef ACC_CPU_REGISTER_UNARY
}

}  // namespace accelera::cpu
