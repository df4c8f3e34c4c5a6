// Fuzzes the whole open-and-map path: each input is written to a file and opened with MappedNpy::open.
// It must either throw ValueError or DTypeError naming the file, or map a 2-D float32/float64 tensor whose
// every element lies inside the file; every element is read, so an extent past the mapping crashes.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "accelera/core/error.hpp"
#include "npy.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

// The input goes to an anonymous in-memory file (memfd), opened by its /proc/self/fd path: no disk I/O per
// input, and nothing is left behind when the process ends, however it ends.
struct Scratch {
  int fd;
  std::string path;
};

const Scratch& scratch() {
  static const Scratch file = [] {
    const int fd = ::memfd_create("accelera-fuzz.npy", MFD_CLOEXEC);
    require(fd >= 0);
    return Scratch{fd, "/proc/self/fd/" + std::to_string(fd)};
  }();
  return file;
}

void write_scratch(const std::uint8_t* data, std::size_t size) {
  const int fd = scratch().fd;
  require(::ftruncate(fd, static_cast<off_t>(size)) == 0);
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    require(n > 0);
    done += static_cast<std::size_t>(n);
  }
}

template <typename T>
double sum_elements(const accelera::Tensor& t) {
  const T* base = t.data<T>();
  double sum = 0;
  for (std::int64_t i = 0; i < t.shape()[0]; ++i) {
    for (std::int64_t j = 0; j < t.shape()[1]; ++j) sum += base[i * t.strides()[0] + j * t.strides()[1]];
  }
  return sum;
}

void check_mapping(const accelera::cli::MappedNpy& file, std::size_t size) {
  const accelera::Tensor& t = file.tensor();
  require(t.ndim() == 2 && t.shape()[0] >= 0 && t.shape()[1] >= 0);
  require(t.dtype() == accelera::DType::f32 || t.dtype() == accelera::DType::f64);
  require(file.bytes().size() == size);
  const std::size_t element = t.dtype() == accelera::DType::f32 ? 4 : 8;
  const auto* begin = static_cast<const unsigned char*>(t.data_ptr());
  const std::size_t offset = static_cast<std::size_t>(begin - file.bytes().data());
  require(begin >= file.bytes().data() && offset <= size);
  const auto count = static_cast<std::size_t>(t.shape()[0]) * static_cast<std::size_t>(t.shape()[1]);
  require(count * element <= size - offset);
  require(offset + count * element + file.trailing_bytes() == size);
  if (element == 4) {
    static_cast<void>(sum_elements<float>(t));
  } else {
    static_cast<void>(sum_elements<double>(t));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = scratch().path;
  write_scratch(data, size);
  try {
    const auto file = accelera::cli::MappedNpy::open(path);
    check_mapping(*file, size);
  } catch (const accelera::ValueError& error) {
    require(std::string_view(error.what()).find(path) != std::string_view::npos);
  } catch (const accelera::DTypeError& error) {
    require(std::string_view(error.what()).find(path) != std::string_view::npos);
  }
  return 0;
}
