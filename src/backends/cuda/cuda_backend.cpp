#include "backends/cuda/cuda_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "backends/cuda/kernel_layout.hpp"
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

DeviceGuard::~DeviceGuard() {
  if (m_previous < 0) return;
  const cudaError_t status = cudaSetDevice(m_previous);
  if (status != cudaSuccess) {
    ACC_LOG_ERROR("restoring the current CUDA device {} failed: {}", m_previous, cudaGetErrorName(status));
  }
}

void* DeviceMemory::raw_allocate(std::size_t nbytes) {
  DeviceGuard guard(m_index);
  void* ptr = nullptr;
  const cudaError_t status = cudaMalloc(&ptr, nbytes);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky: clear it
    return nullptr;      // the caching allocator flushes its cache and retries, then reports
  }
  ACC_CUDA_CHECK(status, fmt::format("allocating {} bytes on cuda:{}", nbytes, m_index));
  return ptr;
}

void DeviceMemory::raw_free(void* ptr, std::size_t) noexcept {
  const cudaError_t set = cudaSetDevice(m_index);  // the caching allocator frees under its lock: no guard
  const cudaError_t status = set == cudaSuccess ? cudaFree(ptr) : set;
  if (status != cudaSuccess) ACC_LOG_ERROR("cudaFree on cuda:{} failed: {}", m_index, cudaGetErrorName(status));
}

void* PinnedMemory::raw_allocate(std::size_t nbytes) {
  void* ptr = nullptr;
  const cudaError_t status = cudaHostAlloc(&ptr, nbytes, cudaHostAllocPortable);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return nullptr;
  }
  ACC_CUDA_CHECK(status, fmt::format("allocating {} bytes of pinned host memory", nbytes));
  return ptr;
}

void PinnedMemory::raw_free(void* ptr, std::size_t) noexcept {
  const cudaError_t status = cudaFreeHost(ptr);
  if (status != cudaSuccess) ACC_LOG_ERROR("cudaFreeHost failed: {}", cudaGetErrorName(status));
}

CudaBackend::CudaBackend() {
  int count = 0;
  // Without a driver or a GPU this fails (cudaErrorNoDevice, cudaErrorInsufficientDriver, ...): the
  // backend is then absent with the reason, never an exception at load time.
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
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

CudaDevice& CudaBackend::device(int index) const {
  ACC_CHECK(index >= 0 && index < device_count(), DeviceError, "no such device cuda:{} ({} present)", index,
            device_count());
  return *m_devices[static_cast<std::size_t>(index)];
}

CudaDevice& CudaBackend::ready(int index) const {
  CudaDevice& d = device(index);
  std::call_once(d.ready_flag, [&d] {
    DeviceGuard guard(d.index);
    // Non-blocking: the streams never wait for the legacy default stream other libraries may use.
    for (cudaStream_t& s : d.streams) {
      ACC_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "creating a stream on " + d.name);
    }
    ACC_CUBLAS_CHECK(cublasCreate(&d.cublas), "creating a cuBLAS handle on " + d.name);
    ACC_CUBLAS_CHECK(cublasSetStream(d.cublas, d.compute()), "binding cuBLAS to the compute stream");
    ACC_CUBLAS_CHECK(cublasLtCreate(&d.cublas_lt), "creating a cuBLASLt handle on " + d.name);
  });
  return d;
}

