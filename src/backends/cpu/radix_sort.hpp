#pragma once
// Note [CPU radix sort]
// Rows are sorted by a least-significant-digit radix sort on the keys of Note [Sort keys]: one pass per
// digit (11 bits for rows of 2^16 or more 32- and 64-bit keys, 8 otherwise: a short row pays for every
// bucket of every pass), each a stable counting scatter, so the sort
// is stable by construction and O(n). The elements themselves move (their keys are recomputed, a few
// instructions), with their original positions beside them when indices are wanted (32-bit positions
// between passes when the row allows, half the traffic of int64). One read of the row counts every digit's
// histogram; a digit that all elements share is skipped (small integers, bools, narrow ranges sort in
// fewer passes). A long row is split among threads: per pass each thread counts its chunk's digits, the
// offsets are prefix sums over (bucket, thread), and each thread scatters its chunk to its own slots — the
// order of equal keys is the chunk order, so still stable. Very short rows use an insertion sort.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace accelera::cpu {

namespace radix_detail {

inline constexpr std::int64_t kInsertionLimit = 24;

// Digits of B bits: 11 for long rows of 32- and 64-bit keys (fewer passes), 8 otherwise (short rows pay
// for every bucket of every pass).
template <int B>
inline constexpr int kBuckets = 1 << B;
template <typename U, int B>
inline constexpr int kDigits = (static_cast<int>(sizeof(U)) * 8 + B - 1) / B;

template <int B>
using Counts = std::array<std::int64_t, kBuckets<B>>;
template <typename U, int B>
using Histograms = std::array<Counts<B>, kDigits<U, B>>;

template <int B, typename U>
constexpr unsigned digit_of(U key, int d) {
  return static_cast<unsigned>(key >> (d * B)) & (kBuckets<B> - 1);
}

// Stable insertion sort of a short row (the digit passes cost more than they save below a few dozen).
template <typename U, typename KeyFn>
void insertion_sort(const U* x, std::int64_t n, U* values, std::int64_t* indices, U flip, KeyFn key) {
  std::array<U, kInsertionLimit> v;
  std::array<std::int64_t, kInsertionLimit> at;
  for (std::int64_t i = 0; i < n; ++i) {
    const U e = x[i];
    const U k = static_cast<U>(key(e) ^ flip);
    std::int64_t j = i;
    for (; j > 0 && static_cast<U>(key(v[j - 1]) ^ flip) > k; --j) v[j] = v[j - 1], at[j] = at[j - 1];
    v[j] = e, at[j] = i;
  }
  for (std::int64_t i = 0; i < n; ++i) {
    if (values) values[i] = v[i];
    if (indices) indices[i] = at[i];
  }
}

template <int B, typename U, typename KeyFn>
void count_digits(const U* x, std::int64_t begin, std::int64_t end, U flip, KeyFn key, Histograms<U, B>& h) {
  for (auto& d : h) d.fill(0);
  for (std::int64_t i = begin; i < end; ++i) {
    const U k = static_cast<U>(key(x[i]) ^ flip);
    for (int d = 0; d < kDigits<U, B>; ++d) ++h[d][digit_of<B>(k, d)];
  }
}

template <int B, typename U, typename KeyFn>
void count_digit(const U* x, std::int64_t begin, std::int64_t end, U flip, KeyFn key, int d, Counts<B>& h) {
  h.fill(0);
  for (std::int64_t i = begin; i < end; ++i) ++h[digit_of<B>(static_cast<U>(key(x[i]) ^ flip), d)];
}

// Moves src[begin, end) to the slots `next` gives each bucket, with its positions when dst_at is given
// (src_at, or the positions themselves when src_at is null: the first pass).
template <int B, typename U, typename P, typename Q, typename KeyFn>
void scatter(const U* src, const P* src_at, std::int64_t begin, std::int64_t end, U* dst, Q* dst_at, U flip,
             KeyFn key, int d, Counts<B>& next) {
  if (!dst_at) {
    for (std::int64_t i = begin; i < end; ++i) {
      const U e = src[i];
      dst[next[digit_of<B>(static_cast<U>(key(e) ^ flip), d)]++] = e;
    }
  } else if (!src_at) {
    for (std::int64_t i = begin; i < end; ++i) {
      const U e = src[i];
      const std::int64_t slot = next[digit_of<B>(static_cast<U>(key(e) ^ flip), d)]++;
      dst[slot] = e;
      dst_at[slot] = static_cast<Q>(i);
    }
  } else {
    for (std::int64_t i = begin; i < end; ++i) {
      const U e = src[i];
      const std::int64_t slot = next[digit_of<B>(static_cast<U>(key(e) ^ flip), d)]++;
      dst[slot] = e;
      dst_at[slot] = static_cast<Q>(src_at[i]);
    }
  }
}

// The digit passes with positions of type P between passes.
template <int B, typename U, typename P, typename KeyFn>
void sort_passes(const U* x, std::int64_t n, U* values, std::int64_t* indices, U flip, KeyFn key, int t_count,
                 std::vector<Histograms<U, B>>& per_thread, const std::vector<int>& passes) {
  const std::size_t count = static_cast<std::size_t>(n);
  // Element buffers: the output and one scratch (two when there is no output); positions: two scratch.
  std::unique_ptr<U[]> own_values = values ? nullptr : std::make_unique_for_overwrite<U[]>(count);
  if (!values) values = own_values.get();
  std::unique_ptr<U[]> scratch = passes.size() > 1 ? std::make_unique_for_overwrite<U[]>(count) : nullptr;
  std::unique_ptr<P[]> at[2];
  if (indices && passes.size() > 1) at[0] = std::make_unique_for_overwrite<P[]>(count);
  if (indices && passes.size() > 2) at[1] = std::make_unique_for_overwrite<P[]>(count);
  const auto chunk_begin = [&](int t) { return n * t / t_count; };
  std::vector<Counts<B>> next(static_cast<std::size_t>(t_count));
  const U* src = x;
  const P* src_at = nullptr;
  for (std::size_t p = 0; p < passes.size(); ++p) {
    const int d = passes[p];
    const bool last = p + 1 == passes.size();
    // Elements alternate so that the last pass lands in `values`.
    U* dst = (passes.size() - 1 - p) % 2 == 0 ? values : scratch.get();
    P* dst_at = indices && !last ? at[p % 2].get() : nullptr;
    // Chunk counts of this digit: from the first read for the first pass, recounted after (the whole row's
    // histogram does not change between passes, a chunk's does).
#pragma omp parallel for num_threads(t_count) schedule(static) if (t_count > 1)
    for (int t = 0; t < t_count; ++t) {
      if (p == 0 || t_count == 1) next[t] = per_thread[t][d];
      else count_digit<B>(src, chunk_begin(t), chunk_begin(t + 1), flip, key, d, next[t]);
    }
    std::int64_t offset = 0;
    for (int b = 0; b < kBuckets<B>; ++b) {
      for (int t = 0; t < t_count; ++t) {
        const std::int64_t c = next[t][b];
        next[t][b] = offset;
        offset += c;
      }
    }
#pragma omp parallel for num_threads(t_count) schedule(static) if (t_count > 1)
    for (int t = 0; t < t_count; ++t) {
      const std::int64_t b = chunk_begin(t), e = chunk_begin(t + 1);
      if (indices && last) scatter<B>(src, src_at, b, e, dst, indices, flip, key, d, next[t]);
      else scatter<B>(src, src_at, b, e, dst, dst_at, flip, key, d, next[t]);
    }
    src = dst;
    src_at = dst_at;
  }
}

}  // namespace radix_detail

