// Sum, product, mean, max and min over any set of axes.
// Note [Reduction paths]: the output elements are iterated over the kept axes. When the reduced elements
// of one output are contiguous-ish (row reductions, full reductions), each output is reduced with 8
// independent accumulators (vectorisable, and more accurate than one running sum); a single output is
// split across threads. When the innermost kept axis is the contiguous one (column reductions), whole
// rows are accumulated into a buffer instead, so memory is read in order.
// Float sums accumulate in double, integer sums in int64 (wrapping back on store as NumPy's do).
// float16 and bfloat16 are read through float and rounded once on store (Note [Half formats on the cpu]).
// Contiguous float runs are reduced by the vectorised kernels of backends/cpu/simd/.
// sum_squared_deviations is a centered reduction: each output's elements are taken relative to its center
// (an operand with out's layout), so its step needs the center of the output at hand (Op::kCentered).
#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/elementwise_dispatch.hpp"
#include "backends/common/reduce_axes.hpp"
#include "backends/common/strided_loop.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"
#include "ops/reduce.hpp"

namespace accelera::cpu {

using namespace accelera::backends;  // strided loops

namespace {

// The type a reduction compares in: float for the half formats, the element type otherwise.
template <typename T>
using Compare = decltype(widen(T{}));

template <typename T>
inline constexpr bool kFloatLike = std::is_floating_point_v<T> || kIsHalf<T>;

// Integers accumulate in uint64, where overflow wraps with defined behaviour (NumPy's int64 and uint64
// sums wrap too); the bits are the same for a signed sum.
template <typename T>
using IntegerOrDouble = std::conditional_t<kFloatLike<T>, double, std::uint64_t>;

// Out: what the kernel writes. Integer sums and products write their uint64 accumulator's bits into an
// int64 or uint64 output (Note [Integer accumulation]), whatever integer type they read.
template <typename T>
using AccumulationOut = std::conditional_t<kFloatLike<T>, T, std::uint64_t>;

template <typename T>
struct SumOp {
  using Acc = IntegerOrDouble<T>;
  using Out = AccumulationOut<T>;
  static constexpr bool kIsMax = false;
  static constexpr bool kIsMin = false;
  static constexpr bool kIsSum = true;
  static constexpr bool kCentered = false;
  static Acc init() { return Acc{0}; }
  static Acc step(Acc a, T v) { return a + static_cast<Acc>(widen(v)); }
  static Acc combine(Acc a, Acc b) { return a + b; }
  static Out finish(Acc a, std::int64_t) { return narrow<Out>(a); }
};

template <typename T>
struct MeanOp : SumOp<T> {
  using Acc = typename SumOp<T>::Acc;
  using Out = T;
  static T finish(Acc a, std::int64_t count) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      return narrow<T>(static_cast<double>(static_cast<std::int64_t>(a)) / static_cast<double>(count));
    } else {
      return narrow<T>(static_cast<double>(a) / static_cast<double>(count));
    }
  }
};

// Products accumulate like sums: floats in double, integers in int64 wrapping as NumPy's do.
template <typename T>
struct ProdOp {
  using Acc = IntegerOrDouble<T>;
  using Out = AccumulationOut<T>;
  static constexpr bool kIsMax = false;
  static constexpr bool kIsMin = false;
  static constexpr bool kIsSum = false;
  static constexpr bool kCentered = false;
  static Acc init() { return Acc{1}; }
  static Acc step(Acc a, T v) { return combine(a, static_cast<Acc>(widen(v))); }
  static Acc combine(Acc a, Acc b) {
    if constexpr (std::is_integral_v<Acc>) {
      return a * b;
    } else {
      return a * b;
    }
  }
  static Out finish(Acc a, std::int64_t) { return narrow<Out>(a); }
};

template <typename T>
struct MinOp {
  using Acc = Compare<T>;
  using Out = T;
  static constexpr bool kIsMax = false;
  static constexpr bool kIsMin = true;
  static constexpr bool kIsSum = false;
  static constexpr bool kCentered = false;
  static Acc init() {
    if constexpr (std::is_floating_point_v<Acc>) return std::numeric_limits<Acc>::infinity();
    return std::numeric_limits<Acc>::max();
  }
  // nan wins and stays, as in NumPy.
  static Acc combine(Acc a, Acc v) { return (v < a || v != v) ? v : a; }
  static Acc step(Acc a, T v) { return combine(a, widen(v)); }
  static T finish(Acc a, std::int64_t) { return narrow<T>(a); }
};

