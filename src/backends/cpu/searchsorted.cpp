// searchsorted on the CPU: a binary search over the keys (Note [Sort keys] in ops/sort.hpp) per value.
//
// The search is branchless and runs for a block of values at once: the interval a search narrows has the
// same length in every search of the sorted array (only where it starts differs), so one loop over the
// halvings serves the whole block and the block's loads are independent of each other. A branchy search
// of one value at a time waits on a load and a mispredicted branch per halving (22 ns a value for 1000
// keys); the block keeps several loads in flight.
#include <algorithm>

#include "backends/common/strided_loop.hpp"
#include "backends/common/sort_keys.hpp"
#include "ops/sort.hpp"

namespace accelera::cpu {

namespace {

using backends::with_sort_key;

constexpr std::int64_t kSearchBlock = 16;

// Writes to out[0..count) the number of sorted keys before each value's key: those less than it, or with
// `right`, those at most it.
template <typename Traits, bool right, typename U>
void search_block(const U* sorted, std::int64_t n, const U* values, std::int64_t count, std::int64_t* out) {
  U key[kSearchBlock];
  std::int64_t start[kSearchBlock];
  for (std::int64_t j = 0; j < count; ++j) {
    key[j] = Traits::key(values[j]);
    start[j] = 0;
  }
  auto before = [](U sorted_key, U value_key) { return right ? sorted_key <= value_key : sorted_key < value_key; };
  // Invariant: the answer lies in [start, start + length].
  for (std::int64_t length = n; length > 1; length -= length / 2) {
    const std::int64_t half = length / 2;
    for (std::int64_t j = 0; j < count; ++j)
      start[j] += before(Traits::key(sorted[start[j] + half - 1]), key[j]) ? half : 0;
  }
  for (std::int64_t j = 0; j < count; ++j)
    out[j] = start[j] + (n > 0 && before(Traits::key(sorted[start[j]]), key[j]) ? 1 : 0);
}

void searchsorted_kernel(const Tensor& sorted, const Tensor& values, const Tensor& out, bool right) {
  with_sort_key(sorted.dtype(), [&](auto traits) {
    using Traits = decltype(traits);
    using U = typename Traits::Bits;
    const U* s = static_cast<const U*>(sorted.data_ptr());
    const U* v = static_cast<const U*>(values.data_ptr());
    std::int64_t* o = out.data<std::int64_t>();
    const std::int64_t n = sorted.numel(), m = values.numel();
    const std::int64_t blocks = (m + kSearchBlock - 1) / kSearchBlock;
#pragma omp parallel for schedule(static) if (m * 16 >= backends::kParallelGrain)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::int64_t first = b * kSearchBlock, count = std::min(kSearchBlock, m - first);
      if (right) search_block<Traits, true>(s, n, v + first, count, o + first);
      else search_block<Traits, false>(s, n, v + first, count, o + first);
    }
  });
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::searchsorted, DeviceKind::cpu, dtypes::all, &searchsorted_kernel); }

}  // namespace accelera::cpu
