#pragma once
// Host side of the kernels' strided layouts: coalesced loop layouts (Note [Strided loops]) in the fixed
// form the kernels take by value.
#include "accelera/core/error.hpp"
#include "backends/common/strided_loop.hpp"
#include "backends/cuda/kernels/launch.hpp"

namespace accelera::cuda {

template <std::size_t N>
kernels::Layout to_kernel_layout(const backends::LoopLayout<N>& layout, const char* op) {
  static_assert(N <= 3);
  ACC_CHECK(layout.dims.size() <= static_cast<std::size_t>(kernels::kMaxDims), NotSupportedError,
            "{} on CUDA: {} non-mergeable axes exceed the limit of {}", op, layout.dims.size(), kernels::kMaxDims);
  kernels::Layout k;
  k.ndim = static_cast<int>(layout.dims.size());
  k.numel = layout.numel;
  for (std::size_t d = 0; d < layout.dims.size(); ++d) {
    k.dims[d] = layout.dims[d];
    for (std::size_t i = 0; i < N; ++i) k.strides[i][d] = layout.strides[i][d];
  }
  return k;
}

}  // namespace accelera::cuda
