#include "dlpack.hpp"

#include <cstdio>
#include <cstring>

#include <fmt/format.h>
#include <vector>

#include "accelera/core/error.hpp"
#include "accelera/core/registry.hpp"

namespace accelera::python {

namespace {

constexpr const char* kLegacyName = "dltensor";
constexpr const char* kVersionedName = "dltensor_versioned";

DLDataType to_dl_dtype(DType dtype) {
  switch (dtype) {
    case DType::f32: return {2, 32, 1};
    case DType::f64: return {2, 64, 1};
    case DType::f16: return {2, 16, 1};
    case DType::bf16: return {4, 16, 1};
    case DType::i32: return {0, 32, 1};
    case DType::i64: return {0, 64, 1};
    case DType::i8: return {0, 8, 1};
    case DType::i16: return {0, 16, 1};
    case DType::u8: return {1, 8, 1};
    case DType::u16: return {1, 16, 1};
    case DType::u32: return {1, 32, 1};
    case DType::u64: return {1, 64, 1};
    case DType::boolean: return {6, 8, 1};
    case DType::c64: return {5, 64, 1};
    case DType::c128: return {5, 128, 1};
  }
  return {0, 0, 0};
}

DType from_dl_dtype(DLDataType t) {
  ACC_CHECK(t.lanes == 1, DTypeError, "DLPack tensors with {} vector lanes are not supported", t.lanes);
  if (t.code == 2 && t.bits == 32) return DType::f32;
  if (t.code == 2 && t.bits == 64) return DType::f64;
  if (t.code == 2 && t.bits == 16) return DType::f16;
  if (t.code == 4 && t.bits == 16) return DType::bf16;
  if (t.code == 0 && t.bits == 8) return DType::i8;
  if (t.code == 0 && t.bits == 16) return DType::i16;
  if (t.code == 0 && t.bits == 32) return DType::i32;
  if (t.code == 0 && t.bits == 64) return DType::i64;
  if (t.code == 1 && t.bits == 8) return DType::u8;
  if (t.code == 1 && t.bits == 16) return DType::u16;
  if (t.code == 1 && t.bits == 32) return DType::u32;
  if (t.code == 1 && t.bits == 64) return DType::u64;
  if (t.code == 6 && t.bits == 8) return DType::boolean;
  if (t.code == 5 && t.bits == 64) return DType::c64;
  if (t.code == 5 && t.bits == 128) return DType::c128;
  throw DTypeError(fmt::format("DLPack dtype (code {}, {} bits) is not one of Accelera's dtypes "
                               "(float16/32/64, bfloat16, int8/16/32/64, uint8/16/32/64, bool, complex64/128)",
                               t.code, t.bits));
}

// Owns what an exported DLTensor points at: the tensor (and so its storage) and the shape arrays.
struct ExportContext {
  Tensor tensor;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
};

template <typename Managed>
void fill_dltensor(Managed* managed, ExportContext* ctx) {
  const Tensor& t = ctx->tensor;
  DLTensor& dl = managed->dl_tensor;
  dl.device = dlpack_device_of(t);
  // Host memory is addressed directly; device memory (an OpenCL cl_mem, say) as handle + byte offset.
  if (t.device().is_cpu()) {
    dl.data = t.data_ptr();
    dl.byte_offset = 0;
  } else {
    dl.data = t.storage()->data();
    dl.byte_offset = static_cast<std::uint64_t>(t.offset()) * t.itemsize();
  }
  dl.ndim = static_cast<std::int32_t>(t.ndim());
  dl.dtype = to_dl_dtype(t.dtype());
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  managed->manager_ctx = ctx;
}

void delete_legacy(DLManagedTensor* self) {
  delete static_cast<ExportContext*>(self->manager_ctx);
  delete self;
}

void delete_versioned(DLManagedTensorVersioned* self) {
  delete static_cast<ExportContext*>(self->manager_ctx);
  delete self;
}

// Capsule destructors: only an unconsumed capsule still owns its tensor.
void legacy_capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kLegacyName)) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kLegacyName));
    if (m != nullptr && m->deleter != nullptr) m->deleter(m);
  }
}

void versioned_capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kVersionedName)) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kVersionedName));
    if (m != nullptr && m->deleter != nullptr) m->deleter(m);
  }
}

// Host memory (pinned CUDA host memory included) is the CPU's; CUDA device memory is imported where this
// build has the CUDA backend and the device answers (device_interface throws DeviceError saying why not).
Device device_of(const DLDevice& dl) {
  if (dl.device_type == kDLCPU || dl.device_type == kDLCUDAHost) return Device::cpu();
  ACC_CHECK(dl.device_type == kDLCUDA, DeviceError,
            "DLPack tensor on device type {} (id {}): Accelera imports host and CUDA memory", dl.device_type,
            dl.device_id);
  const Device device{DeviceKind::cuda, dl.device_id};
  const DeviceInterface& cuda = device_interface(device);
  ACC_CHECK(dl.device_id >= 0 && dl.device_id < cuda.device_count(), DeviceError,
            "DLPack tensor on cuda:{}, which does not answer here", dl.device_id);
  return device;
}

