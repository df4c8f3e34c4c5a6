// Reading and writing safetensors files (include/accelera/nn/safetensors.hpp).
#include "accelera/nn/safetensors.hpp"

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "accelera/core/error.hpp"
#include "atomic_file.hpp"

namespace accelera::nn::safetensors {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");

namespace {

constexpr std::uint64_t kMaxHeader = 100ull << 20;

const std::map<DType, std::string>& codes() {
  static const std::map<DType, std::string> table{
      {DType::f64, "F64"}, {DType::f32, "F32"}, {DType::f16, "F16"}, {DType::i64, "I64"}, {DType::i32, "I32"},
      {DType::i16, "I16"}, {DType::i8, "I8"},   {DType::u8, "U8"},   {DType::boolean, "BOOL"}};
  return table;
}

DType dtype_of_code(const std::string& code, const std::string& path, const std::string& name) {
  for (const auto& [dtype, c] : codes())
    if (c == code) return dtype;
  throw ValueError(fmt::format("{}: tensor {} has dtype {}, which Accelera does not read", path, name, code));
}

}  // namespace

void save_file(const std::map<std::string, Tensor>& tensors, const std::string& path,
               const std::map<std::string, std::string>& metadata) {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::vector<Tensor> host;
  std::uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {  // std::map: sorted names, as Python writes them
    if (!tensor.defined()) throw ValueError(fmt::format("safetensors: tensor {} is undefined", name));
    auto code = codes().find(tensor.dtype());
    if (code == codes().end())
      throw ValueError(fmt::format("safetensors cannot store {} (tensor {})", dtype_name(tensor.dtype()), name));
    Tensor t = tensor.to(Device::cpu()).contiguous();
    header[name] = {{"dtype", code->second}, {"shape", t.shape().dims()}, {"data_offsets", {offset, offset + t.nbytes()}}};
    offset += t.nbytes();
    host.push_back(std::move(t));
  }
  std::string encoded = header.dump();
  encoded.append((8 - encoded.size() % 8) % 8, ' ');  // the format aligns the data to 8 bytes

  detail::write_file_atomically(path, [&](const detail::FileWriter& out) {
    const std::uint64_t length = encoded.size();
    out.write(&length, sizeof length);
    out.write(encoded.data(), encoded.size());
    for (const auto& t : host) out.write(t.data_ptr(), t.nbytes());
  });
}

File load_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ValueError(fmt::format("cannot open {}", path));
  std::uint64_t length = 0;
  in.read(reinterpret_cast<char*>(&length), sizeof length);
  const auto file_size = std::filesystem::file_size(path);
  if (!in || file_size < 8) throw ValueError(fmt::format("{}: not a safetensors file (shorter than its header length)", path));
  if (length > std::min<std::uint64_t>(kMaxHeader, file_size - 8))
    throw ValueError(fmt::format("{}: header length {} exceeds the file", path, length));
  std::string text(length, '\0');
  in.read(text.data(), static_cast<std::streamsize>(length));
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw ValueError(fmt::format("{}: the header is not JSON ({})", path, e.what()));
  }
  if (!header.is_object()) throw ValueError(fmt::format("{}: the header is not a JSON object", path));
  const std::uint64_t data_start = 8 + length, data_bytes = file_size - data_start;
  File out;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_null()) {
        if (!entry.is_object()) throw ValueError(fmt::format("{}: __metadata__ is not an object", path));
        for (const auto& [key, value] : entry.items()) {
          if (!value.is_string()) throw ValueError(fmt::format("{}: metadata {} is not a string", path, key));
          out.metadata[key] = value.get<std::string>();
        }
      }
      continue;
    }
    DType dtype;
    std::vector<std::int64_t> dims;
    std::uint64_t begin = 0, end = 0;
    try {
      dtype = dtype_of_code(entry.at("dtype").get<std::string>(), path, name);
      dims = entry.at("shape").get<std::vector<std::int64_t>>();
      auto offsets = entry.at("data_offsets").get<std::vector<std::uint64_t>>();
      if (offsets.size() != 2) throw ValueError("two offsets");
      begin = offsets[0];
      end = offsets[1];
    } catch (const nlohmann::json::exception&) {
      throw ValueError(fmt::format("{}: bad header entry for {}: {}", path, name, entry.dump()));
    }
    for (auto d : dims)
      if (d < 0) throw ValueError(fmt::format("{}: tensor {} has a negative extent", path, name));
    const Shape shape(dims);
    const std::uint64_t bytes = static_cast<std::uint64_t>(shape.numel()) * dtype_size(dtype);
    if (begin > end || end > data_bytes || end - begin != bytes)
      throw ValueError(fmt::format("{}: {} claims bytes [{}, {}) for {} {} values in {} bytes of data", path, name, begin,
                                   end, shape.numel(), dtype_name(dtype), data_bytes));
    Tensor t = Tensor::empty(shape, dtype);
    in.seekg(static_cast<std::streamoff>(data_start + begin));
    in.read(static_cast<char*>(t.data_ptr()), static_cast<std::streamsize>(bytes));
    if (!in) throw ValueError(fmt::format("{}: cannot read the bytes of {}", path, name));
    out.tensors.emplace(name, std::move(t));
  }
  return out;
}

}  // namespace accelera::nn::safetensors
