#pragma once
// Note [CPU vector sort]
// Rows of 32- and 64-bit keys (Note [Sort keys]) sort with Highway's vqsort, a vectorised quicksort that
// runs the widest instruction set of the running CPU (AVX-512, AVX2, NEON, SVE, ...): several times faster
// than the radix passes of Note [CPU radix sort], which keep the 8- and 16-bit keys (one or two passes).
// vqsort is not stable, and our sort is; stability comes back two ways:
//  - positions wanted: each key is packed with its position (key << 32 | i in a uint64 for 32-bit keys,
//    {key, i} in a uint128 for 64-bit ones). No two packed keys are equal, and their order is the stable one.
//  - elements only: the keys sort alone, in the output itself, and map back to their elements. Only where
//    unequal elements share a key (-0.0 and +0.0; NaNs of other signs or payloads) does that lose anything,
//    and then those runs are refilled from the input in its order.
// A long row is split among threads by one level of sample sort: splitters from a sorted sample of the
// keys cut the key range into one bucket per thread; one pass counts each thread's share of each bucket,
// a second moves the keys into their buckets, and the threads then sort the buckets independently. (Sorting
// chunks and merging them cost a third more here: the merge is a scalar pass as slow as the partition, and
// the chunks' sorts are no faster than the buckets'.) Buckets of packed keys are balanced whatever the
// data, since no two packed keys are equal; a key that fills much of a row unpacked lands in one bucket,
// which then sorts slower but correctly.
#include <hwy/contrib/sort/vqsort.h>
#include <hwy/targets.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace accelera::cpu {

namespace vector_sort_detail {

// One sorter per thread: it owns vqsort's buffer, so rows do not allocate it again.
inline const hwy::Sorter& thread_sorter() {
  thread_local const hwy::Sorter sorter;
  return sorter;
}

inline bool less(const hwy::uint128_t& a, const hwy::uint128_t& b) { return a < b; }
inline bool less(std::uint64_t a, std::uint64_t b) { return a < b; }
inline bool less(std::uint32_t a, std::uint32_t b) { return a < b; }

// Rows shorter than this per thread sort on one thread.
inline constexpr std::int64_t kElementsPerThread = std::int64_t{1} << 16;

inline int threads_for(std::int64_t n, int threads) {
  return std::max(1, static_cast<int>(std::min<std::int64_t>(threads, n / kElementsPerThread)));
}

// Splitters cutting keys into `buckets` ranges: bucket_of(k) is the number of splitters not above k.
template <typename K>
class Buckets {
 public:
  template <typename MakeKey>
  Buckets(std::int64_t n, int buckets, MakeKey&& make_key) {
    // 64 samples per bucket from a fixed pseudo-random sequence (evenly spaced ones would alias with
    // periodic data).
    const std::int64_t samples = std::min<std::int64_t>(n, 64 * std::int64_t{buckets});
    std::vector<K> sample(static_cast<std::size_t>(samples));
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    for (K& s : sample) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      // The high half of state * n: a position over the whole row, however long.
      const auto at = static_cast<std::int64_t>((static_cast<unsigned __int128>(state) * static_cast<std::uint64_t>(n)) >> 64);
      s = make_key(at);
    }
    std::sort(sample.begin(), sample.end(), [](const K& a, const K& b) { return less(a, b); });
    for (int b = 1; b < buckets; ++b) splitters_.push_back(sample[static_cast<std::size_t>(samples * b / buckets)]);
    while (top_ * 2 <= static_cast<std::int64_t>(splitters_.size())) top_ *= 2;
  }

  int count() const { return static_cast<int>(splitters_.size()) + 1; }
  const K& splitter(int i) const { return splitters_[static_cast<std::size_t>(i)]; }

  // A binary search without branches on the (random) comparisons.
  int bucket_of(const K& k) const {
    std::int64_t b = 0;
    const auto size = static_cast<std::int64_t>(splitters_.size());
    for (std::int64_t step = top_; step > 0; step /= 2) {
      const std::int64_t c = b + step;
      b = c <= size && !less(k, splitters_[static_cast<std::size_t>(c - 1)]) ? c : b;
    }
    return static_cast<int>(b);
  }

 private:
  std::vector<K> splitters_;
  std::int64_t top_ = 1;
};

