#pragma once
// Build options of the element-wise programs (unary.cl, binary.cl): T, the type they compute in, and OT,
// the output's (T, or uchar for the functions that return bool). bool computes as uchar 0 or 1.
#include <string>

#include "backends/opencl/layouts.hpp"
#include "backends/opencl/programs.hpp"

namespace accelera::opencl {

inline std::string elementwise_options(const ClDevice& device, DType compute, DType result) {
  const std::string type =
      compute == DType::boolean ? "-DT=uchar -DUT=uchar -DACC_INTEGER -DACC_BOOL" : element_options(device, compute);
  // ACC_CPU_DEVICE: double costs what float does there (elementwise_math.cl's pow and hypot).
  return type + (result == DType::boolean ? " -DOT=uchar" : " -DOT=T") + (device.cpu_forms ? " -DACC_CPU_DEVICE" : "");
}

// The functions the element-wise programs call: elementwise_math.cl, after half_pi_trig.cl (its float sin, cos
// and tan in double on CPU devices).
inline std::string elementwise_math_source() {
  return std::string(embedded_source("half_pi_trig")) + "\n" + std::string(embedded_source("elementwise_math"));
}

}  // namespace accelera::opencl
