#pragma once
// The CUDA device interface: every device the CUDA runtime reports, as cuda:0, cuda:1, ... Kernels are the
// <op>.cpp launchers beside this file with their <op>.cu kernels.
// Note [CUDA memory and streams]
// Device memory comes from cudaMalloc (never managed memory) through the shared CachingAllocator, which
// knows nothing of streams. Reuse stays safe because:
// - Every kernel and cuBLAS call runs on the device's compute stream. A block freed after compute work
//   and handed out again is only touched by later compute work, which the stream runs after the earlier.
// - The synchronous copies wait for the compute stream before they start and for their own copy before
//   they return, so no work on any stream still uses their memory afterwards.
// - Record-stream semantics for the asynchronous copies (upload/download streams): each copy keeps the
//   tensor's storage alive, with an event recorded after the copy, until that event has completed. A
//   block freed by its user while a copy may still use it therefore returns to the cache only once that
//   stream's work is done. Every later copy, event, stream synchronisation and device synchronisation
//   queries the pending events and drops exactly those that have completed: never "everything", even
//   right after synchronising the streams, because another thread may have enqueued a copy since
//   (pending_uses.hpp).
// - The first asynchronous copy that touches a storage makes its stream wait for the compute work queued
//   so far: the block may be a reused one that earlier kernels still read or write. Later copies to the
//   same storage (a pipeline's slots) are ordered by the caller's events only, so they overlap compute.
// - Returning a cached block to the driver (empty_cache, a flush before retrying a failed cudaMalloc, a
//   budget cut) synchronises the device first: a cached block may still be used by queued kernels, and
//   cudaFree is only documented as one that "may" synchronise. DeviceMemory::raw_free does it, under
//   the allocator's lock and without throwing.
// Pinned staging buffers (allocate_host) come from a second CachingAllocator over cudaHostAlloc (portable
// pinned memory), so repeated staging allocations do not pay for pinning each time. They get the same
// record-stream protection: an asynchronous copy from or to an address inside a live staging buffer keeps
// that block with the copy's event, so a buffer freed while a DMA may still read or write it returns to
// the pinned pool only once that copy has completed. Other host memory passed to the asynchronous copies
// stays the caller's business, as Note [Streams and events] says.
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "accelera/core/device_interface.hpp"
#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/launch.hpp"
#include "backends/cuda/pending_uses.hpp"

namespace accelera::cuda {

// Makes `index` the calling thread's current device for the guard's lifetime, then restores the previous
// one: cuBLAS handles, streams and allocations belong to one device.
class DeviceGuard {
 public:
  explicit DeviceGuard(int index);
  // For code that must not throw (raw_free runs under the allocator's lock): status() says whether
  // `index` became current; the previous device is restored either way.
  DeviceGuard(int index, std::nothrow_t) noexcept;
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  cudaError_t status() const noexcept { return m_status; }

 private:
  int m_previous = -1;  // -1: nothing to restore
  cudaError_t m_status = cudaSuccess;
};

class DeviceMemory final : public RawAllocator {
 public:
  explicit DeviceMemory(int index) : m_index(index) {}
  void* raw_allocate(std::size_t nbytes) override;
  void raw_free(void* ptr, std::size_t nbytes) noexcept override;

 private:
  int m_index;
};

class PinnedMemory final : public RawAllocator {
 public:
  void* raw_allocate(std::size_t nbytes) override;
  void raw_free(void* ptr, std::size_t nbytes) noexcept override;
};

struct CudaDevice {
  explicit CudaDevice(int i) : index(i), memory(i) {}
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::int64_t total_memory = 0;
  DeviceMemory memory;

  // Created on first use of the device (a context costs time and memory on every GPU).
  std::once_flag ready_flag;
  cudaStream_t streams[3] = {nullptr, nullptr, nullptr};
  cudaStream_t stream(Stream s) const noexcept { return streams[static_cast<int>(s)]; }
  cudaStream_t compute() const noexcept { return stream(Stream::compute); }
  std::mutex cublas_mutex;  // a cuBLAS handle is not thread-safe
  cublasHandle_t cublas = nullptr;
  cublasLtHandle_t cublas_lt = nullptr;  // for GEMMs with fused epilogues (linear_gelu)

  // Note [CUDA memory and streams]: what copies in flight keep alive (storages, staging blocks), and
  // storages whose first copy has been ordered after the compute stream (weak, so a freed storage at a
  // reused address is seen as new).
  PendingUses<cudaEvent_t> pending;
  std::mutex fenced_mutex;
  std::map<const Storage*, std::weak_ptr<Storage>> fenced;
};

class CudaInterface final : public DeviceInterface {
 public:
  CudaInterface();
  DeviceKind kind() const noexcept override { return DeviceKind::cuda; }
  int device_count() const noexcept override { return static_cast<int>(m_devices.size()); }
  DeviceInfo device_info(int index) const override;
  std::int64_t total_memory(int index) const override { return device(index).total_memory; }
  RawAllocator& raw_allocator(int index) override { return device(index).memory; }

  void copy_from_host(const Tensor& dst, const void* src) override;
  void copy_to_host(void* dst, const Tensor& src) override;
  void synchronize(int index) override;
  void copy_from_host_async(const Tensor& dst, const void* src, Stream stream) override;
  void copy_to_host_async(void* dst, const Tensor& src, Stream stream) override;
  EventPtr record_event(int index, Stream stream) override;
  void stream_wait(int index, Stream stream, const Event& event) override;
  void synchronize_stream(int index, Stream stream) override;
  std::unique_ptr<HostBuffer> allocate_host(int index, std::size_t nbytes) override;
  bool copies_between_devices() const noexcept override { return true; }
  std::uintptr_t native_stream(int index, Stream stream) override;
  void order_before_foreign_stream(int index, Stream stream, std::uintptr_t foreign) override;
  // Kernels are compiled ahead of time, so compiled_kernels() stays empty, as on the CPU.
  std::shared_ptr<CompiledKernel> compile_kernel(int index, const std::string& name, const std::string& source,
                                                 const std::string& options) override;

  // The device, with its streams and cuBLAS handle created. Throws DeviceError for a bad index.
  CudaDevice& ready(int index) const;
  CudaDevice& device(int index) const;
  const std::string& absent_reason() const noexcept { return m_absent_reason; }

 private:
  // Note [CUDA memory and streams]: the side-stream half of the record-stream rules. `host`: the copy's
  // host address, kept too when it lies in a staging buffer.
  void order_first_use(CudaDevice& d, const Tensor& t, Stream stream);
  void keep_until_done(CudaDevice& d, const Tensor& t, const void* host, Stream stream);
  // Drops the uses whose events have completed (queried one by one, whatever was synchronised).
  void release_finished(CudaDevice& d);

  // Declared before the devices, so destroyed after them: uses pending at exit return staging blocks to
  // the pool as the devices go.
  std::unique_ptr<PinnedMemory> m_pinned_memory;
  std::unique_ptr<CachingAllocator> m_pinned_pool;
  StagingBlocks m_staging;
  std::vector<std::unique_ptr<CudaDevice>> m_devices;
  std::string m_absent_reason;
};

// The device a tensor lives on, ready for kernels (streams and handles created).
CudaDevice& cuda_device(const Device& device);
CudaInterface& cuda_interface();

// Launch limits for the element-wise kernels: enough blocks to fill the device several times over;
// kernels loop over the rest.
inline int max_blocks(const CudaDevice& d) { return d.sm_count * 16; }
inline kernels::Launch launch_of(const CudaDevice& d) { return {d.compute(), max_blocks(d)}; }

}  // namespace accelera::cuda
