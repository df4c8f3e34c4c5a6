// Element-wise neg, exp, log, tanh, relu, sigmoid.
#include <string>
#include <type_traits>

#include "backends/cpu/kernels/dispatch.hpp"
#include "backends/cpu/kernels/kernels.hpp"
#include "backends/common/strided_loop.hpp"
#include "backends/cpu/kernels/vector_math.hpp"

namespace accelera::cpu {

using namespace accelera::backends;  // strided loops

namespace {

struct Neg { template <typename T> static T apply(T x) { return -x; } };
// Integer negation wraps as in NumPy (-INT_MIN == INT_MIN) without signed overflow.
struct NegWrap {
  template <typename T>
  static T apply(T x) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(U{0} - static_cast<U>(x));
  }
};
// NumPy's maximum propagates nan; so does this.
struct Relu { template <typename T> static T apply(T x) { return x > T{0} || x != x ? x : T{0}; } };
struct Exp { template <typename T> static T apply(T x) { return vmath::exp(x); } };
struct Log { template <typename T> static T apply(T x) { return vmath::log(x); } };
struct Tanh { template <typename T> static T apply(T x) { return vmath::tanh(x); } };
struct Sigmoid { template <typename T> static T apply(T x) { return vmath::sigmoid(x); } };

template <typename Op, typename T>
void run(const Tensor& x, const Tensor& out) {
  const auto layout = make_layout<2>(out.shape(), {&out.strides(), &x.strides()});
  T* o_base = out.data<T>();
  const T* x_base = x.data<T>();
  parallel_for_each_run(layout, [&](auto off, std::int64_t len, auto st) {
    T* __restrict o = o_base + off[0];
    const T* __restrict i = x_base + off[1];
    if (st[0] == 1 && st[1] == 1) {
#pragma omp simd
      for (std::int64_t k = 0; k < len; ++k) o[k] = Op::apply(i[k]);
    } else {
      for (std::int64_t k = 0; k < len; ++k) o[k * st[0]] = Op::apply(i[k * st[1]]);
    }
  });
}

}  // namespace

void unary_kernel(UnaryOp op, const Tensor& x, const Tensor& out) {
  const auto name = std::string(unary_op_name(op));
  switch (op) {
    case UnaryOp::neg:
      return dispatch_arith(out.dtype(), name.c_str(), [&](auto t) {
        using T = decltype(t);
        if constexpr (std::is_integral_v<T>) {
          run<NegWrap, T>(x, out);
        } else {
          run<Neg, T>(x, out);
        }
      });
    case UnaryOp::relu:
      return dispatch_arith(out.dtype(), name.c_str(), [&](auto t) { run<Relu, decltype(t)>(x, out); });
    case UnaryOp::exp:
      return dispatch_float(out.dtype(), name.c_str(), [&](auto t) { run<Exp, decltype(t)>(x, out); });
    case UnaryOp::log:
      return dispatch_float(out.dtype(), name.c_str(), [&](auto t) { run<Log, decltype(t)>(x, out); });
    case UnaryOp::tanh:
      return dispatch_float(out.dtype(), name.c_str(), [&](auto t) { run<Tanh, decltype(t)>(x, out); });
    case UnaryOp::sigmoid:
      return dispatch_float(out.dtype(), name.c_str(), [&](auto t) { run<Sigmoid, decltype(t)>(x, out); });
  }
}

}  // namespace accelera::cpu
