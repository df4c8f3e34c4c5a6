#include "npy.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <regex>

#include <fmt/format.h>

#include "accelera/core/error.hpp"

namespace accelera::cli {

namespace {

constexpr char kMagic[] = "\x93NUMPY";

std::string dict_value(const std::string& header, const std::string& key) {
  const std::regex re("'" + key + "'\\s*:\\s*('[^']*'|True|False|\\([^)]*\\))");
  std::smatch match;
  if (!std::regex_search(header, match, re)) return {};
  return match[1].str();
}

}  // namespace

std::unique_ptr<MappedNpy> MappedNpy::open(const std::string& path) {
  std::unique_ptr<MappedNpy> f(new MappedNpy());
  f->m_fd = ::open(path.c_str(), O_RDONLY);
  ACC_CHECK(f->m_fd >= 0, ValueError, "cannot open {}: {}", path, std::strerror(errno));
  struct stat st {};
  ACC_CHECK(::fstat(f->m_fd, &st) == 0, ValueError, "cannot stat {}: {}", path, std::strerror(errno));
  f->m_size = static_cast<std::size_t>(st.st_size);
  ACC_CHECK(f->m_size >= 10, ValueError, "{} is not a .npy file (too short)", path);
  f->m_map = ::mmap(nullptr, f->m_size, PROT_READ, MAP_SHARED, f->m_fd, 0);
  ACC_CHECK(f->m_map != MAP_FAILED, ValueError, "cannot map {}: {}", path, std::strerror(errno));
  const auto* bytes = static_cast<const unsigned char*>(f->m_map);
  ACC_CHECK(std::memcmp(bytes, kMagic, 6) == 0, ValueError, "{} is not a .npy file (bad magic)", path);
  const int major = bytes[6];
  std::size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = bytes[8] | (bytes[9] << 8);
    offset = 10;
  } else {
    ACC_CHECK(major == 2 || major == 3, ValueError, "{}: .npy version {} is not supported", path, major);
    header_len = bytes[8] | (bytes[9] << 8) | (static_cast<std::size_t>(bytes[10]) << 16) |
                 (static_cast<std::size_t>(bytes[11]) << 24);
    offset = 12;
  }
  ACC_CHECK(offset + header_len <= f->m_size, ValueError, "{}: truncated header", path);
  const std::string header(reinterpret_cast<const char*>(bytes + offset), header_len);
  const std::string descr = dict_value(header, "descr");
  const std::string order = dict_value(header, "fortran_order");
  const std::string shape_text = dict_value(header, "shape");
  DType dtype;
  if (descr == "'<f4'") {
    dtype = DType::f32;
  } else if (descr == "'<f8'") {
    dtype = DType::f64;
  } else {
    throw DTypeError(fmt::format("{}: dtype {} is not supported (little-endian float32 '<f4' or float64 '<f8')", path,
                                 descr.empty() ? "(none)" : descr));
  }
  std::vector<std::int64_t> dims;
  const std::regex number("\\d+");
  for (auto it = std::sregex_iterator(shape_text.begin(), shape_text.end(), number); it != std::sregex_iterator(); ++it) {
    dims.push_back(std::stoll(it->str()));
  }
  ACC_CHECK(dims.size() == 2, ShapeError, "{}: a matrix file must be 2-D, got shape {}", path, shape_text);
  const std::size_t data_offset = offset + header_len;
  const auto need = static_cast<std::size_t>(dims[0] * dims[1]) * dtype_size(dtype);
  ACC_CHECK(data_offset + need <= f->m_size, ValueError, "{}: file is shorter than its shape says", path);
  const Shape shape(dims);
  const bool fortran = order == "True";
  const Strides strides = fortran ? Strides{1, dims[0]} : shape.contiguous_strides();
  f->m_tensor = Tensor::from_blob(static_cast<char*>(f->m_map) + data_offset, shape, strides, dtype, Device::cpu(),
                                  [] {}, /*read_only=*/true);
  return f;
}

std::unique_ptr<MappedNpy> MappedNpy::create(const std::string& path, std::int64_t rows, std::int64_t cols,
                                             DType dtype) {
  std::unique_ptr<MappedNpy> f(new MappedNpy());
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}, {}), }}",
                                   dtype == DType::f32 ? "<f4" : "<f8", rows, cols);
  // Pad with spaces so that the data starts on a 64-byte boundary; the header ends with a newline.
  const std::size_t prefix = 10;
  const std::size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header.push_back('\n');
  const auto data = static_cast<std::size_t>(rows * cols) * dtype_size(dtype);
  f->m_size = total + data;
  f->m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  ACC_CHECK(f->m_fd >= 0, ValueError, "cannot create {}: {}", path, std::strerror(errno));
  ACC_CHECK(::ftruncate(f->m_fd, static_cast<off_t>(f->m_size)) == 0, ValueError, "cannot size {}: {}", path,
            std::strerror(errno));
  f->m_map = ::mmap(nullptr, f->m_size, PROT_READ | PROT_WRITE, MAP_SHARED, f->m_fd, 0);
  ACC_CHECK(f->m_map != MAP_FAILED, ValueError, "cannot map {}: {}", path, std::strerror(errno));
  auto* bytes = static_cast<char*>(f->m_map);
  std::memcpy(bytes, kMagic, 6);
  bytes[6] = 1;
  bytes[7] = 0;
  const auto len = static_cast<std::uint16_t>(header.size());
  bytes[8] = static_cast<char>(len & 0xff);
  bytes[9] = static_cast<char>(len >> 8);
  std::memcpy(bytes + prefix, header.data(), header.size());
  const Shape shape({rows, cols});
  f->m_tensor = Tensor::from_blob(bytes + total, shape, shape.contiguous_strides(), dtype, Device::cpu(), [] {});
  return f;
}

void MappedNpy::flush() {
  if (m_map != nullptr) {
    ACC_CHECK(::msync(m_map, m_size, MS_SYNC) == 0, ValueError, "cannot write the result to disk: {}",
              std::strerror(errno));
  }
}

MappedNpy::~MappedNpy() {
  m_tensor = Tensor();
  if (m_map != nullptr && m_map != MAP_FAILED) ::munmap(m_map, m_size);
  if (m_fd >= 0) ::close(m_fd);
}


}  // namespace accelera::cli
