// argmax and argmin on the CPU (ops/arg_extremum.hpp). Outputs are split across threads; a single output
// over many elements is split into per-thread candidates that are then combined (the smaller index wins a
// tie, so the result is the first extremum whatever the split). When the kept axis is the contiguous one
// (argmax over axis 0 of a row-major matrix), whole rows are compared at once so memory is read in order.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/common/reduce_axes.hpp"
#include "backends/common/strided_loop.hpp"
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"
#include "ops/arg_extremum.hpp"

namespace accelera::cpu {

using namespace accelera::backends;

namespace {

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  return false;
}

// Whether v replaces the best so far: strictly better, or the first nan (which then stays).
template <bool kMax, typename T>
bool better(T v, T best) {
  if (is_nan(best)) return false;
  if (is_nan(v)) return true;
  return kMax ? v > best : v < best;
}

template <typename T>
struct Candidate {
  T value;
  std::int64_t index = -1;
};

// Runs shorter than this are scanned directly: the vectorised passes' dispatch costs more than the run.
constexpr std::int64_t kShortRun = 32;

// Contiguous float runs are read once from memory, in blocks this long (16-32 KiB, within L1).
constexpr std::int64_t kBlock = 4096;

// Folds the run of `len` elements at p (index r onwards) into best. A contiguous float run takes each
// block's extremum by a vectorised pass, keeps the first block holding the best (a nan is the best, as
// better() says), and finds the first index of that value in that block alone.
template <bool kMax, typename T>
void scan_run(const T* p, std::int64_t len, std::int64_t stride, std::int64_t r, Candidate<T>& best) {
  if constexpr (std::is_floating_point_v<T>) {
    if (stride == 1 && len >= kShortRun) {
      T value{};
      std::int64_t block = -1;
      for (std::int64_t b = 0; b < len; b += kBlock) {
        const std::int64_t n = std::min(kBlock, len - b);
        const T v = kMax ? simd::max(p + b, n) : simd::min(p + b, n);
        if (block < 0 || better<kMax>(v, value)) value = v, block = b;
      }
      const Candidate<T> run{value, r + block + simd::first_index(p + block, std::min(kBlock, len - block), value)};
      if (best.index < 0 || better<kMax>(run.value, best.value)) best = run;
      return;
    }
  }
  for (std::int64_t k = 0; k < len; ++k, ++r) {
    const T v = p[k * stride];
    if (best.index < 0 || better<kMax>(v, best.value)) best = {v, r};
  }
}

template <bool kMax, typename T>
Candidate<T> scan(const T* x_base, const LoopLayout<1>& reduced, std::int64_t begin, std::int64_t end) {
  Candidate<T> best{T{}, -1};
  if (reduced.dims.size() == 1) {  // one strided run: no multi-index to set up (rows of a few elements)
    scan_run<kMax>(x_base + begin * reduced.strides[0][0], end - begin, reduced.strides[0][0], begin, best);
    return best;
  }
  std::int64_t r = begin;
  for_each_run(reduced, begin, end, [&](auto off, std::int64_t len, auto st) {
    scan_run<kMax>(x_base + off[0], len, st[0], r, best);
    r += len;
  });
  return best;
}

template <bool kMax, typename T>
void run(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  const auto s = split_axes(x, axes, out);
  const std::int64_t count = s.reduced_shape.numel();
  const T* xb = x.data<T>();
  auto* ob = out.data<std::int64_t>();
  const auto kept = make_layout<2>(s.kept_shape, {&s.kept_out, &s.kept_x});
  const auto reduced = make_layout<1>(s.reduced_shape, {&s.reduced_x});
  const std::int64_t outputs = kept.numel;
  const bool column = kept.strides[1].back() == 1 && reduced.strides[0].back() != 1 && outputs > 1;

  if (column) {
    const std::int64_t inner = kept.dims.back(), outer = outputs / inner;
    const int threads = outputs * count < kParallelGrain ? 1 : omp_get_max_threads();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t chunk = 0; chunk < outer * threads; ++chunk) {
      const std::int64_t o = chunk / threads, part = chunk % threads;
      const std::int64_t j0 = inner * part / threads, j1 = inner * (part + 1) / threads;
      if (j0 == j1) continue;
      std::int64_t xo = 0, oo = 0, rem = o;
      for (std::size_t d = kept.dims.size() - 1; d-- > 0;) {
        const std::int64_t i = rem % kept.dims[d];
        rem /= kept.dims[d];
        oo += i * kept.strides[0][d];
        xo += i * kept.strides[1][d];
      }
      std::vector<T> best(xb + xo + j0, xb + xo + j1);  // reduced index 0 is at offset 0
      std::vector<std::int64_t> where(static_cast<std::size_t>(j1 - j0), 0);
      std::int64_t r = 0;
      for_each_run(reduced, 0, count, [&](auto off, std::int64_t len, auto st) {
        for (std::int64_t k = 0; k < len; ++k, ++r) {
          const T* row = xb + xo + off[0] + k * st[0] + j0;
          for (std::int64_t j = 0; j < j1 - j0; ++j) {
            if (better<kMax>(row[j], best[static_cast<std::size_t>(j)])) {
              best[static_cast<std::size_t>(j)] = row[j];
              where[static_cast<std::size_t>(j)] = r;
            }
          }
        }
      });
      const std::int64_t os = kept.strides[0].back();
      for (std::int64_t j = j0; j < j1; ++j) ob[oo + j * os] = where[static_cast<std::size_t>(j - j0)];
    }
    return;
  }

  if (outputs >= 2 * omp_get_max_threads() || count < kParallelGrain) {
    const int threads = outputs * count < kParallelGrain ? 1 : omp_get_max_threads();
#pragma omp parallel num_threads(threads)
    {
      const std::int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
      for_each_run(kept, outputs * t / nt, outputs * (t + 1) / nt, [&](auto off, std::int64_t len, auto st) {
        for (std::int64_t k = 0; k < len; ++k) {
          ob[off[0] + k * st[0]] = scan<kMax>(xb + off[1] + k * st[1], reduced, 0, count).index;
        }
      });
    }
    return;
  }

  // Few outputs, many elements each: per-thread candidates, combined in thread order.
  for_each_run(kept, 0, outputs, [&](auto off, std::int64_t len, auto st) {
    for (std::int64_t k = 0; k < len; ++k) {
      const T* base = xb + off[1] + k * st[1];
      std::vector<Candidate<T>> partial(static_cast<std::size_t>(omp_get_max_threads()), Candidate<T>{T{}, -1});
#pragma omp parallel
      {
        const std::int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
        partial[static_cast<std::size_t>(t)] = scan<kMax>(base, reduced, count * t / nt, count * (t + 1) / nt);
      }
      Candidate<T> best{T{}, -1};
      for (const auto& c : partial) {
        if (c.index >= 0 && (best.index < 0 || better<kMax>(c.value, best.value))) best = c;
      }
      ob[off[0] + k * st[0]] = best.index;
    }
  });
}

template <bool kMax>
void arg_extremum_kernel(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  simd::ensure_target_selected();  // may throw: before any parallel region
  dispatch_arith(x.dtype(), kMax ? "argmax" : "argmin", [&](auto t) { run<kMax, decltype(t)>(x, axes, out); });
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::argmax, DeviceKind::cpu, dtypes::arithmetic, &arg_extremum_kernel<true>);
  register_kernel(op::argmin, DeviceKind::cpu, dtypes::arithmetic, &arg_extremum_kernel<false>);
}

}  // namespace accelera::cpu
