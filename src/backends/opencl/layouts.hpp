#pragma once
// Coalesced loop layouts (Note [Strided loops]) in the fixed form the OpenCL kernels take by value.
#include "backends/common/strided_loop.hpp"
#include "backends/opencl/programs.hpp"

namespace accelera::opencl {

template <std::size_t N>
ClLayout to_cl_layout(const backends::LoopLayout<N>& layout, std::string_view op) {
  ACC_CHECK(layout.dims.size() <= static_cast<std::size_t>(kMaxDims), NotSupportedError,
            "{} on OpenCL: {} non-mergeable axes exceed the limit of {}", op, layout.dims.size(), kMaxDims);
  ClLayout cl{};
  for (std::size_t d = 0; d < layout.dims.size(); ++d) {
    cl.dims[d] = layout.dims[d];
    for (std::size_t k = 0; k < N; ++k) cl.strides[k][d] = layout.strides[k][d];
  }
  return cl;
}

// Whether every operand is dense (one coalesced axis of unit stride): the kernels' index-free path.
template <std::size_t N>
bool is_dense(const backends::LoopLayout<N>& layout) {
  if (layout.dims.size() != 1) return false;
  for (std::size_t k = 0; k < N; ++k) {
    if (layout.strides[k][0] != 1) return false;
  }
  return true;
}

}  // namespace accelera::opencl
