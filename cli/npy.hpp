#pragma once
// .npy files (NumPy's format, versions 1.0-3.0) memory-mapped as 2-D tensors: little-endian float32 or
// float64, C or Fortran order. Inputs are mapped read-only; outputs are created at their final size and
// mapped shared, so results go straight to disk and matrices larger than RAM work.
#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "accelera/core/tensor.hpp"

namespace accelera::cli {

class MappedNpy {
 public:
  // Maps an existing file read-only. Throws ValueError (ShapeError, DTypeError) naming the file and what is
  // wrong with it: not a .npy file, a malformed header, not 2-D, a dtype other than '<f4' or '<f8', shorter
  // than its shape says.
  static std::unique_ptr<MappedNpy> open(const std::string& path);
  // Creates (or replaces) a C-order 2-D file of the given shape and dtype.
  static std::unique_ptr<MappedNpy> create(const std::string& path, std::int64_t rows, std::int64_t cols, DType dtype);
  ~MappedNpy();
  MappedNpy(const MappedNpy&) = delete;
  MappedNpy& operator=(const MappedNpy&) = delete;

  const Tensor& tensor() const noexcept { return m_tensor; }
  const std::string& path() const noexcept { return m_path; }
  // Bytes after the data, which numpy.load ignores too (inputs).
  std::size_t trailing_bytes() const noexcept { return m_trailing_bytes; }
  // The whole mapping: header and data.
  std::span<const unsigned char> bytes() const noexcept {
    return {static_cast<const unsigned char*>(m_map), m_map_bytes};
  }
  void flush();

 private:
  MappedNpy() = default;
  std::string m_path;
  void* m_map = nullptr;
  std::size_t m_map_bytes = 0;
  std::size_t m_trailing_bytes = 0;
  int m_fd = -1;
  Tensor m_tensor;
};

}  // namespace accelera::cli
