// The CPU's vqsort rows (Note [CPU vector sort]) against the radix sort (Note [CPU radix sort]), bit for bit:
// both are stable sorts by the same keys, by different algorithms. Rows long enough to be split among 2 to 5
// threads exercise the bucket passes; inputs mix -0.0 and +0.0, NaNs of both signs and several payloads, and
// many ties (a key that fills a row included).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "accelera/ops.hpp"
#include "backends/common/sort_keys.hpp"
#include "backends/cpu/radix_sort.hpp"
#include "backends/cpu/vector_sort.hpp"
#include "simd_support.hpp"

namespace {

using accelera::DType;
using accelera::backends::SortKey;

enum class Pattern { random_with_specials, few_distinct, all_equal, ascending, descending };

std::string name(Pattern p) {
  switch (p) {
    case Pattern::random_with_specials: return "random with specials";
    case Pattern::few_distinct: return "few distinct";
    case Pattern::all_equal: return "all equal";
    case Pattern::ascending: return "ascending";
    case Pattern::descending: return "descending";
  }
  return "?";
}

template <typename T>
T special(std::mt19937_64& rng) {
  if constexpr (std::is_floating_point_v<T>) {
    using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    constexpr U sign = U{1} << (sizeof(U) * 8 - 1);
    const U quiet_nan = std::bit_cast<U>(std::numeric_limits<T>::quiet_NaN());
    const U nans[] = {quiet_nan, quiet_nan | sign, quiet_nan | 1, quiet_nan | sign | 5};
    switch (rng() % 6) {
      case 0: return T{0};
      case 1: return -T{0};
      case 2: return std::numeric_limits<T>::infinity();
      case 3: return -std::numeric_limits<T>::infinity();
      default: return std::bit_cast<T>(nans[rng() % 4]);
    }
  } else {
    return rng() % 2 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
  }
}

template <typename T>
std::vector<T> make_row(std::int64_t n, Pattern pattern, std::mt19937_64& rng) {
  std::vector<T> x(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    T& e = x[static_cast<std::size_t>(i)];
    switch (pattern) {
      case Pattern::random_with_specials:
        if (rng() % 4 == 0) e = special<T>(rng);
        else if constexpr (std::is_floating_point_v<T>) e = static_cast<T>(std::normal_distribution<double>()(rng));
        else e = static_cast<T>(rng());
        break;
      case Pattern::few_distinct: e = static_cast<T>(static_cast<int>(rng() % 7) - 3); break;
      case Pattern::all_equal: e = T{1}; break;
      case Pattern::ascending: e = static_cast<T>(i / 3); break;
      case Pattern::descending: e = static_cast<T>(n - i / 3); break;
    }
  }
  return x;
}

template <DType dt, typename T>
void check_against_radix(std::int64_t n, int threads, Pattern pattern, bool descending) {
  using Traits = SortKey<dt>;
  using U = typename Traits::Bits;
  std::mt19937_64 rng(static_cast<std::uint64_t>(n) * 31 + static_cast<std::uint64_t>(threads));
  const std::vector<T> row = make_row<T>(n, pattern, rng);
  const U* x = reinterpret_cast<const U*>(row.data());
  const U flip = descending ? static_cast<U>(~U{0}) : U{0};
  const auto key = [](U b) { return Traits::key(b); };
  const auto size = static_cast<std::size_t>(n);
  std::vector<U> want_values(size), got_values(size, U{0x5A}), got_both_values(size, U{0x5A});
  std::vector<std::int64_t> want_at(size), got_at(size, -7), got_both_at(size, -7);
  accelera::cpu::radix_sort_row(x, n, want_values.data(), want_at.data(), flip, key, threads);
  accelera::cpu::vector_sort_row<Traits>(x, n, got_values.data(), nullptr, flip, threads);
  accelera::cpu::vector_sort_row<Traits>(x, n, nullptr, got_at.data(), flip, threads);
  accelera::cpu::vector_sort_row<Traits>(x, n, got_both_values.data(), got_both_at.data(), flip, threads);
  const std::string where = "n=" + std::to_string(n) + " threads=" + std::to_string(threads) + " " + name(pattern) +
                            (descending ? " descending" : " ascending");
  const auto first_difference = [](const auto& a, const auto& b) {
    return std::mismatch(a.begin(), a.end(), b.begin()).first - a.begin();
  };
  EXPECT_EQ(first_difference(want_values, got_values), n) << where << ": values (no positions)";
  EXPECT_EQ(first_difference(want_at, got_at), n) << where << ": positions";
  EXPECT_EQ(first_difference(want_values, got_both_values), n) << where << ": values (with positions)";
  EXPECT_EQ(first_difference(want_at, got_both_at), n) << where << ": positions (with values)";
}

template <DType dt, typename T>
void check_all() {
  const std::int64_t sizes[] = {25, 97, 1000, 65537};
  for (const Pattern p : {Pattern::random_with_specials, Pattern::few_distinct, Pattern::all_equal,
                          Pattern::ascending, Pattern::descending}) {
    for (const bool descending : {false, true}) {
      for (const std::int64_t n : sizes) check_against_radix<dt, T>(n, 1, p, descending);
      // Long rows: as many buckets as threads, and a row too short for all 5 threads (2 buckets).
      for (const int threads : {2, 3, 4, 5}) check_against_radix<dt, T>((1 << 16) * threads + 11, threads, p, descending);
      check_against_radix<dt, T>((1 << 17) + 11, 5, p, descending);
    }
  }
}

TEST(VectorSort, Float32SameAsRadixSort) { check_all<DType::f32, float>(); }
TEST(VectorSort, Float64SameAsRadixSort) { check_all<DType::f64, double>(); }
TEST(VectorSort, Int32SameAsRadixSort) { check_all<DType::i32, std::int32_t>(); }
TEST(VectorSort, Uint32SameAsRadixSort) { check_all<DType::u32, std::uint32_t>(); }
TEST(VectorSort, Uint64SameAsRadixSort) { check_all<DType::u64, std::uint64_t>(); }
TEST(VectorSort, Int64SameAsRadixSort) { check_all<DType::i64, std::int64_t>(); }

// The public argsort on every target the kernels may be restricted to (ACCELERA_CPU_TARGET): vqsort has no
// 128-bit keys on the scalar target, where 64-bit keys with positions aborted the process.
TEST(VectorSort, ArgsortOnEveryTarget) {
  acc_test::simd::for_each_target([](const std::string&) {
    for (const std::int64_t n : {1000, 200001}) {
      std::mt19937_64 rng(static_cast<std::uint64_t>(n));
      accelera::Tensor keys = accelera::Tensor::empty(accelera::Shape{n}, DType::i64);
      std::vector<std::int64_t> want(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        keys.data<std::int64_t>()[i] = static_cast<std::int64_t>(rng() % 1000) - 500;  // many ties
        want[static_cast<std::size_t>(i)] = i;
      }
      const std::int64_t* k = keys.data<std::int64_t>();
      std::stable_sort(want.begin(), want.end(), [k](std::int64_t a, std::int64_t b) { return k[a] < k[b]; });
      const accelera::Tensor got = accelera::argsort(keys, 0, false, true);
      ASSERT_TRUE(std::equal(want.begin(), want.end(), got.data<std::int64_t>())) << "n=" << n;
    }
  });
}

}  // namespace
