#pragma once
// The DLPack ABI (v1.0; the legacy unversioned struct too), as the DLPack specification defines it,
// and conversions between DLPack tensors and accelera::Tensor.
#include <Python.h>

#include <cstdint>

#include "accelera/core/tensor.hpp"

namespace accelera::python {

extern "C" {
struct DLDevice {
  std::int32_t device_type;
  std::int32_t device_id;
};
struct DLDataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
struct DLPackVersion {
  std::uint32_t major;
  std::uint32_t minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  std::uint64_t flags;
  DLTensor dl_tensor;
};
}

inline constexpr std::int32_t kDLCPU = 1;
inline constexpr std::int32_t kDLCUDA = 2;
inline constexpr std::int32_t kDLCUDAHost = 3;
inline constexpr std::int32_t kDLOpenCL = 4;
inline constexpr std::uint64_t kDLFlagReadOnly = 1;
inline constexpr std::uint64_t kDLFlagIsCopied = 2;

// The (device_type, device_id) pair of __dlpack_device__.
DLDevice dlpack_device_of(const Tensor& tensor);
// Read-only exports: borrowed read-only memory, and views where several indices share an element.
bool is_read_only_export(const Tensor& tensor);
// A new PyCapsule ("dltensor" or "dltensor_versioned") that keeps `tensor` alive until consumed.
PyObject* to_dlpack_capsule(const Tensor& tensor, bool versioned, bool copied);
// Consumes a capsule from a producer's __dlpack__ (renaming it "used_..."), zero-copy.
Tensor from_dlpack_capsule(PyObject* capsule);

}  // namespace accelera::python
