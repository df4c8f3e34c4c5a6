#pragma once
// The safetensors file format (an 8-byte little-endian header length, a JSON header with each tensor's
// dtype, shape and byte range plus string metadata, then the raw little-endian bytes), the format of
// Python's accelera.nn.safetensors: files written by either open in the other, and in the safetensors
// package, PyTorch and JAX. Writing goes to a temporary in the same directory, renamed into place only
// when complete, so an interrupted save never leaves a truncated file under the final name.
#include <map>
#include <string>

#include "accelera/core/export.hpp"
#include "accelera/core/tensor.hpp"

namespace accelera::nn::safetensors {

struct File {
  std::map<std::string, Tensor> tensors;  // on the host
  std::map<std::string, std::string> metadata;
};

// Tensors of float64/32/16, int64/32/16/8, uint8 and bool, from any device (copied to the host).
// Throws ValueError for another dtype, Error when the file cannot be written (the final path untouched).
ACC_API void save_file(const std::map<std::string, Tensor>& tensors, const std::string& path,
                       const std::map<std::string, std::string>& metadata = {});
// Throws ValueError naming the path for a file that is not safetensors or whose header is inconsistent.
ACC_API File load_file(const std::string& path);

}  // namespace accelera::nn::safetensors
