#pragma once
// Random tensors from the counter-based Philox4x32-10 generator: the same (seed, offset) gives the same
// uniforms and integers, bit for bit, on every device, and normals equal to a few ulp (Note
// [Counter-based random numbers] in src/ops/random.hpp). A draw of n elements uses the counters offset
// to offset + random_blocks(n) - 1; the next draw should start after them.
#include <cstdint>

#include "accelera/core/export.hpp"
#include "accelera/core/tensor.hpp"

namespace accelera {

// The counter blocks a draw of `numel` elements uses: ceil(numel / 4).
ACC_API std::uint64_t random_blocks(std::int64_t numel);

// low + (high - low) * U, U uniform in [0, 1); floating dtypes (the half formats are drawn on their own
// grid, see the note). Finite low <= high.
ACC_API Tensor random_uniform(const Shape& shape, DType dtype, const Device& device, std::uint64_t seed,
                              std::uint64_t offset, double low = 0.0, double high = 1.0);
// loc + scale * Z, Z standard normal (Box-Muller); floating dtypes, finite loc, finite scale >= 0.
ACC_API Tensor random_normal(const Shape& shape, DType dtype, const Device& device, std::uint64_t seed,
                             std::uint64_t offset, double loc = 0.0, double scale = 1.0);
// Integers uniform in [low, high) (in [low, high] with `endpoint`), int32 or int64; the bounds must be
// representable in the dtype and the interval non-empty.
ACC_API Tensor random_integers(const Shape& shape, DType dtype, const Device& device, std::int64_t low,
                               std::int64_t high, bool endpoint, std::uint64_t seed, std::uint64_t offset);
// A uniformly random permutation of 0 .. n - 1 (int64) on `device`: the stable order of n keys drawn as
// random_integers draws int64 over its whole range (the same counters), drawn and ranked (a stable
// argsort) on `device`; the same on every device.
ACC_API Tensor random_permutation(std::int64_t n, const Device& device, std::uint64_t seed, std::uint64_t offset);

}  // namespace accelera
