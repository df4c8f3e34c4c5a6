#pragma once
// Note [CPU radix sort]
// Rows are sorted by a least-significant-digit radix sort on the keys of Note [Sort keys]: 8-bit digits,
// one pass per digit, each a stable counting scatter, so the sort is stable by construction and O(n).
// The elements themselves move (their keys are recomputed, a few instructions), with their original
// positions beside them when indices are wanted. One read of the row counts every digit's histogram; a
// digit that all elements share is skipped (small integers, bools, narrow ranges sort in fewer passes).
// A long row is split among threads: per pass each thread counts its chunk's digits, the offsets are
// prefix sums over (bucket, thread), and each thread scatters its chunk to its own slots — the order of
// equal keys is the chunk order, so still stable. Very short rows use an insertion sort.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace accelera::cpu {

namespace radix_detail {

inline constexpr int kDigitBits = 8;
inline constexpr int kBuckets = 1 << kDigitBits;
inline constexpr std::int64_t kInsertionLimit = 24;

template <typename U>
inline constexpr int kDigits = static_cast<int>(sizeof(U) * 8 / kDigitBits);

template <typename U>
using Histograms = std::array<std::array<std::int64_t, kBuckets>, kDigits<U>>;

template <typename U>
constexpr unsigned digit_of(U key, int d) {
  return static_cast<unsigned>(key >> (d * kDigitBits)) & (kBuckets - 1);
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

template <typename U, typename KeyFn>
void count_digits(const U* x, std::int64_t begin, std::int64_t end, U flip, KeyFn key, Histograms<U>& h) {
  for (auto& d : h) d.fill(0);
  for (std::int64_t i = begin; i < end; ++i) {
    const U k = static_cast<U>(key(x[i]) ^ flip);
    for (int d = 0; d < kDigits<U>; ++d) ++h[d][digit_of(k, d)];
  }
}

template <typename U, typename KeyFn>
void count_digit(const U* x, std::int64_t begin, std::int64_t end, U flip, KeyFn key, int d,
                 std::array<std::int64_t, kBuckets>& h) {
  h.fill(0);
  for (std::int64_t i = begin; i < end; ++i) ++h[digit_of(static_cast<U>(key(x[i]) ^ flip), d)];
}

// Moves src[begin, end) (and its positions: src_at, or the positions themselves when null) to the slots
// `next` gives each bucket.
template <typename U, typename KeyFn>
void scatter(const U* src, const std::int64_t* src_at, std::int64_t begin, std::int64_t end, U* dst,
             std::int64_t* dst_at, U flip, KeyFn key, int d, std::array<std::int64_t, kBuckets>& next) {
  for (std::int64_t i = begin; i < end; ++i) {
    const U e = src[i];
    const std::int64_t slot = next[digit_of(static_cast<U>(key(e) ^ flip), d)]++;
    dst[slot] = e;
    if (dst_at) dst_at[slot] = src_at ? src_at[i] : i;
  }
}

}  // namespace radix_detail

// Sorts x[0, n) stably by key(x[i]) ^ flip. Writes the sorted elements to `values` and their positions to
// `indices` (either may be null, not both) using up to `threads` threads.
template <typename U, typename KeyFn>
void radix_sort_row(const U* x, std::int64_t n, U* values, std::int64_t* indices, U flip, KeyFn key, int threads) {
  using namespace radix_detail;
  if (n <= kInsertionLimit) return insertion_sort(x, n, values, indices, flip, key);
  const int t_count = std::max(1, static_cast<int>(std::min<std::int64_t>(threads, n / (1 << 16))));
  std::vector<Histograms<U>> per_thread(static_cast<std::size_t>(t_count));
  const auto chunk_begin = [&](int t) { return n * t / t_count; };
#pragma omp parallel for num_threads(t_count) schedule(static) if (t_count > 1)
  for (int t = 0; t < t_count; ++t) count_digits(x, chunk_begin(t), chunk_begin(t + 1), flip, key, per_thread[t]);
  Histograms<U> total{};
  for (const auto& h : per_thread)
    for (int d = 0; d < kDigits<U>; ++d)
      for (int b = 0; b < kBuckets; ++b) total[d][b] += h[d][b];
  std::vector<int> passes;
  for (int d = 0; d < kDigits<U>; ++d) {
    if (*std::max_element(total[d].begin(), total[d].end()) != n) passes.push_back(d);
  }
  // Buffers: the outputs where given, scratch otherwise; the last pass lands in the outputs.
  std::unique_ptr<U[]> own_values, scratch_values;
  std::unique_ptr<std::int64_t[]> scratch_at;
  if (!values) own_values = std::make_unique_for_overwrite<U[]>(static_cast<std::size_t>(n)), values = own_values.get();
  if (passes.empty()) {
    std::copy(x, x + n, values);
    if (indices)
      for (std::int64_t i = 0; i < n; ++i) indices[i] = i;
    return;
  }
  if (passes.size() > 1) {
    scratch_values = std::make_unique_for_overwrite<U[]>(static_cast<std::size_t>(n));
    if (indices) scratch_at = std::make_unique_for_overwrite<std::int64_t[]>(static_cast<std::size_t>(n));
  }
  const U* src = x;
  const std::int64_t* src_at = nullptr;
  std::vector<std::array<std::int64_t, kBuckets>> next(static_cast<std::size_t>(t_count));
  for (std::size_t p = 0; p < passes.size(); ++p) {
    const int d = passes[p];
    const bool to_output = (passes.size() - 1 - p) % 2 == 0;
    U* dst = to_output ? values : scratch_values.get();
    std::int64_t* dst_at = indices ? (to_output ? indices : scratch_at.get()) : nullptr;
    // Chunk counts of this digit: from the first read for the first pass, recounted after (the whole row's
    // histogram does not change between passes, a chunk's does).
#pragma omp parallel for num_threads(t_count) schedule(static) if (t_count > 1)
    for (int t = 0; t < t_count; ++t) {
      if (p == 0 || t_count == 1) next[t] = per_thread[t][d];
      else count_digit(src, chunk_begin(t), chunk_begin(t + 1), flip, key, d, next[t]);
    }
    std::int64_t offset = 0;
    for (int b = 0; b < kBuckets; ++b) {
      for (int t = 0; t < t_count; ++t) {
        const std::int64_t c = next[t][b];
        next[t][b] = offset;
        offset += c;
      }
    }
#pragma omp parallel for num_threads(t_count) schedule(static) if (t_count > 1)
    for (int t = 0; t < t_count; ++t) {
      scatter(src, src_at, chunk_begin(t), chunk_begin(t + 1), dst, dst_at, flip, key, d, next[t]);
    }
    src = dst;
    src_at = dst_at;
  }
}

}  // namespace accelera::cpu