template <typename T>
struct MaxOp {
  using Acc = Compare<T>;
  using Out = T;
  static constexpr bool kIsMax = true;
  static constexpr bool kIsMin = false;
  static constexpr bool kIsSum = false;
  static constexpr bool kCentered = false;
  static Acc init() {
    if constexpr (std::is_floating_point_v<Acc>) return -std::numeric_limits<Acc>::infinity();
    return std::numeric_limits<Acc>::lowest();
  }
  // nan wins and stays, as in NumPy.
  static Acc combine(Acc a, Acc v) { return (v > a || v != v) ? v : a; }
  static Acc step(Acc a, T v) { return combine(a, widen(v)); }
  static T finish(Acc a, std::int64_t) { return narrow<T>(a); }
};

// The sum of (x - center)^2 over each output's elements, in double: the second pass of var.
template <typename T>
struct SquaredDeviationOp {
  using Acc = double;
  using Out = T;
  static constexpr bool kIsMax = false;
  static constexpr bool kIsMin = false;
  static constexpr bool kIsSum = false;
  static constexpr bool kCentered = true;
  Acc center = 0;
  static Acc init() { return 0; }
  Acc step(Acc a, T v) const {
    const Acc d = static_cast<Acc>(widen(v)) - center;
    return a + d * d;
  }
  static Acc combine(Acc a, Acc b) { return a + b; }
  static T finish(Acc a, std::int64_t) { return narrow<T>(a); }
};

// The Op that reduces output `at` (out's element offset): centered ops take that output's center.
template <typename Op>
Op op_for_output(const Op& op, const typename Op::Out* center, std::int64_t at) {
  if constexpr (Op::kCentered) {
    Op centered = op;
    centered.center = static_cast<typename Op::Acc>(widen(center[at]));
    return centered;
  } else {
    return op;
  }
}

// The dtypes the reductions compute: the arithmetic ones and the half formats.
template <typename F>
void dispatch_reduce(DType dtype, const char* op, F&& f) {
  switch (dtype) {
    case DType::f16: return f(Half{});
    case DType::bf16: return f(BFloat16{});
    default: return dispatch_arith(dtype, op, std::forward<F>(f));
  }
}

// Runs shorter than this skip the vectorised kernels, whose dispatch costs more than the run (pooling
// windows, softmax over a few classes: rows of 2 to 16 elements by the million).
constexpr std::int64_t kShortRun = 32;

template <typename Op, typename T>
typename Op::Acc reduce_run(const Op& op, const T* p, std::int64_t len, std::int64_t stride, typename Op::Acc acc) {
  using Acc = typename Op::Acc;
  if constexpr (std::is_floating_point_v<T>) {
    if (stride == 1 && len >= kShortRun) {
      if constexpr (Op::kIsMax) return Op::combine(acc, simd::max(p, len));
      if constexpr (Op::kIsMin) return Op::combine(acc, simd::min(p, len));
      if constexpr (Op::kIsSum) return acc + simd::sum(p, len);
      if constexpr (Op::kCentered) return acc + simd::sum_squared_deviations(p, len, op.center);
    }
  } else if constexpr (std::is_integral_v<T> && (Op::kIsMax || Op::kIsMin)) {
    if (stride == 1 && len >= kShortRun) return Op::combine(acc, Op::kIsMax ? simd::max(p, len) : simd::min(p, len));
  }
  if (stride == 1) {
    Acc lanes[8];
    for (auto& l : lanes) l = Op::init();
    std::int64_t k = 0;
    for (; k + 8 <= len; k += 8) {
      for (int j = 0; j < 8; ++j) lanes[j] = op.step(lanes[j], p[k + j]);
    }
    for (; k < len; ++k) acc = op.step(acc, p[k]);
    for (const auto& l : lanes) acc = Op::combine(acc, l);
    return acc;
  }
  for (std::int64_t k = 0; k < len; ++k) acc = op.step(acc, p[k * stride]);
  return acc;
}

template <typename Op, typename T>
typename Op::Acc reduce_one(const Op& op, const T* base, const LoopLayout<1>& reduced, std::int64_t begin,
                            std::int64_t end) {
  auto acc = Op::init();
  for_each_run(reduced, begin, end, [&](auto off, std::int64_t len, auto st) {
    acc = reduce_run(op, base + off[0], len, st[0], acc);
  });
  return acc;
}

