#include "npy.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "accelera/core/error.hpp"
#include "npy_format.hpp"

namespace accelera::cli {

namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

}  // namespace

std::unique_ptr<MappedNpy> MappedNpy::open(const std::string& path) {
  std::unique_ptr<MappedNpy> f(new MappedNpy());
  f->m_path = path;
  f->m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ACC_CHECK(f->m_fd >= 0, ValueError, "cannot open {}: {}", path, std::strerror(errno));
  struct stat st {};
  ACC_CHECK(::fstat(f->m_fd, &st) == 0, ValueError, "cannot stat {}: {}", path, std::strerror(errno));
  ACC_CHECK(S_ISREG(st.st_mode), ValueError, "{} is not a regular file", path);
  f->m_identity = {path, {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)}};
  ACC_CHECK(st.st_size > 0, ValueError, "{} is not a .npy file (it is empty)", path);
  f->m_map_bytes = static_cast<std::size_t>(st.st_size);
  f->m_map = ::mmap(nullptr, f->m_map_bytes, PROT_READ, MAP_SHARED, f->m_fd, 0);
  if (f->m_map == MAP_FAILED) {
    f->m_map = nullptr;
    throw ValueError(fmt::format("cannot map {}: {}", path, std::strerror(errno)));
  }
  const NpyLayout layout = read_npy_layout(f->bytes(), path);
  const std::vector<std::int64_t>& dims = layout.header.shape;
  ACC_CHECK(dims.size() == 2, ShapeError, "{}: a matrix file must be 2-D, got shape {}", path, shape_text(dims));
  // numpy.save aligns the data to 64 bytes; a file written otherwise may not even align its elements.
  ACC_CHECK(layout.data_offset % dtype_size(layout.header.dtype) == 0, ValueError,
            "{}: the data starts at byte {}, which is not a multiple of the element size; save the file with "
            "numpy.save",
            path, layout.data_offset);
  f->m_trailing_bytes = layout.trailing_bytes;
  const Shape shape(dims);
  const Strides strides = layout.header.fortran_order ? Strides{1, dims[0]} : shape.contiguous_strides();
  f->m_tensor = Tensor::from_blob(
      static_cast<char*>(f->m_map) + layout.data_offset, shape, strides, layout.header.dtype, Device::cpu(), [] {},
      /*read_only=*/true);
  return f;
}

std::unique_ptr<MappedNpy> MappedNpy::create(const std::string& path, std::int64_t rows, std::int64_t cols, DType dtype,
                                             std::initializer_list<const MappedNpy*> inputs) {
  ACC_CHECK(rows >= 0 && cols >= 0, ShapeError, "an output of shape ({}, {}) cannot be written", rows, cols);
  const NpyHeader header{dtype, false, {rows, cols}};
  const std::string prefix = npy_file_prefix(header);
  const std::size_t data_bytes = npy_data_bytes(header, path);  // below 2^63: the sum cannot overflow
  std::vector<InputFile> input_files;
  for (const MappedNpy* input : inputs) input_files.push_back(input->identity());

  std::unique_ptr<MappedNpy> f(new MappedNpy());
  f->m_path = path;
  f->m_output = OutputFile::create(path, prefix.size() + data_bytes, std::move(input_files));
  f->m_map_bytes = prefix.size() + data_bytes;
  f->m_map = ::mmap(nullptr, f->m_map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, f->m_output->fd(), 0);
  if (f->m_map == MAP_FAILED) {
    f->m_map = nullptr;
    throw ValueError(fmt::format("cannot map the output {}: {}", f->m_output->temporary_path(), std::strerror(errno)));
  }
  auto* bytes = static_cast<char*>(f->m_map);
  std::memcpy(bytes, prefix.data(), prefix.size());
  const Shape shape({rows, cols});
  f->m_tensor =
      Tensor::from_blob(bytes + prefix.size(), shape, shape.contiguous_strides(), dtype, Device::cpu(), [] {});
  return f;
}

const std::string& MappedNpy::temporary_path() const {
  ACC_ASSERT(m_output != nullptr, "{} is an input: it has no temporary", m_path);
  return m_output->temporary_path();
}

void MappedNpy::sync() {
  ACC_ASSERT(m_output != nullptr, "{} is an input: it cannot be written", m_path);
  ACC_CHECK(::msync(m_map, m_map_bytes, MS_SYNC) == 0, ValueError, "cannot write the output {} to disk: {}", m_path,
            std::strerror(errno));
}

void MappedNpy::commit() {
  sync();
  m_output->commit();
}

MappedNpy::~MappedNpy() {
  m_tensor = Tensor();
  if (m_map != nullptr) ::munmap(m_map, m_map_bytes);
  if (m_fd >= 0) ::close(m_fd);
  // m_output, destroyed after this body, removes an uncommitted temporary.
}

}  // namespace accelera::cli
