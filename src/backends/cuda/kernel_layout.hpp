#pragma once
// Host-side helpers of the CUDA launchers: coalesced loop layouts (Note [Strided loops]) in the fixed form
// the kernels take by value, the vector-path test, and the check that a kernel entry point took the dtype.
#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include "accelera/core/error.hpp"
#include "accelera/core/tensor.hpp"
#include "backends/common/strided_loop.hpp"
#include "backends/cuda/launch.hpp"

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

// The 16-byte vector path needs every operand contiguous along one coalesced axis and 16-byte aligned.
template <std::size_t N>
bool vectorizable(const backends::LoopLayout<N>& layout, std::initializer_list<const Tensor*> tensors) {
  if (layout.dims.size() != 1) return false;
  for (std::size_t k = 0; k < N; ++k) {
    if (layout.strides[k][0] != 1) return false;
  }
  return std::ranges::all_of(tensors, [](const Tensor* t) {
    return !t->defined() || reinterpret_cast<std::uintptr_t>(t->data_ptr()) % 16 == 0;
  });
}

// Kernel entry points return false for a dtype they do not compute; the kernel table registered only the
// dtypes they do, so false is a bug.
inline void check_dispatched(bool launched, std::string_view op, DType dtype) {
  ACC_ASSERT(launched, "the CUDA {} kernel was called for {}, which it does not compute", op, dtype_name(dtype));
}

}  // namespace accelera::cuda
