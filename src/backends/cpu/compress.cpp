// Compaction on the CPU (Note [Compaction] in ops/compress.hpp): a thread counts, then compacts, whole
// chunks. Elements move by size, so one instantiation serves every dtype of that size.
#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "accelera/core/error.hpp"
#include "ops/compress.hpp"

namespace accelera::cpu {

namespace {

// Chunks run in parallel when there are several (the op makes them long enough to pay for a thread).
bool in_parallel(std::int64_t chunks) { return chunks > 1 && !omp_in_parallel(); }

void mask_counts_kernel(const Tensor& mask, std::int64_t chunk, const Tensor& counts) {
  // Bool elements are bytes holding 0 or 1: summed as such, which vectorises.
  const auto* m = static_cast<const std::uint8_t*>(mask.data_ptr());
  std::int64_t* c = counts.data<std::int64_t>();
  const std::int64_t n = mask.numel(), chunks = counts.numel();
#pragma omp parallel for schedule(static) if (in_parallel(chunks))
  for (std::int64_t k = 0; k < chunks; ++k) {
    const std::int64_t begin = k * chunk, end = std::min(n, begin + chunk);
    std::int64_t total = 0;
    // Blocks of at most 255 bytes fit an 8-bit sum per lane.
    for (std::int64_t b = begin; b < end; b += 255) {
      const std::int64_t block_end = std::min(end, b + 255);
      std::uint8_t block = 0;
      for (std::int64_t i = b; i < block_end; ++i) block = static_cast<std::uint8_t>(block + m[i]);
      total += block;
    }
    c[k] = total;
  }
}

// out[slot++] = value(i) for each i of a chunk where the mask holds, as a store per element and an advance
// by the flag, never a branch (a random mask would mispredict every other element). A dropped element's
// store lands on the slot the next kept one takes; it stays inside the chunk's own slots because the loop
// ends as soon as they are all filled.
template <typename Value, typename Out>
void compact_chunks(const std::uint8_t* m, std::int64_t n, std::int64_t chunk, const std::int64_t* offsets,
                    Out* out, Value value) {
  const std::int64_t chunks = (n + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) if (in_parallel(chunks))
  for (std::int64_t k = 0; k < chunks; ++k) {
    const std::int64_t begin = k * chunk, end = std::min(n, begin + chunk);
    const std::int64_t last = offsets[k + 1];  // one past the chunk's slots
    std::int64_t slot = offsets[k];
    for (std::int64_t i = begin; i < end && slot < last; ++i) {
      out[slot] = value(i);
      slot += m[i];
    }
  }
}

template <typename Bits>
void compress_values(const Tensor& x, const std::uint8_t* m, std::int64_t n, std::int64_t chunk,
                     const std::int64_t* offsets, const Tensor& out) {
  const auto* v = static_cast<const Bits*>(x.data_ptr());
  compact_chunks(m, n, chunk, offsets, static_cast<Bits*>(out.data_ptr()), [v](std::int64_t i) { return v[i]; });
}

void compress_kernel(const Tensor& x, const Tensor& mask, std::int64_t chunk, const Tensor& offsets,
                     const Tensor& out) {
  const auto* m = static_cast<const std::uint8_t*>(mask.data_ptr());
  const std::int64_t n = mask.numel();
  const std::int64_t* o = offsets.data<std::int64_t>();
  if (!x.defined()) {
    return compact_chunks(m, n, chunk, o, out.data<std::int64_t>(), [](std::int64_t i) { return i; });
  }
  switch (out.itemsize()) {
    case 1: return compress_values<std::uint8_t>(x, m, n, chunk, o, out);
    case 2: return compress_values<std::uint16_t>(x, m, n, chunk, o, out);
    case 4: return compress_values<std::uint32_t>(x, m, n, chunk, o, out);
    case 8: return compress_values<std::uint64_t>(x, m, n, chunk, o, out);
    default: break;
  }
  ACC_ASSERT(false, "the cpu compress kernel was called for {}-byte elements", out.itemsize());
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::mask_counts, DeviceKind::cpu, DTypeSet{DType::boolean}, &mask_counts_kernel);
  register_kernel(op::compress, DeviceKind::cpu, dtypes::all, &compress_kernel);
}

}  // namespace accelera::cpu
