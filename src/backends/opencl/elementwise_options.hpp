#pragma once
// Build options of the element-wise programs (unary.cl, binary.cl): T, the type they compute in, and OT,
// the output's (T, or uchar for the functions that return bool). bool computes as uchar 0 or 1.
#include <string>

#include "backends/opencl/layouts.hpp"

namespace accelera::opencl {

inline std::string elementwise_options(const ClDevice& device, DType compute, DType result) {
  const std::string type =
      compute == DType::boolean ? "-DT=uchar -DUT=uchar -DACC_INTEGER -DACC_BOOL" : element_options(device, compute);
  // ACC_CPU_DEVICE: double costs what float does there (elementwise_math.cl's pow and hypot).
  return type + (result == DType::boolean ? " -DOT=uchar" : " -DOT=T") + (device.cpu_forms ? " -DACC_CPU_DEVICE" : "");
}

}  // namespace accelera::opencl
