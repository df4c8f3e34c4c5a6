#pragma once
// The interface every device backend implements, and the registry that finds them.
// Note [Backend contract]: ops validate everything (shapes, dtypes, devices) before calling a backend,
// allocate the outputs, and broadcast inputs to the output shape with stride-0 views. A backend kernel
// may therefore assume: all tensors are on one of its devices, have the dtypes the op promised, and
// have matching shapes. Kernels must handle any strides (zero and negative included).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "accelera/core/allocator.hpp"
#include "accelera/core/device.hpp"
#include "accelera/core/tensor.hpp"
#include "accelera/kernel.hpp"
#include "accelera/nn_types.hpp"

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

enum class BinaryOp { add, subtract, multiply, divide };
enum class UnaryOp { neg, exp, log, tanh, relu, sigmoid };
enum class ReduceOp { sum, mean, max };

// Note [Streams and events]
// Every device offers three in-order streams (queues): `compute` runs kernels, `upload` host->device copies,
// `download` device->host copies. Work on one stream runs in order; across streams, only events order it:
// record an event after work on one stream and make another stream wait for it. Kernels (the op methods
// below) are enqueued on `compute` and may still be running when they return. The synchronous copies
// (copy_from_host, copy_to_host) wait for everything queued on `compute` first, so code that uses only
// them and the ops never sees a race. On the CPU everything runs at once and events are always complete.
enum class Stream : int { compute = 0, upload = 1, download = 2 };

// A point in a stream's work. Backends derive from it.
class Event {
 public:
  virtual ~Event() = default;
  virtual void synchronize() = 0;  // blocks the host until the work before the event has finished
  virtual bool query() = 0;        // true once that work has finished
};
using EventPtr = std::shared_ptr<Event>;

// Host memory for staging transfers: page-locked (pinned) where the device API offers it, so copies run at
// full bus speed and asynchronously; plain aligned memory elsewhere. Backends derive from it.
class HostBuffer {
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

std::string_view binary_op_name(BinaryOp op) noexcept;
std::string_view unary_op_name(UnaryOp op) noexcept;
std::string_view reduce_op_name(ReduceOp op) noexcept;

class Backend {
 public:
  virtual ~Backend() = default;
  virtual DeviceKind kind() const noexcept = 0;
  virtual int device_count() const noexcept = 0;
  virtual DeviceInfo device_info(int index) const = 0;
  // Total memory in bytes; the allocator's default budget is a fraction of it.
  virtual std::int64_t total_memory(int index) const = 0;
  virtual RawAllocator& raw_allocator(int index) = 0;

  // Copies between host memory and a contiguous tensor on one of this backend's devices. Device memory
  // is addressed through the tensor (storage handle + offset): on some APIs it is not a pointer.
  virtual void copy_from_host(const Tensor& dst, const void* src) = 0;
  virtual void copy_to_host(void* dst, const Tensor& src) = 0;
  virtual void synchronize(int index) = 0;

  // Asynchronous copies (see Note [Streams and events]): enqueued on `stream` and ordered only by it; the
  // host memory must stay valid and untouched until an event recorded after the copy has completed. `dst`
  // and `src` are contiguous tensors on this backend's devices.
  virtual void copy_from_host_async(const Tensor& dst, const void* src, Stream stream) = 0;
  virtual void copy_to_host_async(void* dst, const Tensor& src, Stream stream) = 0;
  virtual EventPtr record_event(int index, Stream stream) = 0;
  // Work enqueued on `stream` after this call starts only once `event` has completed.
  virtual void stream_wait(int index, Stream stream, const Event& event) = 0;
  virtual void synchronize_stream(int index, Stream stream) = 0;
  // Staging memory for transfers to and from device `index` (pinned where possible). Throws
  // OutOfMemoryError when the host cannot provide it.
  virtual std::unique_ptr<HostBuffer> allocate_host(int index, std::size_t nbytes) = 0;

  // Whether copy() accepts src and dst on two different devices of this backend (a direct device-to-device
  // path, such as CUDA peer copies). Tensor::to stages through the host where it does not.
  virtual bool copies_between_devices() const noexcept { return false; }
  // Whether the element-wise, reduction and matmul kernels compute `dtype`. Every backend computes float32,
  // float64, int32 and int64; CUDA also computes float16 and bfloat16 (in float32 arithmetic). Ops raise
  // DTypeError for the others.
  virtual bool computes(DType dtype) const noexcept;

