#pragma once
// Host entry points of the CUDA Philox kernels (random.cu; Note [Counter-based random numbers] in
// ops/random.hpp). `out` is the device address of the first element of a contiguous output of n elements.
// Each returns false, launching nothing, for a dtype it does not compute.
#include <cstdint>

#include "accelera/core/dtype.hpp"
#include "backends/cuda/launch.hpp"

namespace accelera::cuda::kernels {

enum class Distribution { uniform, normal, integers };

struct RandomDraw {
  Distribution distribution = Distribution::uniform;
  std::uint64_t seed = 0, offset = 0;
  double low = 0, scale = 1;        // uniform and normal
  std::int64_t int_low = 0;         // integers
  std::uint64_t range = 0;          // integers; 0 stands for 2^64
};

bool random(DType dtype, const RandomDraw& draw, void* out, std::int64_t n, Launch launch);

}  // namespace accelera::cuda::kernels
