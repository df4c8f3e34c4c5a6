#pragma once
// Host buffers for accelera::dist's panels, copies and exchanges, from the CPU's caching allocator: it keeps
// freed blocks, so a repeated product reuses the pages of the last one. Plain new[] or std::vector of the
// same sizes are fresh mappings each time (glibc maps blocks above 32 MiB anew), and their page faults cost
// as much as the broadcasts on a VM (65536 x 256 x 256 on two ranks: 0.58x ScaLAPACK before, 1.2x after).
#include <cstdint>

#include "accelera/core/tensor.hpp"

namespace accelera::dist {

template <class T>
constexpr DType dtype_of() {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>, "dist computes float32 and float64");
  return std::is_same_v<T, double> ? DType::f64 : DType::f32;
}

// `count` uninitialised elements of T that live as long as `owner` does.
template <class T>
T* host_buffer(Tensor& owner, std::int64_t count) {
  owner = Tensor::empty(Shape({count}), dtype_of<T>(), Device::cpu());
  return static_cast<T*>(owner.data_ptr());
}

}  // namespace accelera::dist
