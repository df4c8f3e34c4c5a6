#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "accelera/core/device.hpp"
#include "accelera/core/dtype.hpp"
#include "accelera/core/shape.hpp"
#include "accelera/core/export.hpp"

namespace accelera {

class CachingAllocator;

// A block of memory on one device: either taken from the device's caching allocator or borrowed from
// someone else (NumPy, a DLPack producer), in which case `release` runs when the last user is gone.
class ACC_API Storage {
 public:
  Storage(Device device, std::size_t nbytes, CachingAllocator& allocator);
  Storage(Device device, void* data, std::size_t nbytes, std::function<void()> release, bool read_only = false);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const noexcept { return m_data; }
  std::size_t nbytes() const noexcept { return m_nbytes; }
  const Device& device() const noexcept { return m_device; }
  bool is_borrowed() const noexcept { return m_allocator == nullptr; }
  // Borrowed from a producer that forbids writes; exports say so.
  bool is_read_only() const noexcept { return m_read_only; }

 private:
  Device m_device;
  void* m_data = nullptr;
  std::size_t m_nbytes = 0;
  CachingAllocator* m_allocator = nullptr;
  std::function<void()> m_release;
  bool m_read_only = false;
};

// A strided view of a Storage. Copies of a Tensor share the storage (reference counted); view methods
// (slice, transpose, reshape when the strides allow) never copy.
class ACC_API Tensor {
 public:
  Tensor() = default;  // an undefined tensor; defined() is false

  // Uninitialised, C-contiguous, from the device's caching allocator.
  static Tensor empty(const Shape& shape, DType dtype, const Device& device = Device::cpu());
  // Wraps memory owned elsewhere. `release` is called once the last view is gone.
  static Tensor from_blob(void* data, const Shape& shape, const Strides& strides, DType dtype,
                          const Device& device, std::function<void()> release, bool read_only = false);

  bool defined() const noexcept { return m_storage != nullptr; }
  const Shape& shape() const noexcept { return m_shape; }
  const Strides& strides() const noexcept { return m_strides; }
  std::int64_t offset() const noexcept { return m_offset; }
  DType dtype() const noexcept { return m_dtype; }
  const Device& device() const;
  std::int64_t ndim() const noexcept { return m_shape.ndim(); }
  std::int64_t dim(std::int64_t axis) const;
  std::int64_t numel() const { return m_shape.numel(); }
  std::size_t itemsize() const noexcept { return dtype_size(m_dtype); }
  std::size_t nbytes() const { return static_cast<std::size_t>(numel()) * itemsize(); }
  // Address of element [0, 0, ...]; for a device tensor this is a device address.
  void* data_ptr() const;
  template <typename T>
  T* data() const {
    return static_cast<T*>(data_ptr());
  }
  const std::shared_ptr<Storage>& storage() const noexcept { return m_storage; }
  bool is_contiguous() const noexcept;
  bool shares_storage_with(const Tensor& other) const noexcept { return m_storage == other.m_storage; }
  std::string str() const;  // "Tensor(shape=(2, 3), dtype=float32, device=cpu)"

  // Views.
  Tensor slice(std::int64_t axis, std::int64_t start, std::int64_t stop, std::int64_t step = 1) const;
  Tensor select(std::int64_t axis, std::int64_t index) const;  // removes the axis
  Tensor transpose(std::int64_t axis0, std::int64_t axis1) const;
  Tensor permute(std::span<const std::int64_t> axes) const;
  Tensor T() const;  // all axes reversed, as NumPy's .T
  Tensor unsqueeze(std::int64_t axis) const;
  Tensor broadcast_to(const Shape& shape) const;  // stride-0 view; throws ShapeError
  // A complex tensor as its real dtype with a trailing axis of two (real, imaginary), sharing the storage;
  // throws DTypeError for a real dtype.
  Tensor view_as_real() const;
  // The inverse: a float32 or float64 tensor whose last axis has two elements of stride 1 (and whose other
  // strides and offset are even) as complex64 or complex128; throws DTypeError or ShapeError otherwise.
  Tensor view_as_complex() const;
  // A view when the strides allow it, otherwise std::nullopt. One extent may be -1.
  std::optional<Tensor> view(std::span<const std::int64_t> dims) const;
  // A view when possible, else a contiguous copy (NumPy's reshape).
  Tensor reshape(std::span<const std::int64_t> dims) const;

  // Copies (implemented by the ops layer, which owns the kernels).
  Tensor contiguous() const;           // self when already contiguous
  Tensor clone() const;                // always a new contiguous copy
  Tensor astype(DType dtype) const;    // always a new tensor
  Tensor to(const Device& device) const;  // self when already there

 private:
  Tensor(std::shared_ptr<Storage> storage, Shape shape, Strides strides, std::int64_t offset, DType dtype);
  Tensor with_layout(Shape shape, Strides strides, std::int64_t offset) const;

  std::shared_ptr<Storage> m_storage;
  Shape m_shape;
  Strides m_strides;
  std::int64_t m_offset = 0;  // in elements
  DType m_dtype = DType::f32;
};

// dst[...] = src converted to dst's dtype, in place (NumPy's copyto): src broadcasts to dst's shape, both
// are on one device, dst is any writable view. Views of one storage are handled as if src were read first.
ACC_API void copy_into(const Tensor& src, const Tensor& dst);

}  // namespace accelera
