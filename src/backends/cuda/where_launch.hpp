#pragma once
// The host entry point of the CUDA where kernel (where.cu; Note [where] in ops/where.hpp).
#include <cstddef>

#include "backends/cuda/launch.hpp"

namespace accelera::cuda::kernels {

// out = condition (bool bytes) ? x1 : x2. `layout` holds the strides of out, the condition and x1;
// `second` (same dims) those of x2 as its operand 0. Elements are moved as `itemsize`-byte words; false,
// launching nothing, for another size.
bool where(const Layout& layout, const Layout& second, void* out, const void* condition, const void* x1,
           const void* x2, std::size_t itemsize, Launch launch);

}  // namespace accelera::cuda::kernels
