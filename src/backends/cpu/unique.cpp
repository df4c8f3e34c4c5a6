// The group kernels of the unique_* functions on the CPU (Note [Unique by groups] in ops/unique.hpp): a
// two-pass parallel scan of the group starts, then one parallel scatter.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "backends/common/strided_loop.hpp"
#include "backends/common/sort_keys.hpp"
#include "ops/unique.hpp"

namespace accelera::cpu {

namespace {

using backends::with_sort_key;

// 1 where s[i] starts a group (i > 0), else 0: a select of the elements' width, so that loops of it vectorise.
template <typename Traits, typename U>
U starts_group(const U* s, std::int64_t i) {
  return ((Traits::key(s[i]) != Traits::key(s[i - 1])) | Traits::is_nan(s[i])) ? U{1} : U{0};
}

// The number of group starts among s[begin, end), begin >= 1. Counted in blocks in the elements' own width
// (a block's count fits even in 8 bits) so that the loop vectorises.
template <typename Traits, typename U>
std::int64_t count_starts(const U* __restrict s, std::int64_t begin, std::int64_t end) {
  constexpr std::int64_t kBlock = 255;
  std::int64_t count = 0;
  for (std::int64_t b = begin; b < end; b += kBlock) {
    U block = 0;
    const std::int64_t block_end = std::min(end, b + kBlock);
    for (std::int64_t i = b; i < block_end; ++i) block = static_cast<U>(block + starts_group<Traits>(s, i));
    count += block;
  }
  return count;
}

std::int64_t unique_groups_kernel(const Tensor& sorted, const Tensor& group) {
  return with_sort_key(sorted.dtype(), [&](auto traits) -> std::int64_t {
    using Traits = decltype(traits);
    using U = typename Traits::Bits;
    const U* s = static_cast<const U*>(sorted.data_ptr());
    std::int64_t* g = group.data<std::int64_t>();
    const std::int64_t n = sorted.numel();
    const int chunks = n < backends::kParallelGrain || omp_in_parallel() ? 1 : omp_get_max_threads();
    std::vector<std::int64_t> starts(static_cast<std::size_t>(chunks) + 1, 0);
    const auto begin = [&](int c) { return n * c / chunks; };
    // Element 0 starts group 0; the chunks count the starts after it.
#pragma omp parallel for num_threads(chunks) schedule(static) if (chunks > 1)
    for (int c = 0; c < chunks; ++c) {
      starts[static_cast<std::size_t>(c) + 1] = count_starts<Traits>(s, std::max<std::int64_t>(begin(c), 1), begin(c + 1));
    }
    for (int c = 0; c < chunks; ++c) starts[c + 1] += starts[c];
    g[0] = 0;
#pragma omp parallel for num_threads(chunks) schedule(static) if (chunks > 1)
    for (int c = 0; c < chunks; ++c) {
      std::int64_t id = starts[static_cast<std::size_t>(c)];
      // In blocks: the starts first (a vectorised loop), then their running sum.
      constexpr std::int64_t kBlock = 256;
      U flags[kBlock];
      for (std::int64_t b = std::max<std::int64_t>(begin(c), 1); b < begin(c + 1); b += kBlock) {
        const std::int64_t len = std::min(kBlock, begin(c + 1) - b);
        for (std::int64_t j = 0; j < len; ++j) flags[j] = starts_group<Traits>(s, b + j);
        for (std::int64_t j = 0; j < len; ++j) g[b + j] = id += flags[j];
      }
    }
    return starts.back() + 1;
  });
}

void unique_scatter_kernel(const Tensor& sorted, const Tensor& order, const Tensor& group, const Tensor& values,
                           const Tensor& first, const Tensor& bounds, const Tensor& inverse) {
  with_sort_key(sorted.dtype(), [&](auto traits) {
    using U = typename decltype(traits)::Bits;
    const U* s = static_cast<const U*>(sorted.data_ptr());
    const std::int64_t* ord = order.defined() ? order.data<std::int64_t>() : nullptr;
    const std::int64_t* g = group.data<std::int64_t>();
    U* val = static_cast<U*>(values.data_ptr());
    std::int64_t* fst = first.defined() ? first.data<std::int64_t>() : nullptr;
    std::int64_t* bnd = bounds.data<std::int64_t>();
    std::int64_t* inv = inverse.defined() ? inverse.data<std::int64_t>() : nullptr;
    const std::int64_t n = sorted.numel();
    // A group's bound is where it starts (bounds[g + 1], one past the end of g, is where g + 1 starts), so
    // only the starts write, one test per element.
    bnd[g[n - 1] + 1] = n;
#pragma omp parallel for schedule(static) if (n >= backends::kParallelGrain)
    for (std::int64_t i = 0; i < n; ++i) {
      if (i == 0 || g[i] != g[i - 1]) {
        val[g[i]] = s[i];
        bnd[g[i]] = i;
        if (fst) fst[g[i]] = ord[i];
      }
    }
    if (inv) {
#pragma omp parallel for schedule(static) if (n >= backends::kParallelGrain)
      for (std::int64_t i = 0; i < n; ++i) inv[ord[i]] = g[i];
    }
  });
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::unique_groups, DeviceKind::cpu, dtypes::all, &unique_groups_kernel);
  register_kernel(op::unique_scatter, DeviceKind::cpu, dtypes::all, &unique_scatter_kernel);
}

}  // namespace accelera::cpu
