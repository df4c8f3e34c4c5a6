#include "backends/cuda/cuda_interface.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "accelera/core/registry.hpp"
#include "core/device_registration.hpp"
#include "core/log.hpp"

namespace accelera::cuda {

DeviceGuard::DeviceGuard(int index) {
  int current = -1;
  ACC_CUDA_CHECK(cudaGetDevice(&current), "querying the current CUDA device");
  if (current != index) {
    ACC_CUDA_CHECK(cudaSetDevice(index), fmt::format("selecting cuda:{}", index));
    m_previous = current;
  }
}

DeviceGuard::DeviceGuard(int index, std::nothrow_t) noexcept {
  int current = -1;
  m_status = cudaGetDevice(&current);
  if (m_status == cudaSuccess && current != index) {
    m_status = cudaSetDevice(index);
    if (m_status == cudaSuccess) m_previous = current;
  }
  clear_error(m_status);  // the caller reports it (Note [CUDA last error])
}

DeviceGuard::~DeviceGuard() {
  if (m_previous < 0) return;
  log_failure(cudaSetDevice(m_previous), "restoring the current CUDA device");
}

void* DeviceMemory::raw_allocate(std::size_t nbytes) {
  DeviceGuard guard(m_index);
  void* ptr = nullptr;
  const cudaError_t status = cudaMalloc(&ptr, nbytes);
  if (status == cudaErrorMemoryAllocation) {
    clear_error(status);  // not sticky: an answer, not a failure
    return nullptr;       // the caching allocator flushes its cache and retries, then reports
  }
  ACC_CUDA_CHECK(status, fmt::format("allocating {} bytes on cuda:{}", nbytes, m_index));
  return ptr;
}

// Runs under the allocator's lock (Note [CUDA memory and streams]): nothing here throws, and the calling
// thread's current device is restored. A block that cannot be freed safely is logged and left to the
// driver (it goes with the context) rather than freed while work may use it.
void DeviceMemory::raw_free(void* ptr, std::size_t nbytes) noexcept {
  DeviceGuard guard(m_index, std::nothrow);
  if (guard.status() != cudaSuccess) {
    log_failure(guard.status(), "selecting the device to free a cached block");
    return;
  }
  // Queued kernels may still use a cached block: cudaFree is not documented to wait for them.
  const cudaError_t synced = cudaDeviceSynchronize();
  if (synced != cudaSuccess) {
    log_failure(synced, "synchronising the device before freeing a cached block (the block is not freed)");
    return;
  }
  const cudaError_t status = cudaFree(ptr);
  if (status != cudaSuccess && status != cudaErrorCudartUnloading) {
    ACC_LOG_ERROR("cudaFree of {} bytes on cuda:{} failed: {}", nbytes, m_index, cudaGetErrorName(status));
  }
  clear_error(status);
}

void* PinnedMemory::raw_allocate(std::size_t nbytes) {
  void* ptr = nullptr;
  const cudaError_t status = cudaHostAlloc(&ptr, nbytes, cudaHostAllocPortable);
  if (status == cudaErrorMemoryAllocation) {
    clear_error(status);
    return nullptr;
  }
  ACC_CUDA_CHECK(status, fmt::format("allocating {} bytes of pinned host memory", nbytes));
  return ptr;
}

// A pinned block reaches the pool only after the copies that use it have completed (Note [CUDA memory
// and streams]), so nothing on the device still reads or writes it here.
void PinnedMemory::raw_free(void* ptr, std::size_t) noexcept { log_failure(cudaFreeHost(ptr), "cudaFreeHost"); }

CudaInterface::CudaInterface() {
  int count = 0;
  // Without a driver or a GPU this fails (cudaErrorNoDevice, cudaErrorInsufficientDriver, ...): the
  // backend is then absent with the reason, never an exception at load time.
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    clear_error(status);
    m_absent_reason = fmt::format("no CUDA device found: {} ({})", cudaGetErrorString(status), cudaGetErrorName(status));
    return;
  }
  if (count == 0) {
    m_absent_reason = "no CUDA device found: the CUDA runtime reports 0 devices";
    return;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    ACC_CUDA_CHECK(cudaGetDeviceProperties(&prop, i), fmt::format("querying the properties of cuda:{}", i));
    auto d = std::make_unique<CudaDevice>(i);
    d->name = prop.name;
    d->cc_major = prop.major;
    d->cc_minor = prop.minor;
    d->sm_count = std::max(1, prop.multiProcessorCount);
    d->total_memory = static_cast<std::int64_t>(prop.totalGlobalMem);
    m_devices.push_back(std::move(d));
  }
  // Pinned staging memory: a quarter of the host's RAM at most (pinned pages cannot be swapped out).
  const auto host_bytes = static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  m_pinned_memory = std::make_unique<PinnedMemory>();
  m_pinned_pool = std::make_unique<CachingAllocator>(Device::cpu(), *m_pinned_memory,
                                                     std::max<std::int64_t>(host_bytes / 4, 1 << 20));
}

