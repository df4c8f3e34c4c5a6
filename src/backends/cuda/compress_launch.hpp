#pragma once
// Host entry points of the CUDA compaction kernels (compress.cu; Note [Compaction] in ops/compress.hpp).
#include <cstddef>
#include <cstdint>

#include "backends/cuda/launch.hpp"

namespace accelera::cuda::kernels {

// counts[c] = the number of nonzero bytes of mask[c*chunk, min(n, (c+1)*chunk)), for every chunk c.
void mask_counts(std::int64_t n, std::int64_t chunk, const std::uint8_t* mask, std::int64_t* counts, Launch launch);

// Chunk c writes its kept elements of x (`itemsize`-byte words; their int64 flat positions when x is
// null) to out[offsets[c] : offsets[c + 1]], in order. False, launching nothing, for another item size.
bool compress(std::int64_t n, std::int64_t chunk, const void* x, std::size_t itemsize, const std::uint8_t* mask,
              const std::int64_t* offsets, void* out, Launch launch);

}  // namespace accelera::cuda::kernels