namespace radix_detail {

template <int B, typename U, typename KeyFn>
void radix_sort_digits(const U* x, std::int64_t n, U* values, std::int64_t* indices, U flip, KeyFn key, int threads) {
  const int t_count = std::max(1, static_cast<int>(std::min<std::int64_t>(threads, n / (1 << 16))));
  std::vector<Histograms<U, B>> per_thread(static_cast<std::size_t>(t_count));
#pragma omp parallel for num_threads(t_count) schedule(static) if (t_count > 1)
  for (int t = 0; t < t_count; ++t) {
    count_digits<B>(x, n * t / t_count, n * (t + 1) / t_count, flip, key, per_thread[t]);
  }
  std::vector<int> passes;
  for (int d = 0; d < kDigits<U, B>; ++d) {
    std::int64_t largest = 0;
    for (int b = 0; b < kBuckets<B>; ++b) {
      std::int64_t total = 0;
      for (const auto& h : per_thread) total += h[d][b];
      largest = std::max(largest, total);
    }
    if (largest != n) passes.push_back(d);
  }
  if (passes.empty()) {  // every key equal: the row is already in order
    if (values) std::copy(x, x + n, values);
    if (indices)
      for (std::int64_t i = 0; i < n; ++i) indices[i] = i;
    return;
  }
  if (n <= std::numeric_limits<std::uint32_t>::max()) {
    sort_passes<B, U, std::uint32_t>(x, n, values, indices, flip, key, t_count, per_thread, passes);
  } else {
    sort_passes<B, U, std::int64_t>(x, n, values, indices, flip, key, t_count, per_thread, passes);
  }
}

}  // namespace radix_detail

// Sorts x[0, n) stably by key(x[i]) ^ flip. Writes the sorted elements to `values` and their positions to
// `indices` (either may be null, not both) using up to `threads` threads.
template <typename U, typename KeyFn>
void radix_sort_row(const U* x, std::int64_t n, U* values, std::int64_t* indices, U flip, KeyFn key, int threads) {
  using namespace radix_detail;
  if (n <= kInsertionLimit) return insertion_sort(x, n, values, indices, flip, key);
  if (sizeof(U) >= 4 && n >= (1 << 16)) return radix_sort_digits<11>(x, n, values, indices, flip, key, threads);
  radix_sort_digits<8>(x, n, values, indices, flip, key, threads);
}

}  // namespace accelera::cpu
