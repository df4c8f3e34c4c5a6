#pragma once
// Note [Compaction]
// x[mask] (a bool mask over all of x's axes) and nonzero keep the elements of x, or the flat positions,
// where the mask holds, in row-major order. The mask is cut into chunks of `chunk` elements; mask_counts
// counts the true elements of each chunk; an exclusive cumulative sum of the counts gives each chunk's
// first slot in the output and the total (the one value read back to the host, which sizes the output);
// compress then writes each chunk's kept elements from its slot on. So the data is read once and the
// output written once, with no index array in between (nonzero used to scan an int64 flag per element,
// eight bytes written and read back per element of x). CPUs take a few long chunks per thread, each
// compacted by one thread; GPUs a work-group per chunk (compaction_chunk).
#include <cstdint>

#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera {

// mask: contiguous bool (n >= 1); counts: contiguous int64, one per chunk (ceil(n / chunk)).
using MaskCountsKernel = void(const Tensor& mask, std::int64_t chunk, const Tensor& counts);
// x: contiguous with the mask's element count, or undefined: out then gets the flat positions (int64);
// offsets: contiguous int64, one per chunk and one more: chunk c fills out[offsets[c] : offsets[c + 1]];
// out: contiguous 1-d, as many elements as the mask holds. Elements move by size, so backends register
// every dtype.
using CompressKernel = void(const Tensor& x, const Tensor& mask, std::int64_t chunk, const Tensor& offsets,
                            const Tensor& out);

namespace op {
inline constexpr OpSchema<MaskCountsKernel> mask_counts{"mask_counts"};
inline constexpr OpSchema<CompressKernel> compress{"compress"};
}  // namespace op

// The chunk length for n elements on `device`: several chunks per core on CPUs and CPU-like devices
// (long enough that a chunk's fixed costs vanish), 4096 (a work-group's worth) on GPUs.
std::int64_t compaction_chunk(const Device& device, std::int64_t n);

}  // namespace accelera
