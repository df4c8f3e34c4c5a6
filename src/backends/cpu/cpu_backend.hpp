#pragma once
#include "accelera/backend.hpp"

namespace accelera::cpu {

// Host memory: 64-byte aligned (a cache line, and full AVX-512 vectors).
class HostRawAllocator final : public RawAllocator {
 public:
  void* raw_allocate(std::size_t nbytes) override;
  void raw_free(void* ptr, std::size_t nbytes) noexcept override;
};

// The CPU as one device, "cpu": OpenBLAS for matmul, OpenMP-parallel vectorised loops for the rest.
class CpuBackend final : public Backend {
 public:
  CpuBackend();
  DeviceKind kind() const noexcept override { return DeviceKind::cpu; }
  int device_count() const noexcept override { return 1; }
  DeviceInfo device_info(int index) const override;
  std::int64_t total_memory(int index) const override;
  RawAllocator& raw_allocator(int index) override;

  void copy_from_host(const Tensor& dst, const void* src) override;
  void copy_to_host(void* dst, const Tensor& src) override;
  void synchronize(int index) override;
  void copy_from_host_async(const Tensor& dst, const void* src, Stream stream) override;
  void copy_to_host_async(void* dst, const Tensor& src, Stream stream) override;
  EventPtr record_event(int index, Stream stream) override;
  void stream_wait(int index, Stream stream, const Event& event) override;
  void synchronize_stream(int index, Stream stream) override;
  std::unique_ptr<HostBuffer> allocate_host(int index, std::size_t nbytes) override;

  void copy(const Tensor& src, const Tensor& dst) override;
  void fill(const Tensor& dst, double value) override;
  void matmul(const Tensor& a, const Tensor& b, const Tensor& out) override;
  void matmul_accumulate(const Tensor& a, const Tensor& b, const Tensor& out) override;
  void binary(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) override;
  void unary(UnaryOp op, const Tensor& x, const Tensor& out) override;
  void reduce(ReduceOp op, const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) override;

  // Fused neural-network kernels (kernels/<op>.cpp).
  bool has_fused_kernels() const noexcept override { return true; }
  void gelu(const Tensor& x, const Tensor& bias, GeluApproximation approximation, const Tensor& out) override;
  void gelu_backward(const Tensor& grad, const Tensor& x, GeluApproximation approximation,
                     const Tensor& dx) override;
  void linear_gelu(const Tensor& x, const Tensor& weight, const Tensor& bias, GeluApproximation approximation,
                   const Tensor& out) override;
  void layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, const Tensor& out,
                  const Tensor& mean, const Tensor& rstd) override;
  void layer_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& mean,
                           const Tensor& rstd, const Tensor& dx, const Tensor& dweight, const Tensor& dbias) override;
  void softmax(const Tensor& x, bool log, const Tensor& out) override;
  void softmax_backward(const Tensor& grad, const Tensor& y, bool log, const Tensor& dx) override;
  void attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale, bool causal, const Tensor& out,
                 const Tensor& lse) override;
  void attention_backward(const Tensor& grad, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out,
                          const Tensor& lse, double scale, bool causal, const Tensor& dq, const Tensor& dk,
                          const Tensor& dv) override;

 private:
  HostRawAllocator m_raw;
  std::string m_name;
};

}  // namespace accelera::cpu
