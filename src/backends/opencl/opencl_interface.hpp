#pragma once
// The OpenCL backend: every device of every platform (GPUs first) as opencl:0, opencl:1, ...
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "accelera/core/device_interface.hpp"
#include "backends/opencl/cl_check.hpp"

namespace accelera::opencl {

// Device memory as cl_mem buffers; the handle is what a Storage holds as its "data".
class BufferAllocator final : public RawAllocator {
 public:
  explicit BufferAllocator(cl_context context) : m_context(context) {}
  void* raw_allocate(std::size_t nbytes) override;
  void raw_free(void* ptr, std::size_t nbytes) noexcept override;

 private:
  cl_context m_context;
};

struct ClDevice {
  ClDevice(cl_platform_id platform, cl_device_id device);
  ~ClDevice();
  ClDevice(const ClDevice&) = delete;
  ClDevice& operator=(const ClDevice&) = delete;

  cl_platform_id platform;
  cl_device_id id;
  cl_context context = nullptr;
  // One in-order queue per Stream (see Note [Streams and events]).
  cl_command_queue queues[3] = {nullptr, nullptr, nullptr};
  cl_command_queue queue(Stream stream) const noexcept { return queues[static_cast<int>(stream)]; }
  cl_command_queue compute() const noexcept { return queue(Stream::compute); }
  std::string platform_name, name, vendor, driver_version, device_version;
  std::int64_t global_memory = 0;
  int compute_units = 0;
  bool fp64 = false;
  bool is_accelerator = false;  // GPU or accelerator, not a CPU device
  bool cpu_forms = false;  // kernels in their CPU-device forms (Note [OpenCL kernel forms])
  std::size_t max_work_group = 1;
  std::unique_ptr<BufferAllocator> allocator;

  std::once_flag gemm_tuning;  // Note [CLBlast tuning for PoCL]
  std::mutex programs_mutex;
  std::map<std::string, cl_program> programs;  // by source name + build options
};

class OpenClInterface final : public DeviceInterface {
 public:
  OpenClInterface();
  DeviceKind kind() const noexcept override { return DeviceKind::opencl; }
  int device_count() const noexcept override { return static_cast<int>(m_devices.size()); }
  DeviceInfo device_info(int index) const override;
  std::int64_t total_memory(int index) const override { return device(index).global_memory; }
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
  bool device_computes(int index, DType dtype) const noexcept override;
  std::shared_ptr<CompiledKernel> compile_kernel(int index, const std::string& name, const std::string& source,
                                                 const std::string& options) override;
  std::vector<std::string> compiled_kernels(int index) const override;

  ClDevice& device(int index) const;
  // Waits for every queue of every device (see make_opencl_interface: run at exit).
  void finish_all_queues() noexcept;
  // Why no device was found, when none was.
  const std::string& absent_reason() const noexcept { return m_absent_reason; }

 private:
  std::vector<std::unique_ptr<ClDevice>> m_devices;
  std::string m_absent_reason;
};

// The OpenCL device a tensor lives on (kernels find their queues and programs through it).
ClDevice& cl_device(const Device& device);
// Registers an exit handler that waits for every queue (Note [Work queued at exit] in core/registry.cpp);
// called after each program build.
void finish_queues_at_exit();

// The cl_mem behind a tensor's storage (its first element is at tensor.offset() elements in).
inline cl_mem buffer_of(const Tensor& t) { return static_cast<cl_mem>(t.storage()->data()); }

}  // namespace accelera::opencl
