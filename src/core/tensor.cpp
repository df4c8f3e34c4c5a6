#include "accelera/core/tensor.hpp"

#include <algorithm>
#include <numeric>

#include "accelera/core/allocator.hpp"
#include "accelera/core/error.hpp"

namespace accelera {

namespace {
// Zero-byte storages point here so that every tensor has a valid, aligned data pointer.
alignas(64) std::byte g_empty_block[64];
}  // namespace

Storage::Storage(Device device, std::size_t nbytes, CachingAllocator& allocator)
    : m_device(device), m_nbytes(nbytes), m_allocator(&allocator) {
  m_data = nbytes == 0 ? static_cast<void*>(g_empty_block) : allocator.allocate(nbytes);
}

Storage::Storage(Device device, void* data, std::size_t nbytes, std::function<void()> release, bool read_only)
    : m_device(device), m_data(data), m_nbytes(nbytes), m_release(std::move(release)), m_read_only(read_only) {}

Storage::~Storage() {
  if (m_allocator != nullptr) {
    if (m_nbytes != 0) m_allocator->deallocate(m_data);
  } else if (m_release) {
    m_release();
  }
}

Tensor::Tensor(std::shared_ptr<Storage> storage, Shape shape, Strides strides, std::int64_t offset, DType dtype)
    : m_storage(std::move(storage)), m_shape(std::move(shape)), m_strides(std::move(strides)), m_offset(offset),
      m_dtype(dtype) {}

Tensor Tensor::empty(const Shape& shape, DType dtype, const Device& device) {
  const std::int64_t n = shape.numel();
  const std::int64_t nbytes = checked_mul(n, static_cast<std::int64_t>(dtype_size(dtype)));
  auto storage = std::make_shared<Storage>(device, static_cast<std::size_t>(nbytes), allocator_for(device));
  return Tensor(std::move(storage), shape, shape.contiguous_strides(), 0, dtype);
}

Tensor Tensor::from_blob(void* data, const Shape& shape, const Strides& strides, DType dtype, const Device& device,
                         std::function<void()> release, bool read_only) {
  ACC_CHECK(static_cast<std::int64_t>(strides.size()) == shape.ndim(), ValueError,
            "from_blob: {} strides given for a shape of rank {}", strides.size(), shape.ndim());
  ACC_CHECK(data != nullptr || shape.numel() == 0, ValueError, "from_blob: null data for a non-empty tensor");
  // The storage's byte extent is not known for borrowed memory; record the span the view touches.
  std::int64_t span = shape.numel() == 0 ? 0 : 1;
  for (std::int64_t i = 0; i < shape.ndim() && span != 0; ++i) {
    span += (shape[i] - 1) * std::abs(strides[static_cast<std::size_t>(i)]);
  }
  void* base = data != nullptr ? data : static_cast<void*>(g_empty_block);
  auto storage = std::make_shared<Storage>(device, base, static_cast<std::size_t>(span) * dtype_size(dtype),
                                           std::move(release), read_only);
  return Tensor(std::move(storage), shape, strides, 0, dtype);
}

const Device& Tensor::device() const {
  ACC_CHECK(defined(), ValueError, "operation on an undefined tensor");
  return m_storage->device();
}

std::int64_t Tensor::dim(std::int64_t axis) const { return m_shape[normalize_axis(axis, ndim())]; }

void* Tensor::data_ptr() const {
  ACC_CHECK(defined(), ValueError, "operation on an undefined tensor");
  return static_cast<std::byte*>(m_storage->data()) + m_offset * static_cast<std::int64_t>(itemsize());
}

bool Tensor::is_contiguous() const noexcept {
  std::int64_t expected = 1;
  for (std::int64_t i = ndim(); i-- > 0;) {
    const auto d = m_shape.dims()[static_cast<std::size_t>(i)];
    if (d == 1) continue;
    if (d == 0) return true;
    if (m_strides[static_cast<std::size_t>(i)] != expected) return false;
    expected *= d;
  }
  return true;
}

std::string Tensor::str() const {
  if (!defined()) return "Tensor(undefined)";
  return fmt::format("Tensor(shape={}, dtype={}, device={})", m_shape.str(), dtype_name(m_dtype), device().str());
}

Tensor Tensor::with_layout(Shape shape, Strides strides, std::int64_t offset) const {
  ACC_CHECK(defined(), ValueError, "operation on an undefined tensor");
  return Tensor(m_storage, std::move(shape), std::move(strides), offset, m_dtype);
}

Tensor Tensor::slice(std::int64_t axis, std::int64_t start, std::int64_t stop, std::int64_t step) const {
  axis = normalize_axis(axis, ndim());
  ACC_CHECK(step != 0, ValueError, "slice step cannot be zero");
  const std::int64_t n = m_shape[axis];
  // Python slice semantics: clamp the bounds, count the elements.
  const auto clamp = [&](std::int64_t v, std::int64_t lo, std::int64_t hi) {
    if (v < 0) v += n;
    return std::clamp(v, lo, hi);
  };
  // Counted as CPython does, in unsigned arithmetic where a huge step could overflow.
  std::int64_t count = 0;
  if (step > 0) {
    start = clamp(start, 0, n);
    stop = clamp(stop, 0, n);
    count = stop > start ? (stop - start - 1) / step + 1 : 0;
  } else {
    start = clamp(start, -1, n - 1);
    stop = clamp(stop, -1, n - 1);
    const auto magnitude = std::uint64_t{0} - static_cast<std::uint64_t>(step);
    count = start > stop ? static_cast<std::int64_t>(static_cast<std::uint64_t>(start - stop - 1) / magnitude) + 1 : 0;
  }
  Shape shape = m_shape;
  Strides strides = m_strides;
  shape[axis] = count;
  const auto a = static_cast<std::size_t>(axis);
  const std::int64_t offset = count > 0 ? m_offset + start * m_strides[a] : m_offset;
  // With at most one element the stride is irrelevant; keeping it avoids overflowing stride * step.
  if (count > 1) strides[a] = m_strides[a] * step;
  return with_layout(std::move(shape), std::move(strides), offset);
}

Tensor Tensor::select(std::int64_t axis, std::int64_t index) const {
  axis = normalize_axis(axis, ndim());
  const std::int64_t n = m_shape[axis];
  ACC_CHECK(index >= -n && index < n, ValueError, "index {} is out of bounds for axis {} of size {}", index, axis,
            n);
  if (index < 0) index += n;
  auto dims = m_shape.dims();
  Strides strides = m_strides;
  const auto a = static_cast<std::size_t>(axis);
  const std::int64_t offset = m_offset + index * m_strides[a];
  dims.erase(dims.begin() + axis);
  strides.erase(strides.begin() + axis);
  return with_layout(Shape(std::move(dims)), std::move(strides), offset);
}

Tensor Tensor::permute(std::span<const std::int64_t> axes) const {
  ACC_CHECK(static_cast<std::int64_t>(axes.size()) == ndim(), ValueError,
            "permute: {} axes given for a tensor of rank {}", axes.size(), ndim());
  std::vector<bool> seen(axes.size(), false);
  std::vector<std::int64_t> dims(axes.size());
  Strides strides(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<std::size_t>(normalize_axis(axes[i], ndim()));
    ACC_CHECK(!seen[a], ValueError, "permute: axis {} repeated", a);
    seen[a] = true;
    dims[i] = m_shape.dims()[a];
    strides[i] = m_strides[a];
  }
  return with_layout(Shape(std::move(dims)), std::move(strides), m_offset);
}

Tensor Tensor::transpose(std::int64_t axis0, std::int64_t axis1) const {
  std::vector<std::int64_t> axes(static_cast<std::size_t>(ndim()));
  std::iota(axes.begin(), axes.end(), 0);
  std::swap(axes[static_cast<std::size_t>(normalize_axis(axis0, ndim()))],
            axes[static_cast<std::size_t>(normalize_axis(axis1, ndim()))]);
  return permute(axes);
}

Tensor Tensor::T() const {
  std::vector<std::int64_t> axes(static_cast<std::size_t>(ndim()));
  std::iota(axes.rbegin(), axes.rend(), 0);
  return permute(axes);
}

Tensor Tensor::unsqueeze(std::int64_t axis) const {
  axis = normalize_axis(axis, ndim() + 1);
  auto dims = m_shape.dims();
  Strides strides = m_strides;
  const std::int64_t stride = axis < ndim() ? m_strides[static_cast<std::size_t>(axis)] * m_shape[axis] : 1;
  dims.insert(dims.begin() + axis, 1);
  strides.insert(strides.begin() + axis, stride);
  return with_layout(Shape(std::move(dims)), std::move(strides), m_offset);
}

Tensor Tensor::view_as_real() const {
  ACC_CHECK(is_complex(m_dtype), DTypeError, "view_as_real needs a complex tensor, not {}", dtype_name(m_dtype));
  auto dims = m_shape.dims();
  dims.push_back(2);
  Strides strides;
  for (const auto s : m_strides) strides.push_back(2 * s);
  strides.push_back(1);
  return Tensor(m_storage, Shape(std::move(dims)), std::move(strides), 2 * m_offset, real_dtype(m_dtype));
}

Tensor Tensor::view_as_complex() const {
  ACC_CHECK(m_dtype == DType::f32 || m_dtype == DType::f64, DTypeError,
            "view_as_complex needs a float32 or float64 tensor, not {}", dtype_name(m_dtype));
  ACC_CHECK(ndim() >= 1 && m_shape[ndim() - 1] == 2 && m_strides.back() == 1, ShapeError,
            "view_as_complex needs a last axis of two elements with stride 1, not shape {}", m_shape.str());
  auto dims = m_shape.dims();
  dims.pop_back();
  Strides strides;
  for (std::size_t i = 0; i + 1 < m_strides.size(); ++i) {
    ACC_CHECK(m_strides[i] % 2 == 0, ShapeError, "view_as_complex needs even strides, not {}", m_strides[i]);
    strides.push_back(m_strides[i] / 2);
  }
  ACC_CHECK(m_offset % 2 == 0, ShapeError, "view_as_complex needs an even offset, not {}", m_offset);
  return Tensor(m_storage, Shape(std::move(dims)), std::move(strides), m_offset / 2, complex_dtype(m_dtype));
}

Tensor Tensor::broadcast_to(const Shape& shape) const {
  ACC_CHECK(shape.ndim() >= ndim(), ShapeError, "cannot broadcast {} to {}", m_shape.str(), shape.str());
  const std::int64_t lead = shape.ndim() - ndim();
  Strides strides(static_cast<std::size_t>(shape.ndim()), 0);
  for (std::int64_t i = 0; i < ndim(); ++i) {
    const auto d = m_shape[i];
    ACC_CHECK(d == shape[lead + i] || d == 1, ShapeError, "cannot broadcast {} to {}", m_shape.str(), shape.str());
    strides[static_cast<std::size_t>(lead + i)] = d == 1 ? 0 : m_strides[static_cast<std::size_t>(i)];
  }
  return with_layout(shape, std::move(strides), m_offset);
}

namespace {
std::vector<std::int64_t> infer_dims(std::span<const std::int64_t> dims, std::int64_t numel, const Shape& from) {
  std::vector<std::int64_t> out(dims.begin(), dims.end());
  std::int64_t known = 1;
  std::optional<std::size_t> infer;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      ACC_CHECK(!infer, ValueError, "reshape: only one extent can be -1");
      infer = i;
    } else {
      ACC_CHECK(out[i] >= 0, ValueError, "reshape: negative extent {}", out[i]);
      known = checked_mul(known, out[i]);
    }
  }
  if (infer) {
    ACC_CHECK(known != 0 && numel % known == 0, ShapeError, "cannot reshape {} into ({})", from.str(),
              fmt::join(dims, ", "));
    out[*infer] = numel / known;
  }
  ACC_CHECK(Shape(out).numel() == numel, ShapeError, "cannot reshape {} ({} elements) into ({})", from.str(), numel,
            fmt::join(dims, ", "));
  return out;
}
}  // namespace

