// searchsorted on the CPU: one binary search over the keys (Note [Sort keys] in ops/sort.hpp) per value.
#include "backends/common/strided_loop.hpp"
#include "backends/common/sort_keys.hpp"
#include "ops/sort.hpp"

namespace accelera::cpu {

namespace {

using backends::with_sort_key;

void searchsorted_kernel(const Tensor& sorted, const Tensor& values, const Tensor& out, bool right) {
  with_sort_key(sorted.dtype(), [&](auto traits) {
    using U = typename decltype(traits)::Bits;
    const U* s = static_cast<const U*>(sorted.data_ptr());
    const U* v = static_cast<const U*>(values.data_ptr());
    std::int64_t* o = out.data<std::int64_t>();
    const std::int64_t n = sorted.numel(), m = values.numel();
#pragma omp parallel for schedule(static) if (m * 16 >= backends::kParallelGrain)
    for (std::int64_t i = 0; i < m; ++i) {
      const U k = decltype(traits)::key(v[i]);
      std::int64_t lo = 0, hi = n;  // the answer is in [lo, hi]
      while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        const U km = decltype(traits)::key(s[mid]);
        if (right ? km <= k : km < k) lo = mid + 1;
        else hi = mid;
      }
      o[i] = lo;
    }
  });
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::searchsorted, DeviceKind::cpu, dtypes::all, &searchsorted_kernel); }

}  // namespace accelera::cpu
