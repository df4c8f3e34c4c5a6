#pragma once
// The fill kernel: every element of dst (any strides) = value converted to dst's dtype as the copy kernel
// converts a float64 (NumPy's astype rules). Registered for every dtype.
#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera::op {

inline constexpr OpSchema<void(const Tensor& dst, double value)> fill{"fill"};

}  // namespace accelera::op
