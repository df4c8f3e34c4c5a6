#pragma once
// The matmul kernel: out = a @ b, or out += a @ b with `accumulate`, over batches. a: (..., M, K),
// b: (..., K, N), out: (..., M, N), all of one floating dtype and equal batch extents (broadcast batch
// axes arrive as stride-0 views). a and b may have any strides (kernels pack what their BLAS cannot
// read); out is C-contiguous and shares no memory with a or b. No operand is empty (K >= 1).
#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera::op {

inline constexpr OpSchema<void(const Tensor& a, const Tensor& b, const Tensor& out, bool accumulate)> matmul{
    "matmul"};

}  // namespace accelera::op
