#pragma once
// The host entry point of the CUDA where kernel (where.cu; Note [where] in ops/where.hpp).
#include <cstddef>

#include "backends/cuda/launch.hpp"

namespace accelera::cuda::kernels {

// out = x where the condition (bool bytes) holds; operands 0: out, 1: condition, 2: x. Elements are moved
// as `itemsize`-byte words; false, launching nothing, for another size.
bool where(const Layout& layout, void* out, const void* condition, const void* x, std::size_t itemsize,
           Launch launch);

}  // namespace accelera::cuda::kernels
