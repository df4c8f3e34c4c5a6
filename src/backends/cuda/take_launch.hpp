#pragma once
// Host entry point of the CUDA gather kernel of take and take_along_axis (take.cu; Note [Gather and index
// checks] in ops/take.hpp).
#include <cstddef>
#include <cstdint>

#include "backends/cuda/launch.hpp"

namespace accelera::cuda::kernels {

// Operands of `layout` 0: out, 1: source, 2: indices (int32 when index_is_32, else int64), addresses of
// their element [0, ...]. An index outside [-axis_size, axis_size) is skipped and sets *bad to 1.
void take(const Layout& layout, void* out, const void* source, const void* indices, bool index_is_32,
          std::size_t itemsize, std::int64_t axis_stride, std::int64_t axis_size, std::int32_t* bad, Launch launch);

}  // namespace accelera::cuda::kernels
