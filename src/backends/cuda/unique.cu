// The group kernels of unique_* on CUDA (Note [Unique by groups] in src/ops/unique.hpp): start flags, a CUB
// inclusive scan, and one scatter per element.
#include <cub/device/device_scan.cuh>

#include "backends/common/sort_keys.hpp"
#include "backends/cuda/common.cuh"
#include "backends/cuda/sort_launch.hpp"

namespace accelera::cuda::kernels {

namespace {

// flags[i] = 1 where element i > 0 starts a group; flags[0] = 0, so the inclusive scan numbers groups from 0.
template <typename Traits>
__global__ void start_flags(const typename Traits::Bits* s, std::int64_t n, std::int64_t* flags) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    flags[i] = i > 0 && (Traits::key(s[i]) != Traits::key(s[i - 1]) || Traits::is_nan(s[i]));
  }
}

template <typename U>
__global__ void scatter(const U* sorted, const std::int64_t* order, const std::int64_t* group, std::int64_t n,
                        U* values, std::int64_t* first, std::int64_t* bounds, std::int64_t* inverse) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const std::int64_t g = group[i];
    if (i == 0) bounds[0] = 0;
    if (i == 0 || group[i - 1] != g) {
      values[g] = sorted[i];
      if (first) first[g] = order[i];
    }
    if (i == n - 1 || group[i + 1] != g) bounds[g + 1] = i + 1;
    if (inverse) inverse[order[i]] = g;
  }
}

}  // namespace

std::size_t unique_groups_scratch_bytes(std::int64_t n) {
  std::size_t bytes = 0;
  check_status(cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<const std::int64_t*>(nullptr),
                                             static_cast<std::int64_t*>(nullptr), n),
               "sizing cub::DeviceScan::InclusiveSum");
  return (static_cast<std::size_t>(n) * 8 + 255) / 256 * 256 + bytes;
}

void unique_groups(DType dtype, const void* sorted, std::int64_t n, std::int64_t* group, void* scratch,
                   std::size_t scratch_bytes, Launch launch) {
  auto* flags = static_cast<std::int64_t*>(scratch);
  const std::size_t flag_bytes = (static_cast<std::size_t>(n) * 8 + 255) / 256 * 256;
  void* cub_scratch = static_cast<char*>(scratch) + flag_bytes;
  std::size_t cub_bytes = scratch_bytes - flag_bytes;
  backends::with_sort_key(dtype, [&](auto traits) {
    using Traits = decltype(traits);
    start_flags<Traits><<<blocks_for(n, launch), kThreads, 0, launch.stream>>>(
        static_cast<const typename Traits::Bits*>(sorted), n, flags);
    check_launch("start_flags");
  });
  check_status(cub::DeviceScan::InclusiveSum(cub_scratch, cub_bytes, static_cast<const std::int64_t*>(flags), group, n,
                                             launch.stream),
               "cub::DeviceScan::InclusiveSum");
}

void unique_scatter(DType dtype, const void* sorted, const std::int64_t* order, const std::int64_t* group,
                    std::int64_t n, void* values, std::int64_t* first, std::int64_t* bounds, std::int64_t* inverse,
                    Launch launch) {
  backends::with_sort_key(dtype, [&](auto traits) {
    using U = typename decltype(traits)::Bits;
    scatter<U><<<blocks_for(n, launch), kThreads, 0, launch.stream>>>(static_cast<const U*>(sorted), order, group, n,
                                                                      static_cast<U*>(values), first, bounds, inverse);
    check_launch("unique_scatter");
  });
}

}  // namespace accelera::cuda::kernels
