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

// Build options of the index-free paths: ACC_CONTIGUOUS when every operand is dense; ACC_LINEAR with
// ACC_STEP1 ... ACC_STEP<N-1> (each 0 or 1) when operand 0 is dense and the others are dense or one
// broadcast element, as in `x > 0` or `x * 2`; nothing otherwise (the kernels compute offsets).
template <std::size_t N>
std::string linear_options(const backends::LoopLayout<N>& layout) {
  if (is_dense(layout)) return " -DACC_CONTIGUOUS";
  if (layout.dims.size() != 1 || layout.strides[0][0] != 1) return "";
  std::string options = " -DACC_LINEAR";
  for (std::size_t k = 1; k < N; ++k) {
    const std::int64_t step = layout.strides[k][0];
    if (step != 0 && step != 1) return "";
    options += fmt::format(" -DACC_STEP{}={}", k, step);
  }
  return options;
}

}  // namespace accelera::opencl