std::optional<Tensor> Tensor::view(std::span<const std::int64_t> dims) const {
  const Shape target(infer_dims(dims, numel(), m_shape));
  if (numel() == 0 || is_contiguous()) return with_layout(target, target.contiguous_strides(), m_offset);
  // Match groups of old axes that are mutually contiguous with groups of new axes (as NumPy's
  // _attempt_nocopy_reshape does); size-1 axes are dropped first since their strides are irrelevant.
  std::vector<std::int64_t> od, os;
  for (std::int64_t i = 0; i < ndim(); ++i) {
    if (m_shape[i] != 1) {
      od.push_back(m_shape[i]);
      os.push_back(m_strides[static_cast<std::size_t>(i)]);
    }
  }
  const auto& nd = target.dims();
  Strides ns(nd.size(), 0);
  std::size_t oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < nd.size() && oi < od.size()) {
    std::int64_t np = nd[ni], op = od[oi];
    while (np != op) {
      if (np < op) {
        np *= nd[nj++];
      } else {
        op *= od[oj++];
      }
    }
    for (std::size_t k = oi; k + 1 < oj; ++k) {
      if (os[k] != od[k + 1] * os[k + 1]) return std::nullopt;
    }
    ns[nj - 1] = os[oj - 1];
    for (std::size_t k = nj - 1; k > ni; --k) ns[k - 1] = ns[k] * nd[k];
    ni = nj++;
    oi = oj++;
  }
  // Trailing size-1 axes of the target.
  for (std::size_t k = ni; k < nd.size(); ++k) ns[k] = 1;
  return with_layout(target, std::move(ns), m_offset);
}

Tensor Tensor::reshape(std::span<const std::int64_t> dims) const {
  if (auto v = view(dims)) return *v;
  return contiguous().view(dims).value();
}

}  // namespace accelera