// Sorts the keys make_key(0 .. n) into buf[0, n) with up to `threads` threads, then passes each in order to
// emit(position, key) (from the thread that sorted it).
template <typename K, typename MakeKey, typename Emit>
void sort_keys(std::int64_t n, int threads, K* buf, MakeKey&& make_key, Emit&& emit) {
  const auto sort_range = [&](std::int64_t begin, std::int64_t end) {
    thread_sorter()(buf + begin, static_cast<std::size_t>(end - begin), hwy::SortAscending());
    for (std::int64_t i = begin; i < end; ++i) emit(i, buf[i]);
  };
  const int t_count = threads_for(n, threads);
  if (t_count == 1) {
    for (std::int64_t i = 0; i < n; ++i) buf[i] = make_key(i);
    return sort_range(0, n);
  }
  const Buckets<K> buckets(n, t_count, make_key);
  const int b_count = buckets.count();
  // next[t][b]: where thread t's next key of bucket b goes; starts[b]: where bucket b starts.
  std::vector<std::vector<std::int64_t>> next(static_cast<std::size_t>(t_count),
                                              std::vector<std::int64_t>(static_cast<std::size_t>(b_count), 0));
  std::vector<std::int64_t> starts(static_cast<std::size_t>(b_count) + 1, 0);
  const auto chunk_begin = [&](int t) { return n * t / t_count; };
#pragma omp parallel for num_threads(t_count) schedule(static)
  for (int t = 0; t < t_count; ++t) {
    auto& counts = next[static_cast<std::size_t>(t)];
    const std::int64_t begin = chunk_begin(t), end = chunk_begin(t + 1);
    if (b_count == 2) {  // a sum of comparisons, which vectorises
      const K splitter = buckets.splitter(0);
      std::int64_t high = 0;
      for (std::int64_t i = begin; i < end; ++i) high += !less(make_key(i), splitter);
      counts = {end - begin - high, high};
    } else {
      for (std::int64_t i = begin; i < end; ++i) ++counts[static_cast<std::size_t>(buckets.bucket_of(make_key(i)))];
    }
  }
  std::int64_t offset = 0;
  for (int b = 0; b < b_count; ++b) {
    starts[static_cast<std::size_t>(b)] = offset;
    for (auto& counts : next) offset += std::exchange(counts[static_cast<std::size_t>(b)], offset);
  }
  starts.back() = n;
#pragma omp parallel for num_threads(t_count) schedule(static)
  for (int t = 0; t < t_count; ++t) {
    auto& slot = next[static_cast<std::size_t>(t)];
    const std::int64_t begin = chunk_begin(t), end = chunk_begin(t + 1);
    if (b_count == 2) {  // both positions in registers, chosen without a branch
      const K splitter = buckets.splitter(0);
      std::int64_t low = slot[0], high = slot[1];
      for (std::int64_t i = begin; i < end; ++i) {
        const K k = make_key(i);
        const std::int64_t is_high = !less(k, splitter);
        buf[low + ((high - low) & -is_high)] = k;  // a select written as arithmetic: compilers branch on `?:`
        high += is_high;
        low += 1 - is_high;
      }
    } else {
      for (std::int64_t i = begin; i < end; ++i) {
        const K k = make_key(i);
        buf[slot[static_cast<std::size_t>(buckets.bucket_of(k))]++] = k;
      }
    }
  }
#pragma omp parallel for num_threads(t_count) schedule(dynamic, 1)
  for (int b = 0; b < b_count; ++b) sort_range(starts[static_cast<std::size_t>(b)], starts[static_cast<std::size_t>(b) + 1]);
}

// The keys that several elements share: those of the zeros and of the NaNs.
template <typename U>
inline constexpr U kZeroKey = static_cast<U>(U{1} << (sizeof(U) * 8 - 1));
template <typename U>
inline constexpr U kNanKey = static_cast<U>(~U{0});

// Refills the run of sorted output that holds `key` (ascending by key ^ flip) with the input's elements of
// that key, in input order (Note [CPU vector sort]: elements that share a key).
template <typename Traits, typename U>
void refill_shared_key(const U* x, std::int64_t n, U* values, U flip, U key) {
  const U target = static_cast<U>(key ^ flip);
  const auto order = [flip](U element) { return static_cast<U>(Traits::key(element) ^ flip); };
  U* run = std::lower_bound(values, values + n, target, [&](U element, U t) { return order(element) < t; });
  const std::int64_t length =
      std::upper_bound(run, values + n, target, [&](U t, U element) { return t < order(element); }) - run;
  // Every element is written to the next slot, which only moves on past one of the key: no branch, and
  // no write beyond the run, since the loop stops once the run is full.
  std::int64_t filled = 0;
  for (std::int64_t i = 0; filled < length; ++i) {
    run[filled] = x[i];
    filled += Traits::key(x[i]) == key;
  }
}

