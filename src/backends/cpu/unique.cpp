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

template <typename Traits, typename U>
bool starts_group(const U* s, std::int64_t i) {
  return i == 0 || Traits::key(s[i]) != Traits::key(s[i - 1]) || Traits::is_nan(s[i]);
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
#pragma omp parallel for num_threads(chunks) schedule(static) if (chunks > 1)
    for (int c = 0; c < chunks; ++c) {
      std::int64_t count = 0;
      for (std::int64_t i = begin(c); i < begin(c + 1); ++i) count += starts_group<Traits>(s, i);
      starts[static_cast<std::size_t>(c) + 1] = count;
    }
    for (int c = 0; c < chunks; ++c) starts[c + 1] += starts[c];
#pragma omp parallel for num_threads(chunks) schedule(static) if (chunks > 1)
    for (int c = 0; c < chunks; ++c) {
      std::int64_t id = starts[static_cast<std::size_t>(c)] - 1;
      for (std::int64_t i = begin(c); i < begin(c + 1); ++i) g[i] = id += starts_group<Traits>(s, i);
    }
    return starts.back();
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
    bnd[0] = 0;
#pragma omp parallel for schedule(static) if (n >= backends::kParallelGrain)
    for (std::int64_t i = 0; i < n; ++i) {
      if (i == 0 || g[i] != g[i - 1]) {
        val[g[i]] = s[i];
        if (fst) fst[g[i]] = ord[i];
      }
      if (i == n - 1 || g[i] != g[i + 1]) bnd[g[i] + 1] = i + 1;
      if (inv) inv[ord[i]] = g[i];
    }
  });
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::unique_groups, DeviceKind::cpu, dtypes::all, &unique_groups_kernel);
  register_kernel(op::unique_scatter, DeviceKind::cpu, dtypes::all, &unique_scatter_kernel);
}

}  // namespace accelera::cpu
