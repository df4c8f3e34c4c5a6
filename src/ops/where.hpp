#pragma once
// Note [where]
// where(condition, x1, x2) runs in two passes over the output, each with at most three operands (the
// strided layouts of the OpenCL and CUDA kernels take three): out = x2 (copy_into converts and
// broadcasts), then the `where` kernel sets out = x1 where the condition holds. The kernel only moves
// elements, so backends register it for every dtype and select by element size.
#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera {

// out[i] = x[i] where condition[i] (bool), else out[i] unchanged. condition, x and out have one shape
// (condition and x may broadcast by stride-0 views); x has out's dtype; out shares no memory with them.
using WhereKernel = void(const Tensor& condition, const Tensor& x, const Tensor& out);

namespace op {
inline constexpr OpSchema<WhereKernel> where{"where"};
}  // namespace op

}  // namespace accelera
