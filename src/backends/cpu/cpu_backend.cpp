#include "backends/cpu/cpu_backend.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "accelera/core/config.hpp"
#include "accelera/core/error.hpp"
#include "backends/cpu/kernels/kernels.hpp"
#include "backends/cpu/kernels/nn_kernels.hpp"

namespace accelera::cpu {

namespace {

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "CPU";
}

// MemAvailable from /proc/meminfo: what the kernel says can be allocated without swapping.
std::int64_t available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::int64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return static_cast<std::int64_t>(sysconf(_SC_AVPHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
}

}  // namespace

void* HostRawAllocator::raw_allocate(std::size_t nbytes) {
  // Large blocks start on a page: element-wise kernels then see their input and output at the same
  // offset within 4 KiB (or, for a NumPy array's 16-byte header, the output just behind the input). An
  // output one vector ahead of its input modulo 4 KiB makes every load wait on the previous iteration's
  // store (4K aliasing), 14% slower for exact GELU.
  const std::size_t align = nbytes >= (std::size_t{1} << 16) ? 4096 : 64;
  return std::aligned_alloc(align, (nbytes + align - 1) / align * align);
}

void HostRawAllocator::raw_free(void* ptr, std::size_t) noexcept { std::free(ptr); }

CpuBackend::CpuBackend() : m_name(cpu_model_name()) {
  if (const auto threads = config().num_threads) omp_set_num_threads(*threads);
}

DeviceInfo CpuBackend::device_info(int index) const {
  ACC_CHECK(index == 0, DeviceError, "no such device cpu:{}: there is one cpu device", index);
  DeviceInfo info;
  info.device = Device::cpu();
  info.name = m_name;
  info.vendor = "host";
  info.total_memory = total_memory(index);
  info.free_memory = available_memory_bytes();
  info.compute_units = omp_get_max_threads();
  return info;
}

std::int64_t CpuBackend::total_memory(int) const {
  return static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
}

RawAllocator& CpuBackend::raw_allocator(int index) {
  ACC_CHECK(index == 0, DeviceError, "no such device cpu:{}: there is one cpu device", index);
  return m_raw;
}

void CpuBackend::copy_from_host(const Tensor& dst, const void* src) {
  std::memcpy(dst.data_ptr(), src, dst.nbytes());
}

void CpuBackend::copy_to_host(void* dst, const Tensor& src) { std::memcpy(dst, src.data_ptr(), src.nbytes()); }

void CpuBackend::synchronize(int) {}

namespace {

// The CPU runs everything at once: an event is complete when it is recorded.
class CompletedEvent final : public Event {
 public:
  void synchronize() override {}
  bool query() override { return true; }
};

class AlignedHostBuffer final : public HostBuffer {
 public:
  AlignedHostBuffer(void* data, std::size_t size) : HostBuffer(data, size, false) {}
  ~AlignedHostBuffer() override { std::free(data()); }
};

}  // namespace

void CpuBackend::copy_from_host_async(const Tensor& dst, const void* src, Stream) { copy_from_host(dst, src); }
void CpuBackend::copy_to_host_async(void* dst, const Tensor& src, Stream) { copy_to_host(dst, src); }
EventPtr CpuBackend::record_event(int, Stream) { return std::make_shared<CompletedEvent>(); }
void CpuBackend::stream_wait(int, Stream, const Event&) {}
void CpuBackend::synchronize_stream(int, Stream) {}

std::unique_ptr<HostBuffer> CpuBackend::allocate_host(int, std::size_t nbytes) {
  constexpr std::size_t align = 64;
  void* data = std::aligned_alloc(align, std::max<std::size_t>(align, (nbytes + align - 1) / align * align));
  ACC_CHECK(data != nullptr, OutOfMemoryError, "cannot allocate {} bytes of host staging memory", nbytes);
  return std::make_unique<AlignedHostBuffer>(data, nbytes);
}

void CpuBackend::copy(const Tensor& src, const Tensor& dst) { copy_kernel(src, dst); }
void CpuBackend::fill(const Tensor& dst, double value) { fill_kernel(dst, value); }
void CpuBackend::matmul(const Tensor& a, const Tensor& b, const Tensor& out) { matmul_kernel(a, b, out); }
void CpuBackend::matmul_accumulate(const Tensor& a, const Tensor& b, const Tensor& out) {
  matmul_kernel(a, b, out, true);
}
void CpuBackend::binary(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  binary_kernel(op, a, b, out);
}
void CpuBackend::unary(UnaryOp op, const Tensor& x, const Tensor& out) { unary_kernel(op, x, out); }
void CpuBackend::reduce(ReduceOp op, const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  reduce_kernel(op, x, axes, out);
}

void CpuBackend::gelu(const Tensor& x, const Tensor& bias, GeluApproximation approximation, const Tensor& out) {
  gelu_kernel(x, bias, approximation, out);
}
void CpuBackend::gelu_backward(const Tensor& grad, const Tensor& x, GeluApproximation approximation,
                               const Tensor& dx) {
  gelu_backward_kernel(grad, x, approximation, dx);
}
void CpuBackend::linear_gelu(const Tensor& x, const Tensor& weight, const Tensor& bias,
                             GeluApproximation approximation, const Tensor& out) {
  linear_gelu_kernel(x, weight, bias, approximation, out);
}
void CpuBackend::layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, const Tensor& out,
                            const Tensor& mean, const Tensor& rstd) {
  layer_norm_kernel(x, weight, bias, eps, out, mean, rstd);
}
void CpuBackend::layer_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& mean,
                                     const Tensor& rstd, const Tensor& dx, const Tensor& dweight,
                                     const Tensor& dbias) {
  layer_norm_backward_kernel(grad, x, weight, mean, rstd, dx, dweight, dbias);
}
void CpuBackend::softmax(const Tensor& x, bool log, const Tensor& out) { softmax_kernel(x, log, out); }
void CpuBackend::softmax_backward(const Tensor& grad, const Tensor& y, bool log, const Tensor& dx) {
  softmax_backward_kernel(grad, y, log, dx);
}
void CpuBackend::attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale, bool causal,
                           const Tensor& out, const Tensor& lse) {
  attention_kernel(q, k, v, scale, causal, out, lse);
}
void CpuBackend::attention_backward(const Tensor& grad, const Tensor& q, const Tensor& k, const Tensor& v,
                                    const Tensor& out, const Tensor& lse, double scale, bool causal, const Tensor& dq,
                                    const Tensor& dk, const Tensor& dv) {
  attention_backward_kernel(grad, q, k, v, out, lse, scale, causal, dq, dk, dv);
}

}  // namespace accelera::cpu
