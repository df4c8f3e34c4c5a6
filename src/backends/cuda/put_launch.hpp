#pragma once
// Host entry point of the CUDA scatter kernel of put (put.cu; Note [Scatter] in ops/put.hpp).
#include <cstddef>
#include <cstdint>

#include "backends/cuda/launch.hpp"

namespace accelera::cuda::kernels {

// Operands of `layout` 0: dest, 1: values, 2: indices (int64, in [-axis_size, axis_size)), addresses of
// their element [0, ...].
void put(const Layout& layout, void* dest, const void* values, const std::int64_t* indices, std::size_t itemsize,
         std::int64_t axis_stride, std::int64_t axis_size, Launch launch);

}  // namespace accelera::cuda::kernels
