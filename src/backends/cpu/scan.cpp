// cumulative_sum, cumulative_prod and the positions of nonzero on the CPU (Note [Scans] in ops/scan.hpp).
// Tasks are (outer index, chunk of inner columns, block of the scanned axis); blocks exist only when there
// are too few (outer, chunk) pairs to occupy every thread, so a wide or batched scan reads x once.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "accelera/core/error.hpp"
#include "backends/common/strided_loop.hpp"
#include "ops/scan.hpp"

namespace accelera::cpu {

namespace {

struct SumOp {
  template <typename A>
  static A identity() { return A{0}; }
  template <typename A>
  static A apply(A a, A b) { return a + b; }
};
struct ProdOp {
  template <typename A>
  static A identity() { return A{1}; }
  template <typename A>
  static A apply(A a, A b) { return a * b; }
};

// Floats accumulate in double; int64 as uint64, so that overflow wraps instead of being undefined.
template <typename T>
using Accumulator = std::conditional_t<std::is_floating_point_v<T>, double, std::uint64_t>;

// The Op-fold of x[0, n) (contiguous) in four independent accumulators, so that the adds' latency does not
// bound it.
template <typename T, typename Op, typename A = Accumulator<T>>
A fold(const T* x, std::int64_t n) {
  A a0 = Op::template identity<A>(), a1 = a0, a2 = a0, a3 = a0;
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a0 = Op::apply(a0, static_cast<A>(x[i]));
    a1 = Op::apply(a1, static_cast<A>(x[i + 1]));
    a2 = Op::apply(a2, static_cast<A>(x[i + 2]));
    a3 = Op::apply(a3, static_cast<A>(x[i + 3]));
  }
  for (; i < n; ++i) a0 = Op::apply(a0, static_cast<A>(x[i]));
  return Op::apply(Op::apply(a0, a1), Op::apply(a2, a3));
}

// out[i] = carry op x[0] op ... op x[i] over a contiguous run. A sequential scan waits on each add (four
// cycles or so per element); cut into kLanes pieces whose carries come from folds, the pieces advance
// together, kLanes independent chains (about 8x faster for a 16 Mi float scan).
template <typename T, typename Op, typename A = Accumulator<T>>
void scan_run(const T* x, T* out, std::int64_t n, A carry) {
  constexpr int kLanes = 8;
  const std::int64_t m = n >= 64 * kLanes ? n / kLanes : 0;  // piece length; the last piece takes the rest
  A c[kLanes];
  c[0] = carry;
  for (int k = 1; k < kLanes && m; ++k) c[k] = Op::apply(c[k - 1], fold<T, Op>(x + (k - 1) * m, m));
  for (std::int64_t r = 0; r < m; ++r) {
#pragma GCC unroll 8
    for (int k = 0; k < kLanes; ++k) {
      c[k] = Op::apply(c[k], static_cast<A>(x[k * m + r]));
      out[k * m + r] = static_cast<T>(c[k]);
    }
  }
  A& last = m ? c[kLanes - 1] : c[0];
  for (std::int64_t i = m ? kLanes * m : 0; i < n; ++i) {
    last = Op::apply(last, static_cast<A>(x[i]));
    out[i] = static_cast<T>(last);
  }
}

struct ScanShape {
  std::int64_t outer, n, inner, initial;
  std::int64_t chunk, chunks;  // inner columns per task
  std::int64_t block, blocks;  // scanned rows per task
};

ScanShape plan(std::int64_t outer, std::int64_t n, std::int64_t inner, bool include_initial) {
  ScanShape s{outer, n, inner, include_initial ? 1 : 0, std::min<std::int64_t>(inner, 4096), 0, n, 1};
  s.chunks = (inner + s.chunk - 1) / s.chunk;
  const std::int64_t threads = omp_get_max_threads();
  const std::int64_t tasks = outer * s.chunks;
  if (outer * n * inner >= backends::kParallelGrain && tasks < 4 * threads && n >= 128) {
    s.blocks = std::min((4 * threads + tasks - 1) / tasks, n / 64);
    s.block = (n + s.blocks - 1) / s.blocks;
    s.blocks = (n + s.block - 1) / s.block;
  }
  return s;
}

template <typename T, typename Op>
void scan(const Tensor& x_tensor, const Tensor& out_tensor, const ScanShape& s) {
  using A = Accumulator<T>;
  const T* x = x_tensor.data<T>();
  T* out = out_tensor.data<T>();
  const std::int64_t out_n = s.n + s.initial;
  // totals[(o * blocks + b) * inner + j]: block totals, then (in place) each block's exclusive carry.
  std::vector<A> totals;
  const std::int64_t tasks = s.outer * s.chunks * s.blocks;
  const bool parallel = s.outer * s.n * s.inner >= backends::kParallelGrain && !omp_in_parallel();
  const auto task_range = [&](std::int64_t t, std::int64_t& o, std::int64_t& j0, std::int64_t& j1, std::int64_t& i0,
                              std::int64_t& i1) {
    const std::int64_t b = t % s.blocks, c = (t / s.blocks) % s.chunks;
    o = t / (s.blocks * s.chunks);
    j0 = c * s.chunk;
    j1 = std::min(s.inner, j0 + s.chunk);
    i0 = b * s.block;
    i1 = std::min(s.n, i0 + s.block);
  };
  if (s.blocks > 1) {
    totals.assign(static_cast<std::size_t>(s.outer * s.blocks * s.inner), Op::template identity<A>());
#pragma omp parallel for schedule(static) if (parallel)
    for (std::int64_t t = 0; t < tasks; ++t) {
      std::int64_t o, j0, j1, i0, i1;
      task_range(t, o, j0, j1, i0, i1);
      A* total = totals.data() + (o * s.blocks + t % s.blocks) * s.inner;
      if (s.inner == 1) {  // one contiguous column
        total[0] = fold<T, Op>(x + o * s.n + i0, i1 - i0);
        continue;
      }
      for (std::int64_t i = i0; i < i1; ++i) {
        const T* row = x + (o * s.n + i) * s.inner;
        for (std::int64_t j = j0; j < j1; ++j) total[j] = Op::apply(total[j], static_cast<A>(row[j]));
      }
    }
    for (std::int64_t o = 0; o < s.outer; ++o) {
      for (std::int64_t j = 0; j < s.inner; ++j) {
        A carry = Op::template identity<A>();
        for (std::int64_t b = 0; b < s.blocks; ++b) {
          A& slot = totals[static_cast<std::size_t>((o * s.blocks + b) * s.inner + j)];
          const A block_total = slot;
          slot = carry;
          carry = Op::apply(carry, block_total);
        }
      }
    }
  }
#pragma omp parallel for schedule(static) if (parallel)
  for (std::int64_t t = 0; t < tasks; ++t) {
    std::int64_t o, j0, j1, i0, i1;
    task_range(t, o, j0, j1, i0, i1);
    T* out_line = out + o * out_n * s.inner;
    if (s.initial && i0 == 0) {
      for (std::int64_t j = j0; j < j1; ++j) out_line[j] = static_cast<T>(Op::template identity<A>());
    }
    out_line += s.initial * s.inner;
    const A* start = s.blocks > 1 ? totals.data() + (o * s.blocks + t % s.blocks) * s.inner : nullptr;
    if (s.inner == 1) {  // one contiguous column
      scan_run<T, Op>(x + o * s.n + i0, out_line + i0, i1 - i0, start ? start[0] : Op::template identity<A>());
      continue;
    }
    std::vector<A> carry(static_cast<std::size_t>(j1 - j0));
    for (std::int64_t j = j0; j < j1; ++j) carry[static_cast<std::size_t>(j - j0)] = start ? start[j] : Op::template identity<A>();
    for (std::int64_t i = i0; i < i1; ++i) {
      const T* row = x + (o * s.n + i) * s.inner + j0;
      T* dst = out_line + i * s.inner + j0;
      A* acc = carry.data();
#pragma omp simd
      for (std::int64_t j = 0; j < j1 - j0; ++j) {
        acc[j] = Op::apply(acc[j], static_cast<A>(row[j]));
        dst[j] = static_cast<T>(acc[j]);
      }
    }
  }
}

template <typename Op>
void scan_kernel(const Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner, bool include_initial,
                 const Tensor& out) {
  const ScanShape s = plan(outer, n, inner, include_initial);
  switch (out.dtype()) {
    case DType::f32: return scan<float, Op>(x, out, s);
    case DType::f64: return scan<double, Op>(x, out, s);
    case DType::i64: return scan<std::int64_t, Op>(x, out, s);
    default: ACC_ASSERT(false, "the cpu scan kernel was called for {}", dtype_name(out.dtype()));
  }
}

}  // namespace

ACC_REGISTER_KERNELS {
  // The op computes int32 (and bool) scans in int64, so int32 never reaches the kernels.
  const DTypeSet computed = dtypes::floating | DTypeSet{DType::i64};
  register_kernel(op::cumulative_sum, DeviceKind::cpu, computed, &scan_kernel<SumOp>);
  register_kernel(op::cumulative_prod, DeviceKind::cpu, computed, &scan_kernel<ProdOp>);
}

}  // namespace accelera::cpu
