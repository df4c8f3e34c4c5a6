#pragma once
// Splits a reduction's axes into kept and reduced ones, with the strides each backend's kernel needs.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "accelera/core/tensor.hpp"

namespace accelera::backends {

struct ReductionAxes {
  Shape kept_shape, reduced_shape;
  Strides kept_x, kept_out, reduced_x;
};

// out has x's rank with the reduced axes of extent 1 (see Backend::reduce).
inline ReductionAxes split_axes(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  std::vector<std::int64_t> kd, rd;
  ReductionAxes s;
  for (std::int64_t i = 0; i < x.ndim(); ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (std::ranges::find(axes, i) != axes.end()) {
      rd.push_back(x.shape()[i]);
      s.reduced_x.push_back(x.strides()[u]);
    } else {
      kd.push_back(x.shape()[i]);
      s.kept_x.push_back(x.strides()[u]);
      s.kept_out.push_back(out.strides()[u]);
    }
  }
  s.kept_shape = Shape(std::move(kd));
  s.reduced_shape = Shape(std::move(rd));
  return s;
}

}  // namespace accelera::backends
