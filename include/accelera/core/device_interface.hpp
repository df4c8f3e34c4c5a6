#pragma once
// The small part of a device that differs per device kind: memory, copies, streams and events, device
// information, run-time kernel compilation, and which (op, dtype) pairs it runs. Kernels are not part of it:
// they live in the kernel table (accelera/op_table.hpp), one file per op in every backend.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "accelera/core/allocator.hpp"
#include "accelera/core/device.hpp"
#include "accelera/core/dtype.hpp"
#include "accelera/core/export.hpp"
#include "accelera/core/tensor.hpp"
#include "accelera/kernel.hpp"

namespace accelera {

struct DeviceInfo {
  Device device;
  std::string name;
  std::string vendor;
  std::int64_t total_memory = 0;  // bytes
  std::int64_t free_memory = 0;   // bytes, as the driver or OS reports now
  int compute_units = 0;
  bool is_accelerator = false;  // a GPU or accelerator (not a CPU, even one behind OpenCL)
};

// Note [Streams and events]
// Every device offers three in-order streams (queues): `compute` runs kernels, `upload` host->device copies,
// `download` device->host copies. Work on one stream runs in order; across streams, only events order it:
// record an event after work on one stream and make another stream wait for it. Kernels are enqueued on
// `compute` and may still be running when they return. The synchronous copies (copy_from_host,
// copy_to_host) wait for everything queued on `compute` first, so code that uses only them and the ops
// never sees a race. On the CPU everything runs at once and events are always complete.
enum class Stream : int { compute = 0, upload = 1, download = 2 };

// A point in a stream's work. Device interfaces derive from it.
class ACC_API Event {
 public:
  virtual ~Event() = default;
  virtual void synchronize() = 0;  // blocks the host until the work before the event has finished
  virtual bool query() = 0;        // true once that work has finished
};
using EventPtr = std::shared_ptr<Event>;

// Host memory for staging transfers: page-locked (pinned) where the device API offers it, so copies run at
// full bus speed and asynchronously; plain aligned memory elsewhere. Device interfaces derive from it.
class ACC_API HostBuffer {
 public:
  virtual ~HostBuffer() = default;
  void* data() const noexcept { return m_data; }
  std::size_t size() const noexcept { return m_size; }
  bool pinned() const noexcept { return m_pinned; }

 protected:
  HostBuffer(void* data, std::size_t size, bool pinned) : m_data(data), m_size(size), m_pinned(pinned) {}

 private:
  void* m_data;
  std::size_t m_size;
  bool m_pinned;
};

// One per device kind, serving every device of that kind (index 0 .. device_count() - 1).
class ACC_API DeviceInterface {
 public:
  virtual ~DeviceInterface() = default;
  virtual DeviceKind kind() const noexcept = 0;
  virtual int device_count() const noexcept = 0;
  virtual DeviceInfo device_info(int index) const = 0;
  // Total memory in bytes; the allocator's default budget is a fraction of it.
  virtual std::int64_t total_memory(int index) const = 0;
  virtual RawAllocator& raw_allocator(int index) = 0;

  // Copies between host memory and a contiguous tensor on one of this kind's devices. Device memory is
  // addressed through the tensor (storage handle + offset): on some APIs it is not a pointer.
  virtual void copy_from_host(const Tensor& dst, const void* src) = 0;
  virtual void copy_to_host(void* dst, const Tensor& src) = 0;
  // Waits for all work on every stream of device `index`.
  virtual void synchronize(int index) = 0;

  // Asynchronous copies (see Note [Streams and events]): enqueued on `stream` and ordered only by it; the
  // host memory must stay valid and untouched until an event recorded after the copy has completed. `dst`
  // and `src` are contiguous tensors on this kind's devices.
  virtual void copy_from_host_async(const Tensor& dst, const void* src, Stream stream) = 0;
  virtual void copy_to_host_async(void* dst, const Tensor& src, Stream stream) = 0;
  virtual EventPtr record_event(int index, Stream stream) = 0;
  // Work enqueued on `stream` after this call starts only once `event` has completed.
  virtual void stream_wait(int index, Stream stream, const Event& event) = 0;
  virtual void synchronize_stream(int index, Stream stream) = 0;
  // Staging memory for transfers to and from device `index` (pinned where possible). Throws
  // OutOfMemoryError when the host cannot provide it.
  virtual std::unique_ptr<HostBuffer> allocate_host(int index, std::size_t nbytes) = 0;

  // Whether the copy kernel accepts src and dst on two different devices of this kind (a direct
  // device-to-device path, such as CUDA peer copies). Tensor::to stages through the host where it does not.
  virtual bool copies_between_devices() const noexcept { return false; }

  // The DLPack stream protocol (Note [DLPack streams]): the handle of one of device `index`'s streams as
  // another library names it (0 where the API has no such handle), and making another library's stream
  // (`foreign`, a handle in the same encoding) wait for the work queued on `stream` so far. Backends whose
  // streams other libraries cannot see wait on the host instead.
  virtual std::uintptr_t native_stream(int index, Stream stream);
  virtual void order_before_foreign_stream(int index, Stream stream, std::uintptr_t foreign);

  // Whether device `index` runs `op` on `dtype`: a kernel is registered for this kind and dtype, and the
  // device can compute the dtype (an OpenCL device without float64 cannot).
  bool supports(std::string_view op, DType dtype, int index = 0) const;
  // Whether device `index` can compute `dtype` at all, whatever the op (default: yes).
  virtual bool device_computes(int index, DType dtype) const noexcept;

  // Builds a user kernel from source (see accelera/kernel.hpp). Kinds without run-time compilation raise
  // NotSupportedError.
  virtual std::shared_ptr<CompiledKernel> compile_kernel(int index, const std::string& name,
                                                         const std::string& source, const std::string& options);
  // Names of the device programs built so far on device `index` (run-time compiled kinds); empty where
  // kernels are compiled ahead of time.
  virtual std::vector<std::string> compiled_kernels(int index) const;
};

}  // namespace accelera
