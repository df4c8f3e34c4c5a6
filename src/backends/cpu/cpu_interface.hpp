#pragma once
// The CPU as one device, "cpu": host memory, and copies and events that complete at once. Its kernels are
// the files beside this one (OpenBLAS for matmul, OpenMP-parallel vectorised loops for the rest).
#include <string>

#include "accelera/core/device_interface.hpp"

namespace accelera::cpu {

// Host memory: 64-byte aligned (a cache line, and full AVX-512 vectors); large blocks page-aligned.
class HostRawAllocator final : public RawAllocator {
 public:
  void* raw_allocate(std::size_t nbytes) override;
  void raw_free(void* ptr, std::size_t nbytes) noexcept override;
};

class CpuInterface final : public DeviceInterface {
 public:
  CpuInterface();
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

 private:
  HostRawAllocator m_raw;
  std::string m_name;
};

}  // namespace accelera::cpu
