// searchsorted on CUDA: one binary search over the keys of Note [Sort keys] per value.
#include "backends/common/sort_keys.hpp"
#include "backends/cuda/common.cuh"
#include "backends/cuda/sort_launch.hpp"

namespace accelera::cuda::kernels {

namespace {

template <typename Traits>
__global__ void search(const typename Traits::Bits* sorted, std::int64_t n, const typename Traits::Bits* values,
                       std::int64_t m, std::int64_t* out, bool right) {
  for (std::int64_t i = first_index(); i < m; i += grid_stride()) {
    const auto k = Traits::key(values[i]);
    std::int64_t lo = 0, hi = n;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      const auto km = Traits::key(sorted[mid]);
      if (right ? km <= k : km < k) lo = mid + 1;
      else hi = mid;
    }
    out[i] = lo;
  }
}

}  // namespace

void searchsorted(DType dtype, const void* sorted, std::int64_t n, const void* values, std::int64_t m,
                  std::int64_t* out, bool right, Launch launch) {
  backends::with_sort_key(dtype, [&](auto traits) {
    using Traits = decltype(traits);
    using U = typename Traits::Bits;
    search<Traits><<<blocks_for(m, launch), kThreads, 0, launch.stream>>>(
        static_cast<const U*>(sorted), n, static_cast<const U*>(values), m, out, right);
    check_launch("searchsorted");
  });
}

}  // namespace accelera::cuda::kernels
