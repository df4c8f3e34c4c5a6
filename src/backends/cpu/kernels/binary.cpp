// Element-wise add, subtract, multiply, divide with broadcasting (stride-0 operands). Float runs that are
// contiguous, or contiguous against one broadcast value, go to the vectorised kernels of
// backends/cpu/simd/ (streaming stores for large outputs); the rest run here.
#include "backends/cpu/kernels/dispatch.hpp"
#include "backends/cpu/kernels/kernels.hpp"
#include "backends/common/strided_loop.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"

namespace accelera::cpu {

using namespace accelera::backends;  // strided loops

namespace {

struct Add {
  static constexpr auto kSimd = simd::BinaryFunction::add;
  template <typename T> static T apply(T a, T b) { return a + b; }
};
struct Sub {
  static constexpr auto kSimd = simd::BinaryFunction::subtract;
  template <typename T> static T apply(T a, T b) { return a - b; }
};
struct Mul {
  static constexpr auto kSimd = simd::BinaryFunction::multiply;
  template <typename T> static T apply(T a, T b) { return a * b; }
};
struct Div {
  static constexpr auto kSimd = simd::BinaryFunction::divide;
  template <typename T> static T apply(T a, T b) { return a / b; }
};

// Integer overflow wraps as in NumPy; unsigned arithmetic keeps that defined.
template <typename Op, typename T>
inline T apply(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(Op::apply(static_cast<U>(a), static_cast<U>(b)));
  } else {
    return Op::apply(a, b);
  }
}

template <typename Op, typename T>
void run(const Tensor& a, const Tensor& b, const Tensor& out) {
  const auto layout = make_layout<3>(out.shape(), {&out.strides(), &a.strides(), &b.strides()});
  T* o_base = out.data<T>();
  const T* a_base = a.data<T>();
  const T* b_base = b.data<T>();
  [[maybe_unused]] const auto store = simd::store_for(static_cast<std::int64_t>(out.nbytes()));
  parallel_for_each_run(layout, [&](auto off, std::int64_t len, auto st) {
    T* __restrict o = o_base + off[0];
    const T* __restrict x = a_base + off[1];
    const T* __restrict y = b_base + off[2];
    if constexpr (std::is_floating_point_v<T>) {
      const bool unit_or_broadcast = (st[1] == 0 || st[1] == 1) && (st[2] == 0 || st[2] == 1);
      if (st[0] == 1 && unit_or_broadcast && st[1] + st[2] >= 1) {
        return simd::binary(Op::kSimd, x, st[1] == 0, y, st[2] == 0, o, len, store);
      }
    }
    // Fast paths: both contiguous, or one side a broadcast scalar along the run.
    if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
#pragma omp simd
      for (std::int64_t k = 0; k < len; ++k) o[k] = apply<Op>(x[k], y[k]);
    } else if (st[0] == 1 && st[1] == 1 && st[2] == 0) {
      const T s = *y;
#pragma omp simd
      for (std::int64_t k = 0; k < len; ++k) o[k] = apply<Op>(x[k], s);
    } else if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
      const T s = *x;
#pragma omp simd
      for (std::int64_t k = 0; k < len; ++k) o[k] = apply<Op>(s, y[k]);
    } else {
      for (std::int64_t k = 0; k < len; ++k) o[k * st[0]] = apply<Op>(x[k * st[1]], y[k * st[2]]);
    }
  });
}

template <typename Op>
void run_typed(const Tensor& a, const Tensor& b, const Tensor& out, const char* name) {
  dispatch_arith(out.dtype(), name, [&](auto t) { run<Op, decltype(t)>(a, b, out); });
}

}  // namespace

void binary_kernel(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  simd::ensure_target_selected();  // may throw: before any parallel region
  switch (op) {
    case BinaryOp::add: return run_typed<Add>(a, b, out, "add");
    case BinaryOp::subtract: return run_typed<Sub>(a, b, out, "subtract");
    case BinaryOp::multiply: return run_typed<Mul>(a, b, out, "multiply");
    case BinaryOp::divide:
      return dispatch_float(out.dtype(), "divide", [&](auto t) { run<Div, decltype(t)>(a, b, out); });
  }
}

}  // namespace accelera::cpu
