#pragma once
// The copy kernel, the one kernel core itself dispatches (Tensor::clone, contiguous, astype, to): dst = src
// converted to dst's dtype as NumPy's astype converts; same shape, any strides on either side (zero and
// negative included). Both tensors are on one device, or on two devices of a kind whose interface
// copies_between_devices(). Every backend registers it for every dtype.
#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera::op {

inline constexpr OpSchema<void(const Tensor& src, const Tensor& dst)> copy{"copy"};

}  // namespace accelera::op