CudaDevice& CudaInterface::device(int index) const {
  ACC_CHECK(index >= 0 && index < device_count(), DeviceError, "no such device cuda:{} ({} present)", index,
            device_count());
  return *m_devices[static_cast<std::size_t>(index)];
}

CudaDevice& CudaInterface::ready(int index) const {
  CudaDevice& d = device(index);
  std::call_once(d.ready_flag, [&d] {
    DeviceGuard guard(d.index);
    // Non-blocking: the streams never wait for the legacy default stream other libraries may use.
    for (cudaStream_t& s : d.streams) {
      ACC_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "creating a stream on " + d.name);
    }
    ACC_CUDA_CHECK(cublasCreate(&d.cublas), "creating a cuBLAS handle on " + d.name);
    ACC_CUDA_CHECK(cublasSetStream(d.cublas, d.compute()), "binding cuBLAS to the compute stream");
    ACC_CUDA_CHECK(cublasLtCreate(&d.cublas_lt), "creating a cuBLASLt handle on " + d.name);
  });
  return d;
}

DeviceInfo CudaInterface::device_info(int index) const {
  const CudaDevice& d = device(index);
  DeviceInfo info;
  info.device = Device{DeviceKind::cuda, index};
  info.name = fmt::format("{} (compute capability {}.{})", d.name, d.cc_major, d.cc_minor);
  info.vendor = "NVIDIA";
  info.total_memory = d.total_memory;
  DeviceGuard guard(index);
  std::size_t free_bytes = 0, total_bytes = 0;
  ACC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes), fmt::format("querying the memory of cuda:{}", index));
  info.free_memory = static_cast<std::int64_t>(free_bytes);
  info.compute_units = d.sm_count;
  info.is_accelerator = true;
  return info;
}

void CudaInterface::copy_from_host(const Tensor& dst, const void* src) {
  CudaDevice& d = ready(dst.device().index);
  if (dst.nbytes() == 0) return;
  DeviceGuard guard(d.index);
  // Kernels still queued may read the destination's previous contents: order after them.
  ACC_CUDA_CHECK(cudaStreamSynchronize(d.compute()), "waiting for kernels before a host-to-device copy");
  const cudaStream_t upload = d.stream(Stream::upload);
  ACC_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src, dst.nbytes(), cudaMemcpyHostToDevice, upload),
                 "copying to " + dst.device().str());
  ACC_CUDA_CHECK(cudaStreamSynchronize(upload), "waiting for a host-to-device copy");
}

void CudaInterface::copy_to_host(void* dst, const Tensor& src) {
  CudaDevice& d = ready(src.device().index);
  if (src.nbytes() == 0) return;
  DeviceGuard guard(d.index);
  ACC_CUDA_CHECK(cudaStreamSynchronize(d.compute()), "waiting for kernels before a device-to-host copy");
  const cudaStream_t download = d.stream(Stream::download);
  ACC_CUDA_CHECK(cudaMemcpyAsync(dst, src.data_ptr(), src.nbytes(), cudaMemcpyDeviceToHost, download),
                 "copying from " + src.device().str());
  ACC_CUDA_CHECK(cudaStreamSynchronize(download), "waiting for a device-to-host copy");
}

void CudaInterface::synchronize(int index) {
  CudaDevice& d = ready(index);
  DeviceGuard guard(index);
  for (cudaStream_t s : d.streams) ACC_CUDA_CHECK(cudaStreamSynchronize(s), "synchronizing a stream");
  // Not "release everything": a copy another thread enqueued after these waits may still be running.
  release_finished(d);
}

CudaInterface& cuda_interface() {
  return static_cast<CudaInterface&>(device_interface(Device{DeviceKind::cuda, 0}));
}

CudaDevice& cuda_device(const Device& device) {
  return static_cast<CudaInterface&>(device_interface(device)).ready(device.index);
}

namespace {

std::unique_ptr<DeviceInterface> make_cuda_interface(std::string& absent_reason) {
  std::unique_ptr<CudaInterface> interface;
  try {
    interface = std::make_unique<CudaInterface>();
  } catch (const Error& e) {
    // A device that answers the count but fails its first queries: absent, with the reason, not a crash.
    absent_reason = fmt::format("CUDA devices could not be initialised: {}", e.what());
    return nullptr;
  }
  if (interface->device_count() == 0) {
    absent_reason = interface->absent_reason();
    return nullptr;
  }
  return interface;
}

ACC_REGISTER_DEVICE_KIND(DeviceKind::cuda, &make_cuda_interface);

}  // namespace

}  // namespace accelera::cuda
