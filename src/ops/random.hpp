#pragma once
// Note [Counter-based random numbers]
// Random tensors come from Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011), a counter-based generator: the bits of a draw are a pure function of (seed, counter), so
// every element is computed independently, in parallel, and every device computes the same bits.
// - A draw of n elements with counter `offset` uses the counter blocks offset, offset + 1, ...,
//   offset + ceil(n / 4) - 1: element i (row-major) reads word i % 4 of block offset + i / 4. A block has
//   word sets: the 128-bit Philox counter is (block low, block high, set, 0) and the key is the 64-bit
//   seed. 32-bit results take set 0; 64-bit results set 0 (high half) and set 1 (low half); int64
//   integers 128 bits (sets 0-3). A caller that draws again continues at offset + ceil(n / 4)
//   (random_blocks), so successive draws never share a counter.
// - Uniforms in [0, 1): float32 k 2^-24 from the top 24 bits, float64 k 2^-53 from the top 53, float16
//   k 2^-11 and bfloat16 k 2^-8 (the top 11 and 8 bits: exact in the format, so rounding can never
//   reach 1). low + scale u is computed in float32 (float64 for float64 outputs) without contraction:
//   bitwise identical on every device.
// - Integers in [low, low + range): floor(x range / 2^64) from 64 bits x for int32 (each value's
//   probability within 2^-32 of 1 / range, relatively), floor(x range / 2^128) from 128 bits for int64
//   (within 2^-64); range 0 stands for 2^64. Bitwise identical on every device.
// - Normals by Box-Muller in float32 (float64 for float64 outputs, rounded for the half formats):
//   elements 2p and 2p + 1 of a block are r cos(t) and r sin(t) of words 2p and 2p + 1. The devices'
//   log, sqrt, sin and cos differ by an ulp or two, so normals agree across devices to a few ulp, not
//   bitwise (and so do the CPU's instruction-set targets: its vector kernels take their own log, sin and
//   cos, Note [Vector Philox]). On one device and target, an element depends only on its counter.
#include <cstdint>

#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera::op {

// out (contiguous) = low + scale * uniform [0, 1).
inline constexpr OpSchema<void(const Tensor& out, std::uint64_t seed, std::uint64_t offset, double low,
                               double scale)>
    random_uniform{"random_uniform"};
// out (contiguous) = loc + scale * standard normal.
inline constexpr OpSchema<void(const Tensor& out, std::uint64_t seed, std::uint64_t offset, double loc,
                               double scale)>
    random_normal{"random_normal"};
// out (contiguous, int32 or int64) = low + uniform integer in [0, range); range 0 stands for 2^64.
inline constexpr OpSchema<void(const Tensor& out, std::uint64_t seed, std::uint64_t offset, std::int64_t low,
                               std::uint64_t range)>
    random_integers{"random_integers"};

}  // namespace accelera::op
