#include "accelera/core/shape.hpp"

#include <algorithm>

#include "accelera/core/error.hpp"

namespace accelera {

namespace {
void validate_dims(const std::vector<std::int64_t>& dims) {
  for (std::size_t i = 0; i < dims.size(); ++i) {
    ACC_CHECK(dims[i] >= 0, ValueError, "negative extent {} in axis {} of a shape", dims[i], i);
  }
}
}  // namespace

Shape::Shape(std::initializer_list<std::int64_t> dims) : m_dims(dims) { validate_dims(m_dims); }
Shape::Shape(std::vector<std::int64_t> dims) : m_dims(std::move(dims)) { validate_dims(m_dims); }
Shape::Shape(std::span<const std::int64_t> dims) : m_dims(dims.begin(), dims.end()) { validate_dims(m_dims); }

std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  ACC_CHECK(!__builtin_mul_overflow(a, b, &r), ValueError, "size overflow: {} x {} does not fit in 64 bits", a,
            b);
  return r;
}

std::int64_t Shape::numel() const {
  std::int64_t n = 1;
  for (auto d : m_dims) n = checked_mul(n, d);
  return n;
}

Strides Shape::contiguous_strides() const {
  Strides strides(m_dims.size());
  std::int64_t s = 1;
  for (std::size_t i = m_dims.size(); i-- > 0;) {
    strides[i] = s;
    s *= std::max<std::int64_t>(m_dims[i], 1);
  }
  return strides;
}

std::string Shape::str() const {
  if (m_dims.size() == 1) return fmt::format("({},)", m_dims[0]);
  return fmt::format("({})", fmt::join(m_dims, ", "));
}

std::int64_t normalize_axis(std::int64_t axis, std::int64_t ndim) {
  ACC_CHECK(axis >= -ndim && axis < ndim, ValueError, "axis {} is out of bounds for a tensor of rank {}", axis,
            ndim);
  return axis < 0 ? axis + ndim : axis;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const auto n = std::max(a.ndim(), b.ndim());
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t da = i < n - a.ndim() ? 1 : a[i - (n - a.ndim())];
    const std::int64_t db = i < n - b.ndim() ? 1 : b[i - (n - b.ndim())];
    ACC_CHECK(da == db || da == 1 || db == 1, ShapeError,
              "shapes {} and {} cannot be broadcast together (axis {}: {} vs {})", a.str(), b.str(), i, da, db);
    out[static_cast<std::size_t>(i)] = da == 1 ? db : da;
  }
  return Shape(std::move(out));
}

}  // namespace accelera