// center: for centered ops, an operand with out's layout and dtype (undefined otherwise).
template <typename Op, typename T>
void run(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out, const Tensor& center = {}) {
  using Acc = typename Op::Acc;
  const Op op{};
  const typename Op::Out* cb = Op::kCentered ? center.data<typename Op::Out>() : nullptr;
  const auto s = backends::split_axes(x, axes, out);
  const std::int64_t count = s.reduced_shape.numel();
  const T* xb = x.data<T>();
  auto* ob = out.data<typename Op::Out>();
  const auto kept = make_layout<2>(s.kept_shape, {&s.kept_out, &s.kept_x});
  const auto reduced = make_layout<1>(s.reduced_shape, {&s.reduced_x});
  const std::int64_t outputs = kept.numel;
  if (outputs == 0) return;
  if (count == 0) {
    for_each_run(kept, 0, outputs, [&](auto off, std::int64_t len, auto st) {
      for (std::int64_t k = 0; k < len; ++k) ob[off[0] + k * st[0]] = Op::finish(Op::init(), 0);
    });
    return;
  }

  const bool column_reduction = kept.strides[1].back() == 1 && reduced.strides[0].back() != 1 && outputs > 1;
  if (column_reduction) {
    // Accumulate whole contiguous rows: for every reduced index, acc[j] = step(acc[j], x[..., j]).
    const std::int64_t inner = kept.dims.back();
    const auto outer_kept = outputs / inner;
    const std::int64_t total = outer_kept * count;
    const int threads = (total * inner < kParallelGrain) ? 1 : omp_get_max_threads();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t chunk = 0; chunk < outer_kept * threads; ++chunk) {
      const std::int64_t o = chunk / threads, part = chunk % threads;
      const std::int64_t j0 = inner * part / threads, j1 = inner * (part + 1) / threads;
      if (j0 == j1) continue;
      std::vector<Acc> acc(static_cast<std::size_t>(j1 - j0), Op::init());
      // Offsets of this outer kept index.
      std::int64_t xo = 0, oo = 0, rem = o;
      for (std::size_t d = kept.dims.size() - 1; d-- > 0;) {
        const std::int64_t i = rem % kept.dims[d];
        rem /= kept.dims[d];
        oo += i * kept.strides[0][d];
        xo += i * kept.strides[1][d];
      }
      const std::int64_t os = kept.strides[0].back();
      // Centered ops: each column's center.
      std::vector<Acc> centers(Op::kCentered ? static_cast<std::size_t>(j1 - j0) : 0);
      if constexpr (Op::kCentered) {
        for (std::size_t j = 0; j < centers.size(); ++j) {
          centers[j] = op_for_output(op, cb, oo + (j0 + static_cast<std::int64_t>(j)) * os).center;
        }
      }
      const auto step = [&](Acc a, std::int64_t j, T v) {
        if constexpr (Op::kCentered) {
          Op column_op = op;
          column_op.center = centers[static_cast<std::size_t>(j)];
          return column_op.step(a, v);
        } else {
          return Op::step(a, v);
        }
      };
      for_each_run(reduced, 0, count, [&](auto off, std::int64_t len, auto st) {
        if constexpr (std::is_floating_point_v<T> && std::is_same_v<Acc, double> && (Op::kIsSum || Op::kCentered)) {
          // Blocks of rows added into the accumulators by the vectorised kernel.
          simd::add_rows(xb + xo + off[0] + j0, len, st[0], j1 - j0, Op::kCentered ? centers.data() : nullptr,
                         acc.data());
          return;
        }
        for (std::int64_t r = 0; r < len; ++r) {
          const T* row = xb + xo + off[0] + r * st[0] + j0;
          if constexpr (kIsHalf<T>) {  // no simd pragma: GCC 12 fails on some half conversion loops
            for (std::int64_t j = 0; j < j1 - j0; ++j) acc[j] = step(acc[j], j, row[j]);
          } else {
#pragma omp simd
            for (std::int64_t j = 0; j < j1 - j0; ++j) acc[j] = step(acc[j], j, row[j]);
          }
        }
      });
      for (std::int64_t j = j0; j < j1; ++j) ob[oo + j * os] = Op::finish(acc[j - j0], count);
    }
    return;
  }

  if (outputs >= 2 * omp_get_max_threads() || count < kParallelGrain) {
    const int threads = outputs * count < kParallelGrain ? 1 : omp_get_max_threads();
    const bool one_run = reduced.dims.size() == 1;  // each output's elements: one strided run
#pragma omp parallel num_threads(threads)
    {
      const std::int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
      for_each_run(kept, outputs * t / nt, outputs * (t + 1) / nt, [&](auto off, std::int64_t len, auto st) {
        for (std::int64_t k = 0; k < len; ++k) {
          const T* base = xb + off[1] + k * st[1];
          const Op output_op = op_for_output(op, cb, off[0] + k * st[0]);
          ob[off[0] + k * st[0]] = Op::finish(
              one_run ? reduce_run(output_op, base, count, reduced.strides[0][0], Op::init())
                      : reduce_one(output_op, base, reduced, 0, count),
              count);
        }
      });
    }
    return;
  }

  // Few outputs, many elements each: split every output's reduction across threads.
  for_each_run(kept, 0, outputs, [&](auto off, std::int64_t len, auto st) {
    for (std::int64_t k = 0; k < len; ++k) {
      const T* base = xb + off[1] + k * st[1];
      const Op output_op = op_for_output(op, cb, off[0] + k * st[0]);
      std::vector<Acc> partial(static_cast<std::size_t>(omp_get_max_threads()), Op::init());
#pragma omp parallel
      {
        const std::int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
        partial[static_cast<std::size_t>(t)] =
            reduce_one(output_op, base, reduced, count * t / nt, count * (t + 1) / nt);
      }
      Acc acc = Op::init();
      for (const auto& p : partial) acc = Op::combine(acc, p);
      ob[off[0] + k * st[0]] = Op::finish(acc, count);
    }
  });
}

}  // namespace

