#pragma once
// Note [Scans]
// cumulative_sum and cumulative_prod run one kernel over x viewed as [outer, n, inner] (x and out
// contiguous, the scanned axis in the middle), writing out as [outer, n + initial, inner]: with
// `include_initial`, out[:, 0, :] is the identity (0 or 1) and the running values follow. Every backend
// splits the axis into blocks when there are too few lines (outer * inner) to fill the device: block totals
// first, then an exclusive scan of the totals per line, then each block scans from its line's carry. So a
// single long axis runs in parallel, and float results differ from a sequential sum by reassociation only.
// Sums and products accumulate in float64 for floating x where the device has it (float32 on OpenCL devices
// without fp64), in float for float16/bfloat16, and wrap as unsigned 64-bit for integers, as NumPy's do.

#include <cstdint>

#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera {

using ScanKernel = void(const Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner, bool include_initial,
                        const Tensor& out);

namespace op {
inline constexpr OpSchema<ScanKernel> cumulative_sum{"cumulative_sum"};
inline constexpr OpSchema<ScanKernel> cumulative_prod{"cumulative_prod"};
}  // namespace op

}  // namespace accelera