  // Kernels (see Note [Backend contract]).
  // dst = src converted to dst's dtype; same shape, any strides on both sides.
  virtual void copy(const Tensor& src, const Tensor& dst) = 0;
  virtual void fill(const Tensor& dst, double value) = 0;
  // a: (..., M, K), b: (..., K, N), out: (..., M, N), all batch extents equal; a dtype computes() accepts
  // (float16 and bfloat16 accumulate in float32).
  virtual void matmul(const Tensor& a, const Tensor& b, const Tensor& out) = 0;
  // out += a @ b for 2-D a, b, out (the out-of-core engine accumulates over K this way). Backends without
  // it raise NotSupportedError.
  virtual void matmul_accumulate(const Tensor& a, const Tensor& b, const Tensor& out);
  virtual void binary(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) = 0;
  virtual void unary(UnaryOp op, const Tensor& x, const Tensor& out) = 0;
  // out has x's rank with the reduced axes of extent 1; axes are sorted and unique.
  virtual void reduce(ReduceOp op, const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) = 0;

  // Builds a user kernel from source (see accelera/kernel.hpp). Backends without run-time compilation
  // raise NotSupportedError.
  virtual std::shared_ptr<CompiledKernel> compile_kernel(int index, const std::string& name,
                                                         const std::string& source, const std::string& options);

  // ---- Fused neural-network kernels ---------------------------------------------------------------
  // Note [Fused kernel contract]: unlike the element-wise kernels above, these receive C-contiguous
  // tensors (their offsets may be non-zero) of one floating dtype, shapes already checked by ops/nn,
  // outputs freshly allocated. "rows" means all leading axes flattened. The defaults (in
  // backends/fused_defaults.cpp) throw NotSupportedError naming the op and the backend, so a backend
  // without them builds and says so. Backends that implement them override has_fused_kernels().
  virtual bool has_fused_kernels() const noexcept { return false; }
  // Names of the device programs built so far on device `index` (run-time compiled backends); empty
  // where kernels are compiled ahead of time.
  virtual std::vector<std::string> compiled_kernels(int index) const;
  // out = GELU(x + bias); x, out: (rows, n); bias: (n) or undefined.
  virtual void gelu(const Tensor& x, const Tensor& bias, GeluApproximation approximation, const Tensor& out);
  // dx = grad * GELU'(x); all (rows, n).
  virtual void gelu_backward(const Tensor& grad, const Tensor& x, GeluApproximation approximation,
                             const Tensor& dx);
  // out = GELU(x @ weight^T + bias); x: (rows, in), weight: (out_features, in), bias: (out_features) or
  // undefined, out: (rows, out_features).
  virtual void linear_gelu(const Tensor& x, const Tensor& weight, const Tensor& bias,
                           GeluApproximation approximation, const Tensor& out);
  // Over the last axis of x: (rows, n). weight, bias: (n) or undefined; mean, rstd: (rows).
  virtual void layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, const Tensor& out,
                          const Tensor& mean, const Tensor& rstd);
  // dx: (rows, n); dweight, dbias: (n), or undefined when weight (resp. bias) was not given.
  virtual void layer_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& mean,
                                   const Tensor& rstd, const Tensor& dx, const Tensor& dweight,
                                   const Tensor& dbias);
  // Softmax (or log-softmax when `log`) over the last axis of (rows, n).
  virtual void softmax(const Tensor& x, bool log, const Tensor& out);
  // y is the forward result (softmax or log-softmax); dx = its vector-Jacobian product with grad.
  virtual void softmax_backward(const Tensor& grad, const Tensor& y, bool log, const Tensor& dx);
  // q: (bh, lq, d), k and v: (bh, lk, d), out: (bh, lq, d), lse: (bh, lq) in the compute precision
  // (float32 for the half types). See Note [Attention] in ops/nn/attention.cpp for the causal alignment.
  virtual void attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale, bool causal,
                         const Tensor& out, const Tensor& lse);
  virtual void attention_backward(const Tensor& grad, const Tensor& q, const Tensor& k, const Tensor& v,
                                  const Tensor& out, const Tensor& lse, double scale, bool causal, const Tensor& dq,
                                  const Tensor& dk, const Tensor& dv);
  // ---- end of fused neural-network kernels --------------------------------------------------------
};

// The backend serving a device. Throws DeviceError saying "built without X support", "no X device
// found" or that the index is out of range.
Backend& backend_for(const Device& device);
// Every device that answers now, CPU first.
std::vector<DeviceInfo> devices();
// Why a device kind is absent ("built without CUDA support", "no CUDA device found: <the runtime's
// reason>"); empty when it is present.
std::string backend_absent_reason(DeviceKind kind);
// Names of the backends compiled into this build ("cpu", ...).
std::vector<std::string> compiled_backends();
// The device Accelera picks when none is given: the first GPU or accelerator, else the CPU.
Device default_device();

// Memory helpers over allocator_for(device).
MemoryStats memory_stats(const Device& device);
void empty_cache(const Device& device);
// Sets a device's budget in bytes; throws ValueError when not positive.
void set_memory_budget(const Device& device, std::int64_t bytes);

}  // namespace accelera