DeviceInfo CudaBackend::device_info(int index) const {
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

bool CudaBackend::computes(DType dtype) const noexcept {
  return Backend::computes(dtype) || dtype == DType::f16 || dtype == DType::bf16;
}

void CudaBackend::copy_from_host(const Tensor& dst, const void* src) {
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

void CudaBackend::copy_to_host(void* dst, const Tensor& src) {
  CudaDevice& d = ready(src.device().index);
  if (src.nbytes() == 0) return;
  DeviceGuard guard(d.index);
  ACC_CUDA_CHECK(cudaStreamSynchronize(d.compute()), "waiting for kernels before a device-to-host copy");
  const cudaStream_t download = d.stream(Stream::download);
  ACC_CUDA_CHECK(cudaMemcpyAsync(dst, src.data_ptr(), src.nbytes(), cudaMemcpyDeviceToHost, download),
                 "copying from " + src.device().str());
  ACC_CUDA_CHECK(cudaStreamSynchronize(download), "waiting for a device-to-host copy");
}

void CudaBackend::synchronize(int index) {
  CudaDevice& d = ready(index);
  DeviceGuard guard(index);
  for (cudaStream_t s : d.streams) ACC_CUDA_CHECK(cudaStreamSynchronize(s), "synchronizing a stream");
  release_finished(d, true);
}

void CudaBackend::copy(const Tensor& src, const Tensor& dst) {
  if (src.device() != dst.device()) return copy_between_devices(src, dst);
  CudaDevice& d = ready(dst.device().index);
  if (dst.numel() == 0) return;
  DeviceGuard guard(d.index);
  const kernels::Launch launch{d.compute(), max_blocks(d)};
  if (src.dtype() == dst.dtype() && src.is_contiguous() && dst.is_contiguous()) {
    ACC_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), dst.nbytes(), cudaMemcpyDeviceToDevice,
                                   d.compute()),
                   "copying within " + dst.device().str());
    return;
  }
  const auto layout = to_kernel_layout(backends::make_layout<2>(dst.shape(), {&dst.strides(), &src.strides()}), "copy");
  if (src.dtype() == dst.dtype()) {
    kernels::copy_same(layout, dst.data_ptr(), src.data_ptr(), dst.itemsize(), launch);
  } else {
    kernels::copy_convert(layout, dst.data_ptr(), dst.dtype(), src.data_ptr(), src.dtype(), launch);
  }
}

// Peer copies: both tensors are made contiguous on their own device, then copied by cudaMemcpyPeerAsync
// on the destination's compute stream, after the source device's queued kernels.
void CudaBackend::copy_between_devices(const Tensor& src, const Tensor& dst) {
  ACC_CHECK(src.dtype() == dst.dtype() && src.shape() == dst.shape(), ValueError,
            "a copy between devices needs one dtype and shape, got {} and {}", src.str(), dst.str());
  CudaDevice& s = ready(src.device().index);
  CudaDevice& d = ready(dst.device().index);
  if (dst.numel() == 0) return;
  const Tensor packed = src.contiguous();
  const Tensor target = dst.is_contiguous() ? dst : Tensor::empty(dst.shape(), dst.dtype(), dst.device());
  EventPtr source_ready = record_event(s.index, Stream::compute);
  stream_wait(d.index, Stream::compute, *source_ready);
  {
    DeviceGuard guard(d.index);
    ACC_CUDA_CHECK(cudaMemcpyPeerAsync(target.data_ptr(), d.index, packed.data_ptr(), s.index, target.nbytes(),
                                       d.compute()),
                   fmt::format("copying from cuda:{} to cuda:{}", s.index, d.index));
  }
  // The source's memory must outlive the copy: wait for it before `packed` may be freed on its device.
  EventPtr copied = record_event(d.index, Stream::compute);
  stream_wait(s.index, Stream::compute, *copied);
  if (!target.shares_storage_with(dst)) copy(target, dst);
}

void CudaBackend::fill(const Tensor& dst, double value) {
  CudaDevice& d = ready(dst.device().index);
  if (dst.numel() == 0) return;
  // The pattern is the value converted exactly as the CPU backend converts it.
  const Tensor pattern = Tensor::empty(Shape{}, dst.dtype());
  backend_for(Device::cpu()).fill(pattern, value);
  std::uint64_t bits = 0;
  std::memcpy(&bits, pattern.data_ptr(), dst.itemsize());
  DeviceGuard guard(d.index);
  const auto layout = to_kernel_layout(backends::make_layout<1>(dst.shape(), {&dst.strides()}), "fill");
  kernels::fill(layout, dst.data_ptr(), bits, dst.itemsize(), {d.compute(), max_blocks(d)});
}

}  // namespace accelera::cuda
