#include "backends/cpu/cpu_interface.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "accelera/core/config.hpp"
#include "accelera/core/error.hpp"
#include "core/device_registration.hpp"

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

CpuInterface::CpuInterface() : m_name(cpu_model_name()) {
  if (const auto threads = config().num_threads) omp_set_num_threads(*threads);
}

DeviceInfo CpuInterface::device_info(int index) const {
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

std::int64_t CpuInterface::total_memory(int) const {
  return static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
}

RawAllocator& CpuInterface::raw_allocator(int index) {
  ACC_CHECK(index == 0, DeviceError, "no such device cpu:{}: there is one cpu device", index);
  return m_raw;
}

void CpuInterface::copy_from_host(const Tensor& dst, const void* src) {
  std::memcpy(dst.data_ptr(), src, dst.nbytes());
}

void CpuInterface::copy_to_host(void* dst, const Tensor& src) { std::memcpy(dst, src.data_ptr(), src.nbytes()); }

void CpuInterface::synchronize(int) {}

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

void CpuInterface::copy_from_host_async(const Tensor& dst, const void* src, Stream) { copy_from_host(dst, src); }
void CpuInterface::copy_to_host_async(void* dst, const Tensor& src, Stream) { copy_to_host(dst, src); }
EventPtr CpuInterface::record_event(int, Stream) { return std::make_shared<CompletedEvent>(); }
void CpuInterface::stream_wait(int, Stream, const Event&) {}
void CpuInterface::synchronize_stream(int, Stream) {}

std::unique_ptr<HostBuffer> CpuInterface::allocate_host(int, std::size_t nbytes) {
  constexpr std::size_t align = 64;
  void* data = std::aligned_alloc(align, std::max<std::size_t>(align, (nbytes + align - 1) / align * align));
  ACC_CHECK(data != nullptr, OutOfMemoryError, "cannot allocate {} bytes of host staging memory", nbytes);
  return std::make_unique<AlignedHostBuffer>(data, nbytes);
}

namespace {

std::unique_ptr<DeviceInterface> make_cpu_interface(std::string&) { return std::make_unique<CpuInterface>(); }

ACC_REGISTER_DEVICE_KIND(DeviceKind::cpu, &make_cpu_interface);

}  // namespace

}  // namespace accelera::cpu
