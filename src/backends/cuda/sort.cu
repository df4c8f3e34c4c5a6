// sort and argsort on CUDA: keys (Note [Sort keys]) and positions are made by one kernel, sorted per row by
// CUB's segmented stable radix sort, and the values gathered from x by position (so NaN payloads and signed
// zeros are kept).
#include <cub/device/device_segmented_sort.cuh>

#include "backends/common/sort_keys.hpp"
#include "backends/cuda/common.cuh"
#include "backends/cuda/sort_launch.hpp"

namespace accelera::cuda::kernels {

namespace {

// CUB's radix sort takes the fundamental unsigned types.
template <typename U>
using CubKey = std::conditional_t<sizeof(U) == 8, unsigned long long, U>;

constexpr std::size_t align_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

template <typename Traits, typename K>
__global__ void make_pairs(const typename Traits::Bits* x, std::int64_t rows, std::int64_t n, K flip, K* keys,
                           std::int64_t* at, std::int64_t* offsets) {
  for (std::int64_t g = first_index(); g < rows * n; g += grid_stride()) {
    keys[g] = static_cast<K>(static_cast<K>(Traits::key(x[g])) ^ flip);
    at[g] = g % n;
  }
  for (std::int64_t r = first_index(); r <= rows; r += grid_stride()) offsets[r] = r * n;
}

template <typename U>
__global__ void finish(const U* x, std::int64_t rows, std::int64_t n, const std::int64_t* at, U* values,
                       std::int64_t* indices) {
  for (std::int64_t g = first_index(); g < rows * n; g += grid_stride()) {
    const std::int64_t from = at[g];
    if (values) values[g] = x[g - g % n + from];
    if (indices) indices[g] = from;
  }
}

struct Carved {
  void *keys_in, *keys_out;
  std::int64_t *at_in, *at_out, *offsets;
  void* cub;
  std::size_t cub_bytes;
};

template <typename K>
Carved carve(void* scratch, std::size_t total, std::int64_t rows, std::int64_t n) {
  auto* p = static_cast<char*>(scratch);
  const std::size_t count = static_cast<std::size_t>(rows * n);
  Carved c{};
  c.keys_in = p, p += align_up(count * sizeof(K));
  c.keys_out = p, p += align_up(count * sizeof(K));
  c.at_in = reinterpret_cast<std::int64_t*>(p), p += align_up(count * 8);
  c.at_out = reinterpret_cast<std::int64_t*>(p), p += align_up(count * 8);
  c.offsets = reinterpret_cast<std::int64_t*>(p), p += align_up(static_cast<std::size_t>(rows + 1) * 8);
  c.cub = p;
  c.cub_bytes = total - static_cast<std::size_t>(p - static_cast<char*>(scratch));
  return c;
}

template <typename K>
std::size_t cub_bytes(std::int64_t rows, std::int64_t n) {
  std::size_t bytes = 0;
  check_status(cub::DeviceSegmentedSort::StableSortPairs(nullptr, bytes, static_cast<const K*>(nullptr),
                                                         static_cast<K*>(nullptr),
                                                         static_cast<const std::int64_t*>(nullptr),
                                                         static_cast<std::int64_t*>(nullptr), rows * n, rows,
                                                         static_cast<const std::int64_t*>(nullptr),
                                                         static_cast<const std::int64_t*>(nullptr)),
               "sizing cub::DeviceSegmentedSort::StableSortPairs");
  return bytes;
}

template <typename Traits>
std::size_t scratch_for(std::int64_t rows, std::int64_t n) {
  using K = CubKey<typename Traits::Bits>;
  const std::size_t count = static_cast<std::size_t>(rows * n);
  return 2 * align_up(count * sizeof(K)) + 2 * align_up(count * 8) + align_up(static_cast<std::size_t>(rows + 1) * 8) +
         cub_bytes<K>(rows, n);
}

template <typename Traits>
void sort_rows(const void* x, std::int64_t rows, std::int64_t n, void* values, std::int64_t* indices,
               bool descending, void* scratch, std::size_t scratch_bytes, Launch launch) {
  using U = typename Traits::Bits;
  using K = CubKey<U>;
  const Carved c = carve<K>(scratch, scratch_bytes, rows, n);
  const K flip = descending ? static_cast<K>(static_cast<U>(~U{0})) : K{0};
  make_pairs<Traits, K><<<blocks_for(rows * n, launch), kThreads, 0, launch.stream>>>(
      static_cast<const U*>(x), rows, n, flip, static_cast<K*>(c.keys_in), c.at_in, c.offsets);
  check_launch("make_pairs");
  std::size_t bytes = c.cub_bytes;
  check_status(cub::DeviceSegmentedSort::StableSortPairs(c.cub, bytes, static_cast<const K*>(c.keys_in),
                                                         static_cast<K*>(c.keys_out), c.at_in, c.at_out, rows * n, rows,
                                                         c.offsets, c.offsets + 1, launch.stream),
               "cub::DeviceSegmentedSort::StableSortPairs");
  finish<U><<<blocks_for(rows * n, launch), kThreads, 0, launch.stream>>>(static_cast<const U*>(x), rows, n, c.at_out,
                                                                          static_cast<U*>(values), indices);
  check_launch("finish");
}

}  // namespace

std::size_t sort_scratch_bytes(DType dtype, std::int64_t rows, std::int64_t n) {
  return backends::with_sort_key(dtype, [&](auto traits) { return scratch_for<decltype(traits)>(rows, n); });
}

void sort(DType dtype, const void* x, std::int64_t rows, std::int64_t n, void* values, std::int64_t* indices,
          bool descending, void* scratch, std::size_t scratch_bytes, Launch launch) {
  backends::with_sort_key(dtype, [&](auto traits) {
    sort_rows<decltype(traits)>(x, rows, n, values, indices, descending, scratch, scratch_bytes, launch);
  });
}

}  // namespace accelera::cuda::kernels
