// Every unary element-wise function of ops/elementwise.hpp, generated from its one-line definition:
// strided loops, with a vectorisable fast path for contiguous runs.
#include <type_traits>

#include "backends/common/strided_loop.hpp"
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/elementwise_math.hpp"
#include "ops/elementwise.hpp"

namespace accelera::cpu {

using namespace accelera::backends;  // strided loops

namespace {

namespace functions {
using namespace elementwise_math;
#define ACC_CPU_UNARY_FUNCTION(name, kind, expression) \
  struct name {                                        \
    template <typename T>                              \
    static T apply(T x) {                              \
      return static_cast<T>(expression);               \
    }                                                  \
  };
ACC_UNARY_FUNCTIONS(ACC_CPU_UNARY_FUNCTION)
#undef ACC_CPU_UNARY_FUNCTION
}  // namespace functions

template <typename Fn, typename T>
void run(const Tensor& x, const Tensor& out) {
  const auto layout = make_layout<2>(out.shape(), {&out.strides(), &x.strides()});
  T* o_base = out.data<T>();
  const T* x_base = x.data<T>();
  parallel_for_each_run(layout, [&](auto off, std::int64_t len, auto st) {
    T* __restrict o = o_base + off[0];
    const T* __restrict i = x_base + off[1];
    if (st[0] == 1 && st[1] == 1) {
#pragma omp simd
      for (std::int64_t k = 0; k < len; ++k) o[k] = Fn::apply(i[k]);
    } else {
      for (std::int64_t k = 0; k < len; ++k) o[k * st[0]] = Fn::apply(i[k * st[1]]);
    }
  });
}

template <typename Fn, ElementwiseKind Kind>
void unary_kernel(const Tensor& x, const Tensor& out) {
  if constexpr (Kind == ElementwiseKind::floating) {
    dispatch_float(out.dtype(), "unary", [&](auto t) { run<Fn, decltype(t)>(x, out); });
  } else {
    dispatch_arith(out.dtype(), "unary", [&](auto t) { run<Fn, decltype(t)>(x, out); });
  }
}

}  // namespace

ACC_REGISTER_KERNELS {
#define ACC_CPU_REGISTER_UNARY(name, kind, expression)                                                  \
  register_kernel(op::name, DeviceKind::cpu, elementwise_dtypes(ElementwiseKind::kind, dtypes::floating), \
                  &unary_kernel<functions::name, ElementwiseKind::kind>);
  ACC_UNARY_FUNCTIONS(ACC_CPU_REGISTER_UNARY)
#undef ACC_CPU_REGISTER_UNARY
}

}  // namespace accelera::cpu
