#pragma once
// Build options of the element-wise programs (unary.cl, binary.cl): T, the type they compute in, and OT,
// the output's (T, or uchar for the functions that return bool). bool computes as uchar 0 or 1.
#include <string>

#include "backends/opencl/layouts.hpp"

namespace accelera::opencl {

inline std::string elementwise_options(const ClDevice& device, DType compute, DType result) {
  const std::string type =
      compute == DType::boolean ? "-DT=uchar -DUT=uchar -DACC_INTEGER -DACC_BOOL" : element_options(device, compute);
  return type + (result == DType::boolean ? " -DOT=uchar" : " -DOT=T");
}

}  // namespace accelera::opencl
