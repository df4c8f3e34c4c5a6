#pragma once
// Note [where]
// where(condition, x1, x2) is one pass over the output: out = condition ? x1 : x2, with the three inputs
// broadcast to out's shape (stride-0 views) and x1, x2 converted to out's dtype first. The kernel only
// moves elements, so backends register it for every dtype and select by element size. The OpenCL and
// CUDA strided layouts hold three operands; the fourth (x2) travels in a second layout of the same dims
// (split_where_layout).
#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera {

// out[i] = x1[i] where condition[i] (bool), else x2[i]. condition, x1, x2 and out have one shape (the
// inputs may broadcast by stride-0 views); x1 and x2 have out's dtype. out shares no memory with the
// condition or x1; x2 may be out itself (the same elements: out keeps its value where the condition
// fails), and no other memory of out.
using WhereKernel = void(const Tensor& condition, const Tensor& x1, const Tensor& x2, const Tensor& out);

namespace op {
inline constexpr OpSchema<WhereKernel> where{"where"};
}  // namespace op

}  // namespace accelera