// Borrowed CUDA memory goes back to its owner (whose allocator may hand it out at once to work on another
// stream) only after the kernels queued on it here have finished.
std::function<void()> after_compute_stream(const Device& device, std::function<void()> release) {
  return [device, release = std::move(release)]() {
    try {
      device_interface(device).synchronize_stream(device.index, Stream::compute);
    } catch (const Error& e) {
      // A destructor cannot throw: say what happened, then give the memory back all the same.
      std::fputs(fmt::format("accelera: waiting for {} before returning a borrowed DLPack tensor failed: {}\n",
                             device.str(), e.what()).c_str(), stderr);
    }
    release();
  };
}

Tensor wrap(const DLTensor& dl, bool read_only, std::function<void()> release) {
  ACC_CHECK(dl.ndim >= 0, ValueError, "DLPack tensor with negative ndim {}", dl.ndim);
  const DType dtype = from_dl_dtype(dl.dtype);
  const Device device = device_of(dl.device);
  std::vector<std::int64_t> dims(dl.shape, dl.shape + dl.ndim);
  const Shape shape(dims);
  Strides strides = dl.strides != nullptr ? Strides(dl.strides, dl.strides + dl.ndim) : shape.contiguous_strides();
  ACC_CHECK(dl.byte_offset % dtype_size(dtype) == 0 || dl.data == nullptr, ValueError,
            "DLPack byte_offset {} is not a multiple of the element size", dl.byte_offset);
  void* data = dl.data == nullptr ? nullptr : static_cast<char*>(dl.data) + dl.byte_offset;
  if (device.kind == DeviceKind::cuda) release = after_compute_stream(device, std::move(release));
  return Tensor::from_blob(data, shape, strides, dtype, device, std::move(release), read_only);
}

}  // namespace

DLDevice dlpack_device_of(const Tensor& tensor) {
  const Device& d = tensor.device();
  switch (d.kind) {
    case DeviceKind::cpu: return {kDLCPU, 0};
    case DeviceKind::cuda: return {kDLCUDA, d.index};
    case DeviceKind::opencl: return {kDLOpenCL, d.index};
  }
  return {kDLCPU, 0};
}

bool is_read_only_export(const Tensor& tensor) {
  if (tensor.storage()->is_read_only()) return true;
  for (std::int64_t i = 0; i < tensor.ndim(); ++i) {
    if (tensor.strides()[static_cast<std::size_t>(i)] == 0 && tensor.shape()[i] > 1) return true;
  }
  return false;
}

PyObject* to_dlpack_capsule(const Tensor& tensor, bool versioned, bool copied) {
  auto ctx = std::make_unique<ExportContext>();
  ctx->tensor = tensor;
  ctx->shape = tensor.shape().dims();
  ctx->strides = tensor.strides();
  if (versioned) {
    auto* m = new DLManagedTensorVersioned{};
    m->version = {1, 0};
    m->deleter = delete_versioned;
    m->flags = (is_read_only_export(tensor) ? kDLFlagReadOnly : 0) | (copied ? kDLFlagIsCopied : 0);
    fill_dltensor(m, ctx.release());
    PyObject* capsule = PyCapsule_New(m, kVersionedName, versioned_capsule_destructor);
    if (capsule == nullptr) delete_versioned(m);
    return capsule;
  }
  auto* m = new DLManagedTensor{};
  m->deleter = delete_legacy;
  fill_dltensor(m, ctx.release());
  PyObject* capsule = PyCapsule_New(m, kLegacyName, legacy_capsule_destructor);
  if (capsule == nullptr) delete_legacy(m);
  return capsule;
}

Tensor from_dlpack_capsule(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kVersionedName)) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kVersionedName));
    ACC_CHECK(m->version.major == 1, NotSupportedError, "DLPack major version {} is not supported (expected 1)",
              m->version.major);
    Tensor t = wrap(m->dl_tensor, (m->flags & kDLFlagReadOnly) != 0, [m]() {
      if (m->deleter != nullptr) m->deleter(m);
    });
    PyCapsule_SetName(capsule, "used_dltensor_versioned");
    return t;
  }
  if (PyCapsule_IsValid(capsule, kLegacyName)) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kLegacyName));
    Tensor t = wrap(m->dl_tensor, false, [m]() {
      if (m->deleter != nullptr) m->deleter(m);
    });
    PyCapsule_SetName(capsule, "used_dltensor");
    return t;
  }
  throw ValueError("from_dlpack: expected an unconsumed 'dltensor' or 'dltensor_versioned' capsule");
}

}  // namespace accelera::python
