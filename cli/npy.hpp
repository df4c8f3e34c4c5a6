#pragma once
// .npy files (NumPy's format, versions 1-3) memory-mapped as tensors: float32/float64, C or Fortran order,
// little-endian. Inputs are mapped read-only; outputs are created at their final size and mapped shared, so
// results go straight to disk and matrices larger than RAM work.
#include <memory>
#include <string>

#include "accelera/core/tensor.hpp"

namespace accelera::cli {

class MappedNpy {
 public:
  // Maps an existing file; throws ValueError for anything that is not a 2-D float32/float64 .npy.
  static std::unique_ptr<MappedNpy> open(const std::string& path);
  // Creates (or replaces) a C-order 2-D file of the given shape and dtype.
  static std::unique_ptr<MappedNpy> create(const std::string& path, std::int64_t rows, std::int64_t cols, DType dtype);
  ~MappedNpy();
  MappedNpy(const MappedNpy&) = delete;
  MappedNpy& operator=(const MappedNpy&) = delete;

  const Tensor& tensor() const noexcept { return m_tensor; }
  void flush();

 private:
  MappedNpy() = default;
  void* m_map = nullptr;
  std::size_t m_size = 0;
  int m_fd = -1;
  Tensor m_tensor;
};

}  // namespace accelera::cli
