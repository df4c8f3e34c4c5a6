#pragma once
// .npy files (NumPy's format, versions 1.0-3.0) memory-mapped as 2-D tensors: little-endian float32 or
// float64, C or Fortran order. Inputs are mapped read-only. Outputs are mapped temporaries that appear at
// their path only when commit() succeeds (Note [Safe outputs] in output_file.hpp), so results go straight
// to disk, matrices larger than RAM work, and a failed run leaves nothing behind.
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>

#include "accelera/core/tensor.hpp"
#include "output_file.hpp"

namespace accelera::cli {

class MappedNpy {
 public:
  // Maps an existing file read-only. Throws ValueError (ShapeError, DTypeError) naming the file and what is
  // wrong with it: not a .npy file, a malformed header, not 2-D, a dtype other than '<f4' or '<f8', shorter
  // than its shape says.
  static std::unique_ptr<MappedNpy> open(const std::string& path);
  // Starts a C-order 2-D output for `path`, refusing a path that is the same file as one of `inputs`.
  static std::unique_ptr<MappedNpy> create(const std::string& path, std::int64_t rows, std::int64_t cols, DType dtype,
                                           std::initializer_list<const MappedNpy*> inputs);
  // An output not committed is removed.
  ~MappedNpy();
  MappedNpy(const MappedNpy&) = delete;
  MappedNpy& operator=(const MappedNpy&) = delete;

  const Tensor& tensor() const noexcept { return m_tensor; }
  const std::string& path() const noexcept { return m_path; }
  // The file as opened, for the outputs' check that they are not one of their inputs.
  const InputFile& identity() const noexcept { return m_identity; }
  // Bytes after the data, which numpy.load ignores too (inputs).
  std::size_t trailing_bytes() const noexcept { return m_trailing_bytes; }
  // The whole mapping: header and data.
  std::span<const unsigned char> bytes() const noexcept {
    return {static_cast<const unsigned char*>(m_map), m_map_bytes};
  }

  // Outputs: the hidden temporary the data goes to until commit(), and where in it the data starts (other
  // processes of an MPI job write their blocks there).
  const std::string& temporary_path() const;
  std::size_t data_offset() const noexcept {
    return static_cast<std::size_t>(static_cast<const char*>(m_tensor.data_ptr()) - static_cast<const char*>(m_map));
  }

  // Outputs: writes what was written through the mapping to the temporary, now.
  void sync();
  // Outputs: writes the data to disk and renames the file into place (OutputFile::commit).
  void commit();

 private:
  MappedNpy() = default;
  std::string m_path;
  InputFile m_identity;
  void* m_map = nullptr;
  std::size_t m_map_bytes = 0;
  std::size_t m_trailing_bytes = 0;
  int m_fd = -1;                         // inputs
  std::unique_ptr<OutputFile> m_output;  // outputs
  Tensor m_tensor;
};

}  // namespace accelera::cli
