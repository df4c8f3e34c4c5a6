#pragma once
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>
#include "accelera/core/export.hpp"

namespace accelera {

// Strides are counted in elements (as in DLPack), may be zero (broadcast) or negative (reversed views).
using Strides = std::vector<std::int64_t>;

// Extents of a tensor. 64-bit throughout: matrices past 2^31 elements are the point of this library.
class ACC_API Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<std::int64_t> dims);
  explicit Shape(std::vector<std::int64_t> dims);
  explicit Shape(std::span<const std::int64_t> dims);

  std::int64_t ndim() const noexcept { return static_cast<std::int64_t>(m_dims.size()); }
  std::int64_t operator[](std::int64_t axis) const { return m_dims.at(static_cast<std::size_t>(axis)); }
  std::int64_t& operator[](std::int64_t axis) { return m_dims.at(static_cast<std::size_t>(axis)); }
  const std::vector<std::int64_t>& dims() const noexcept { return m_dims; }
  // Product of the extents; throws ValueError if it overflows int64.
  std::int64_t numel() const;
  Strides contiguous_strides() const;
  std::string str() const;

  friend bool operator==(const Shape&, const Shape&) = default;

 private:
  std::vector<std::int64_t> m_dims;
};

// Normalises a possibly negative axis against ndim; throws ValueError when out of range.
ACC_API std::int64_t normalize_axis(std::int64_t axis, std::int64_t ndim);
// NumPy broadcasting of two shapes; throws ShapeError naming both.
ACC_API Shape broadcast_shapes(const Shape& a, const Shape& b);
// a * b for sizes, throwing ValueError on int64 overflow.
ACC_API std::int64_t checked_mul(std::int64_t a, std::int64_t b);

}  // namespace accelera
