#include "backends/opencl/opencl_interface.hpp"

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "accelera/core/registry.hpp"
#include "core/device_registration.hpp"
#include "core/log.hpp"

namespace accelera::opencl {

namespace {

std::string device_string(cl_device_id device, cl_device_info param) {
  std::size_t size = 0;
  ACC_CL_CHECK(clGetDeviceInfo(device, param, 0, nullptr, &size), "querying a device string");
  std::string value(size, '\0');
  ACC_CL_CHECK(clGetDeviceInfo(device, param, size, value.data(), nullptr), "querying a device string");
  while (!value.empty() && value.back() == '\0') value.pop_back();
  return value;
}

template <typename T>
T device_value(cl_device_id device, cl_device_info param) {
  T value{};
  ACC_CL_CHECK(clGetDeviceInfo(device, param, sizeof(T), &value, nullptr), "querying a device property");
  return value;
}

}  // namespace

void* BufferAllocator::raw_allocate(std::size_t nbytes) {
  cl_int status = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(m_context, CL_MEM_READ_WRITE, nbytes, nullptr, &status);
  if (status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_RESOURCES ||
      status == CL_OUT_OF_HOST_MEMORY || status == CL_INVALID_BUFFER_SIZE) {
    return nullptr;  // the caching allocator flushes its cache and retries, then reports
  }
  ACC_CL_CHECK(status, "allocating a device buffer");
  return buffer;
}

void BufferAllocator::raw_free(void* ptr, std::size_t) noexcept {
  const cl_int status = clReleaseMemObject(static_cast<cl_mem>(ptr));
  if (status != CL_SUCCESS) ACC_LOG_ERROR("clReleaseMemObject failed: {}", status_name(status));
}

// Note [OpenCL kernel forms]
// Some kernels have two forms: one for GPUs and accelerators (work-groups that cooperate through local
// memory and barriers, one work-item per element or small group of them) and one for CPU devices, which run
// a work-group's items one after the other and vectorise across them, so that barrier forms stream at
// half the memory bandwidth or less there (each work-item owns contiguous memory and vector accumulators
// instead): the reductions and arg_extremum (reduce_plan.hpp), the scans (scan.cpp), compaction
// (compress.cpp), random and the sort (sort.cpp: a radix sort there, a bitonic sort on GPUs).
// ACCELERA_OPENCL_KERNEL_FORMS=accelerator|cpu picks one form for every device, so that the GPU forms are
// tested on a CPU device too (tests/cpp/CMakeLists.txt); auto (the default) picks by device type.
namespace {

bool use_cpu_forms(bool is_accelerator) {
  const char* chosen = std::getenv("ACCELERA_OPENCL_KERNEL_FORMS");
  const std::string_view value = chosen == nullptr ? "auto" : chosen;
  if (value == "auto") return !is_accelerator;
  if (value == "cpu") return true;
  if (value == "accelerator") return false;
  throw ValueError(fmt::format("ACCELERA_OPENCL_KERNEL_FORMS='{}' is not one of auto, cpu, accelerator", value));
}

}  // namespace

ClDevice::ClDevice(cl_platform_id p, cl_device_id d) : platform(p), id(d) {
  std::size_t size = 0;
  ACC_CL_CHECK(clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, nullptr, &size), "querying the platform name");
  platform_name.resize(size);
  ACC_CL_CHECK(clGetPlatformInfo(p, CL_PLATFORM_NAME, size, platform_name.data(), nullptr),
               "querying the platform name");
  while (!platform_name.empty() && platform_name.back() == '\0') platform_name.pop_back();
  name = device_string(d, CL_DEVICE_NAME);
  vendor = device_string(d, CL_DEVICE_VENDOR);
  driver_version = device_string(d, CL_DRIVER_VERSION);
  device_version = device_string(d, CL_DEVICE_VERSION);
  global_memory = static_cast<std::int64_t>(device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE));
  compute_units = static_cast<int>(device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS));
  max_work_group = device_value<std::size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  fp64 = device_value<cl_ulong>(d, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
  is_accelerator = (device_value<cl_device_type>(d, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_CPU) == 0;
  cpu_forms = use_cpu_forms(is_accelerator);
  cl_int status = CL_SUCCESS;
  context = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &status);
  ACC_CL_CHECK(status, "creating a context for " + name);
  for (cl_command_queue& queue : queues) {
    queue = clCreateCommandQueue(context, d, 0, &status);
    ACC_CL_CHECK(status, "creating a command queue of " + name);
  }
  allocator = std::make_unique<BufferAllocator>(context);
}

ClDevice::~ClDevice() {
  for (auto& [key, program] : programs) clReleaseProgram(program);
  for (cl_command_queue queue : queues) {
    if (queue != nullptr) clReleaseCommandQueue(queue);
  }
  if (context != nullptr) clReleaseContext(context);
}

