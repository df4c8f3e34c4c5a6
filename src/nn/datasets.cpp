// Local data sets (include/accelera/nn/datasets.hpp).
#include "accelera/nn/datasets.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "accelera/core/error.hpp"

namespace accelera::nn::datasets {

namespace {

constexpr const char* kDebianDirectory = "/usr/share/datasets/fashion-mnist";

// zlib's gzip reader, loaded at run time: libz.so.1 is on every Linux system (Debian marks it required), while
// its headers are a development package that a bare GPU machine may lack. gzread reads uncompressed files
// as they are, so one path serves both. These four functions are zlib's stable ABI since 1.2.
struct GzipReader {
  using Open = void* (*)(const char*, const char*);
  using Read = int (*)(void*, void*, unsigned);
  using Close = int (*)(void*);
  using Message = const char* (*)(void*, int*);
  Open open = nullptr;
  Read read = nullptr;
  Close close = nullptr;
  Message message = nullptr;

  static const GzipReader& get() {
    static const GzipReader reader = [] {
      GzipReader r;
      void* library = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);  // kept loaded for the process
      if (!library) throw ValueError(fmt::format("reading Fashion-MNIST's gzipped files needs zlib (libz.so.1): {}", dlerror()));
      r.open = reinterpret_cast<Open>(dlsym(library, "gzopen"));
      r.read = reinterpret_cast<Read>(dlsym(library, "gzread"));
      r.close = reinterpret_cast<Close>(dlsym(library, "gzclose"));
      r.message = reinterpret_cast<Message>(dlsym(library, "gzerror"));
      if (!r.open || !r.read || !r.close || !r.message) throw ValueError("libz.so.1 lacks gzopen, gzread, gzclose or gzerror");
      return r;
    }();
    return reader;
  }
};

std::vector<unsigned char> read_all(const std::filesystem::path& path) {
  const GzipReader& gz = GzipReader::get();
  void* file = gz.open(path.c_str(), "rb");
  if (!file) throw ValueError(fmt::format("cannot open {}", path.string()));
  std::vector<unsigned char> data;
  std::vector<unsigned char> buffer(1 << 16);
  int n = 0;
  while ((n = gz.read(file, buffer.data(), static_cast<unsigned>(buffer.size()))) > 0)
    data.insert(data.end(), buffer.begin(), buffer.begin() + n);
  int code = 0;
  const std::string message = n < 0 ? gz.message(file, &code) : "";
  gz.close(file);
  if (n < 0) throw ValueError(fmt::format("{}: corrupt gzip data ({})", path.string(), message));
  return data;
}

std::uint32_t big_endian(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

// One IDX file of unsigned bytes with `ndim` dimensions, strictly: its dimensions, payload after them.
std::pair<std::vector<std::int64_t>, std::vector<unsigned char>> read_idx(const std::filesystem::path& path, int ndim) {
  std::vector<unsigned char> data = read_all(path);
  auto bad = [&](const std::string& what) { return ValueError(fmt::format("{}: not a valid IDX file: {}", path.string(), what)); };
  if (data.size() < 4) throw bad(fmt::format("{} bytes, shorter than the 4-byte magic number", data.size()));
  if (data[0] || data[1] || data[2] != 0x08 || data[3] != ndim)
    throw bad(fmt::format("magic number 0x{:08X}, expected 0x{:08X}", big_endian(data.data()), 0x0800 + ndim));
  const std::size_t header = 4 + 4 * static_cast<std::size_t>(ndim);
  if (data.size() < header) throw bad(fmt::format("{} bytes, shorter than the {}-byte header", data.size(), header));
  std::vector<std::int64_t> dims;
  std::size_t expected = 1;
  for (int i = 0; i < ndim; ++i) {
    dims.push_back(big_endian(data.data() + 4 + 4 * i));
    expected *= static_cast<std::size_t>(dims.back());
  }
  if (data.size() - header != expected)
    throw bad(fmt::format("payload of {} bytes, but its dimensions need exactly {}", data.size() - header, expected));
  data.erase(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(header));
  return {dims, std::move(data)};
}

std::filesystem::path locate(const std::filesystem::path& directory, const std::string& name) {
  for (const auto& candidate : {directory / (name + ".gz"), directory / name})
    if (std::filesystem::is_regular_file(candidate)) return candidate;
  throw ValueError(fmt::format("Fashion-MNIST file {} is not in {}: install Debian's dataset-fashion-mnist package "
                               "(apt-get install dataset-fashion-mnist) or set ACCELERA_FASHION_MNIST_DIR",
                               name, directory.string()));
}

Split load_split(const std::filesystem::path& directory, const std::string& prefix) {
  const auto images_path = locate(directory, prefix + "-images-idx3-ubyte");
  const auto labels_path = locate(directory, prefix + "-labels-idx1-ubyte");
  auto [image_dims, pixels] = read_idx(images_path, 3);
  auto [label_dims, labels] = read_idx(labels_path, 1);
  if (image_dims[1] != 28 || image_dims[2] != 28)
    throw ValueError(fmt::format("{}: images of {}x{} pixels, expected 28x28", images_path.string(), image_dims[1], image_dims[2]));
  if (label_dims[0] != image_dims[0])
    throw ValueError(fmt::format("{} has {} labels for {} images", labels_path.string(), label_dims[0], image_dims[0]));
  const std::int64_t n = image_dims[0];
  Split split{Tensor::empty(Shape{n, 784}, DType::f32), Tensor::empty(Shape{n}, DType::i64)};
  float* x = split.x.data<float>();
  for (std::size_t i = 0; i < pixels.size(); ++i) x[i] = static_cast<float>(pixels[i]) / 255.0f;
  std::int64_t* y = split.y.data<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i) {
    if (labels[static_cast<std::size_t>(i)] > 9)
      throw ValueError(fmt::format("{}: label {} of row {} is outside [0, 10)", labels_path.string(), labels[i], i));
    y[i] = labels[static_cast<std::size_t>(i)];
  }
  return split;
}

}  // namespace

LabelledData fashion_mnist(const std::string& root) {
  const char* env = std::getenv("ACCELERA_FASHION_MNIST_DIR");
  const std::filesystem::path directory = !root.empty() ? root : (env && *env ? env : kDebianDirectory);
  if (!std::filesystem::is_directory(directory))
    throw ValueError(fmt::format("Fashion-MNIST: no such directory {}: install Debian's dataset-fashion-mnist "
                                 "package (apt-get install dataset-fashion-mnist) or set ACCELERA_FASHION_MNIST_DIR",
                                 directory.string()));
  return {load_split(directory, "train"), load_split(directory, "t10k")};
}

}  // namespace accelera::nn::datasets