// Which shared keys (Note [CPU vector sort]) need their runs refilled: whether x[0, n) holds a -0.0, and
// whether it holds a NaN other than the one Traits::element gives. Selects of one width and no call of
// Traits::key, so that the loop vectorises.
template <typename Traits, typename U>
std::pair<bool, bool> shared_keys_to_refill(const U* __restrict x, std::int64_t n) {
  constexpr U nan = Traits::element(kNanKey<U>);
  U zeros = 0, nans = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const U b = x[i];
    zeros |= b == kZeroKey<U> ? U{1} : U{0};  // -0.0 has the zero key's bits
    nans |= (Traits::is_nan(b) & (b != nan)) ? U{1} : U{0};
  }
  return {zeros != 0, nans != 0};
}

template <typename Traits, typename U>
void sort_elements(const U* x, std::int64_t n, U* values, U flip, int threads) {
  // The lambdas capture by value: a captured reference could alias the keys they write, and their loops
  // would not vectorise.
  sort_keys(
      n, threads, values, [x, flip](std::int64_t i) { return static_cast<U>(Traits::key(x[i]) ^ flip); },
      [values, flip](std::int64_t at, U k) { values[at] = Traits::element(static_cast<U>(k ^ flip)); });
  if constexpr (Traits::kSharedKeys) {
    const auto [zeros, nans] = shared_keys_to_refill<Traits>(x, n);
    if (zeros) refill_shared_key<Traits>(x, n, values, flip, kZeroKey<U>);
    if (nans) refill_shared_key<Traits>(x, n, values, flip, kNanKey<U>);
  }
}

// Packs each key with its position so that the packed keys order as a stable sort does.
template <typename U>
struct Packed;
template <>
struct Packed<std::uint32_t> {
  using Type = std::uint64_t;
  static Type pack(std::uint32_t key, std::int64_t i) { return (std::uint64_t{key} << 32) | static_cast<std::uint64_t>(i); }
  static std::int64_t position(Type p) { return static_cast<std::int64_t>(p & 0xFFFFFFFFu); }
};
template <>
struct Packed<std::uint64_t> {
  using Type = hwy::uint128_t;
  static Type pack(std::uint64_t key, std::int64_t i) { return {static_cast<std::uint64_t>(i), key}; }
  static std::int64_t position(const Type& p) { return static_cast<std::int64_t>(p.lo); }
};

template <typename Traits, typename U>
void sort_positions(const U* x, std::int64_t n, U* values, std::int64_t* indices, U flip, int threads) {
  using P = Packed<U>;
  using K = typename P::Type;
  std::unique_ptr<K[]> packed = std::make_unique_for_overwrite<K[]>(static_cast<std::size_t>(n));
  sort_keys(
      n, threads, packed.get(), [x, flip](std::int64_t i) { return P::pack(static_cast<U>(Traits::key(x[i]) ^ flip), i); },
      [x, values, indices](std::int64_t at, const K& k) {
        const std::int64_t i = P::position(k);
        indices[at] = i;
        if (values) values[at] = x[i];
      });
}

}  // namespace vector_sort_detail

// Whether vqsort runs a vector target now. On Highway's scalar target it has no 128-bit keys (it asserts,
// which aborts the process), so where the CPU, or ACCELERA_CPU_TARGET=scalar, leaves only that target,
// 64-bit keys with positions take the radix sort.
inline bool vqsort_has_vector_target() {
  return (hwy::SupportedTargets() & ~static_cast<std::int64_t>(HWY_SCALAR | HWY_EMU128)) != 0;
}

// Whether vector_sort_row sorts rows of n elements of type U (else the radix sort does).
template <typename U>
bool vector_sort_applies(std::int64_t n, bool positions) {
  if constexpr (sizeof(U) == 4) {
    return !positions || n <= std::numeric_limits<std::uint32_t>::max();  // positions fit the low half
  } else {
    return sizeof(U) == 8 && (!positions || vqsort_has_vector_target());
  }
}

// Sorts x[0, n) stably by Traits::key(x[i]) ^ flip, as radix_sort_row does (same outputs, bit for bit).
template <typename Traits, typename U = typename Traits::Bits>
void vector_sort_row(const U* x, std::int64_t n, std::type_identity_t<U>* values, std::int64_t* indices,
                     std::type_identity_t<U> flip, int threads) {
  if (indices) vector_sort_detail::sort_positions<Traits>(x, n, values, indices, flip, threads);
  else vector_sort_detail::sort_elements<Traits>(x, n, values, flip, threads);
}

}  // namespace accelera::cpu