// x in its own dtype; out in x's (floats) or int64 / uint64 (integers and bool: Note [Integer accumulation]).
void sum_kernel(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  simd::ensure_target_selected();  // may throw: before any parallel region
  dispatch_reduce(x.dtype(), "sum", [&](auto t) { run<SumOp<decltype(t)>, decltype(t)>(x, axes, out); });
}

void mean_kernel(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  simd::ensure_target_selected();  // may throw: before any parallel region
  dispatch_reduce(out.dtype(), "mean", [&](auto t) { run<MeanOp<decltype(t)>, decltype(t)>(x, axes, out); });
}

void max_kernel(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  simd::ensure_target_selected();  // may throw: before any parallel region
  dispatch_reduce(out.dtype(), "max", [&](auto t) { run<MaxOp<decltype(t)>, decltype(t)>(x, axes, out); });
}

void prod_kernel(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  dispatch_reduce(x.dtype(), "prod", [&](auto t) { run<ProdOp<decltype(t)>, decltype(t)>(x, axes, out); });
}

void min_kernel(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  simd::ensure_target_selected();  // may throw: before any parallel region
  dispatch_reduce(out.dtype(), "min", [&](auto t) { run<MinOp<decltype(t)>, decltype(t)>(x, axes, out); });
}

// x, center and out in one real floating dtype; center has out's layout.
void sum_squared_deviations_kernel(const Tensor& x, const Tensor& center, std::span<const std::int64_t> axes,
                                   const Tensor& out) {
  dispatch_reduce(x.dtype(), "sum_squared_deviations", [&](auto t) {
    using T = decltype(t);
    if constexpr (kFloatLike<T>) {
      run<SquaredDeviationOp<T>, T>(x, axes, out, center);
    } else {
      throw DTypeError(fmt::format("sum_squared_deviations: {} is not a real floating dtype", dtype_name(x.dtype())));
    }
  });
}

ACC_REGISTER_KERNELS {
  // Integers are read in their own dtype and accumulated into the int64 or uint64 output (Note [Integer
  // accumulation]), so no widened copy is made.
  register_kernel(op::sum, DeviceKind::cpu, kElementwiseFloating | dtypes::integers, &sum_kernel);
  register_kernel(op::mean, DeviceKind::cpu, kElementwiseFloating, &mean_kernel);
  register_kernel(op::max, DeviceKind::cpu, dtypes::arithmetic | dtypes::half, &max_kernel);
  register_kernel(op::min, DeviceKind::cpu, dtypes::arithmetic | dtypes::half, &min_kernel);
  register_kernel(op::prod, DeviceKind::cpu, kElementwiseFloating | dtypes::integers, &prod_kernel);
  register_kernel(op::sum_squared_deviations, DeviceKind::cpu, kElementwiseFloating, &sum_squared_deviations_kernel);
}

}  // namespace accelera::cpu