OpenClInterface::OpenClInterface() {
  cl_uint platform_count = 0;
  const cl_int status = clGetPlatformIDs(0, nullptr, &platform_count);
  if (status != CL_SUCCESS || platform_count == 0) {
    m_absent_reason = fmt::format("no OpenCL platform found (clGetPlatformIDs: {})", status_name(status));
    return;
  }
  std::vector<cl_platform_id> platforms(platform_count);
  ACC_CL_CHECK(clGetPlatformIDs(platform_count, platforms.data(), nullptr), "listing OpenCL platforms");
  // GPUs first, then accelerators, then CPUs; within a kind, in platform order.
  for (cl_device_type type : {cl_device_type{CL_DEVICE_TYPE_GPU}, cl_device_type{CL_DEVICE_TYPE_ACCELERATOR},
                              cl_device_type{CL_DEVICE_TYPE_CPU}}) {
    for (cl_platform_id platform : platforms) {
      cl_uint count = 0;
      if (clGetDeviceIDs(platform, type, 0, nullptr, &count) != CL_SUCCESS || count == 0) continue;
      std::vector<cl_device_id> ids(count);
      ACC_CL_CHECK(clGetDeviceIDs(platform, type, count, ids.data(), nullptr), "listing OpenCL devices");
      for (cl_device_id id : ids) m_devices.push_back(std::make_unique<ClDevice>(platform, id));
    }
  }
  if (m_devices.empty()) m_absent_reason = "no OpenCL device found";
}

ClDevice& OpenClInterface::device(int index) const {
  ACC_CHECK(index >= 0 && index < device_count(), DeviceError, "no such device opencl:{} ({} present)", index,
            device_count());
  return *m_devices[static_cast<std::size_t>(index)];
}

DeviceInfo OpenClInterface::device_info(int index) const {
  const ClDevice& d = device(index);
  DeviceInfo info;
  info.device = Device{DeviceKind::opencl, index};
  info.name = d.name;
  info.vendor = d.vendor;
  info.total_memory = d.global_memory;
  // OpenCL reports no free memory: what our allocator has not reserved is what we can count on.
  const auto stats = allocator_for(info.device).stats();
  info.free_memory = std::max<std::int64_t>(0, d.global_memory - stats.reserved_bytes);
  info.compute_units = d.compute_units;
  info.is_accelerator = d.is_accelerator;
  return info;
}

RawAllocator& OpenClInterface::raw_allocator(int index) { return *device(index).allocator; }

void OpenClInterface::copy_from_host(const Tensor& dst, const void* src) {
  ClDevice& d = device(dst.device().index);
  if (dst.nbytes() == 0) return;
  // Kernels still queued may read the destination's previous contents: order after them.
  ACC_CL_CHECK(clFinish(d.compute()), "waiting for kernels before a host-to-device copy");
  ACC_CL_CHECK(clEnqueueWriteBuffer(d.queue(Stream::upload), buffer_of(dst), CL_TRUE, dst.offset() * dst.itemsize(),
                                    dst.nbytes(), src, 0, nullptr, nullptr),
               "copying to " + dst.device().str());
}

void OpenClInterface::copy_to_host(void* dst, const Tensor& src) {
  ClDevice& d = device(src.device().index);
  if (src.nbytes() == 0) return;
  ACC_CL_CHECK(clFinish(d.compute()), "waiting for kernels before a device-to-host copy");
  ACC_CL_CHECK(clEnqueueReadBuffer(d.queue(Stream::download), buffer_of(src), CL_TRUE,
                                   src.offset() * src.itemsize(), src.nbytes(), dst, 0, nullptr, nullptr),
               "copying from " + src.device().str());
}

void OpenClInterface::synchronize(int index) {
  ClDevice& d = device(index);
  for (cl_command_queue queue : d.queues) ACC_CL_CHECK(clFinish(queue), "synchronizing a command queue");
}

bool OpenClInterface::device_computes(int index, DType dtype) const noexcept {
  const bool needs_fp64 = dtype == DType::f64 || dtype == DType::c128;
  return !needs_fp64 || m_devices[static_cast<std::size_t>(index)]->fp64;
}

std::vector<std::string> OpenClInterface::compiled_kernels(int index) const {
  ClDevice& d = device(index);
  std::lock_guard lock(d.programs_mutex);
  std::vector<std::string> names;
  for (const auto& entry : d.programs) names.push_back(entry.first);
  return names;
}

ClDevice& cl_device(const Device& device) {
  return static_cast<OpenClInterface&>(device_interface(device)).device(device.index);
}

void OpenClInterface::finish_all_queues() noexcept {
  for (const auto& d : m_devices) {
    // At exit there is no one left to report a failure to; the point is only not to leave work running.
    for (cl_command_queue queue : d->queues) static_cast<void>(clFinish(queue));
  }
}

namespace {

OpenClInterface* g_interface = nullptr;

}  // namespace

void finish_queues_at_exit() {
  // The registry keeps the interface to the end, so its destructor never waits for the queues. Registered
  // anew after each program build, so that it runs before the exit handlers the driver's compiler
  // registered while building (Note [Work queued at exit] in core/registry.cpp); waiting twice costs
  // nothing.
  std::atexit([] { g_interface->finish_all_queues(); });
}

namespace {

std::unique_ptr<DeviceInterface> make_opencl_interface(std::string& absent_reason) {
  auto interface = std::make_unique<OpenClInterface>();
  if (interface->device_count() == 0) {
    absent_reason = interface->absent_reason();
    return nullptr;
  }
  g_interface = interface.get();
  return interface;
}

ACC_REGISTER_DEVICE_KIND(DeviceKind::opencl, &make_opencl_interface);

}  // namespace

}  // namespace accelera::opencl
