// Element-wise neg, exp, log, tanh, relu, sigmoid. Contiguous float runs of exp, log, tanh and sigmoid go
// to the vectorised kernels of backends/cpu/simd/; strided runs use the same polynomials one element at a
// time (vector_math.hpp).
#include <string>
#include <type_traits>

#include "backends/cpu/kernels/dispatch.hpp"
#include "backends/cpu/kernels/kernels.hpp"
#include "backends/common/strided_loop.hpp"
#include "backends/cpu/kernels/vector_math.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"

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
struct Exp {
  static constexpr auto kSimd = simd::UnaryFunction::exp;
  template <typename T> static T apply(T x) { return vmath::exp(x); }
};
struct Log {
  static constexpr auto kSimd = simd::UnaryFunction::log;
  template <typename T> static T apply(T x) { return vmath::log(x); }
};
struct Tanh {
  static constexpr auto kSimd = simd::UnaryFunction::tanh;
  template <typename T> static T apply(T x) { return vmath::tanh(x); }
};
struct Sigmoid {
  static constexpr auto kSimd = simd::UnaryFunction::sigmoid;
  template <typename T> static T apply(T x) { return vmath::sigmoid(x); }
};

template <typename Op>
concept HasSimdKernel = requires { Op::kSimd; };

template <typename Op, typename T>
void run(const Tensor& x, const Tensor& out) {
  const auto layout = make_layout<2>(out.shape(), {&out.strides(), &x.strides()});
  T* o_base = out.data<T>();
  const T* x_base = x.data<T>();
  [[maybe_unused]] const auto store = simd::store_for(static_cast<std::int64_t>(out.nbytes()));
  parallel_for_each_run(layout, [&](auto off, std::int64_t len, auto st) {
    T* __restrict o = o_base + off[0];
    const T* __restrict i = x_base + off[1];
    if constexpr (HasSimdKernel<Op>) {
      if (st[0] == 1 && st[1] == 1) return simd::unary(Op::kSimd, i, o, len, store);
    }
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
  simd::ensure_target_selected();  // may throw: before any parallel region
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
