// Asynchronous copies, events between streams and pinned staging memory (Note [Streams and events],
// Note [CUDA memory and streams]).
#include "backends/cuda/cuda_interface.hpp"
#include "core/log.hpp"

namespace accelera::cuda {

namespace {

class CudaEvent final : public Event {
 public:
  explicit CudaEvent(cudaEvent_t event) : m_event(event) {}
  // At process exit the runtime may be unloaded before the last event: log_failure says nothing then.
  ~CudaEvent() override { log_failure(cudaEventDestroy(m_event), "cudaEventDestroy"); }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  void synchronize() override { ACC_CUDA_CHECK(cudaEventSynchronize(m_event), "waiting for an event"); }
  bool query() override {
    const cudaError_t status = cudaEventQuery(m_event);
    if (status == cudaErrorNotReady) {
      clear_error(status);  // an answer, not an error (Note [CUDA last error])
      return false;
    }
    ACC_CUDA_CHECK(status, "querying an event");  // throw_status clears it
    return true;
  }
  cudaEvent_t get() const noexcept { return m_event; }

 private:
  cudaEvent_t m_event;
};

// A block of the pinned pool, returned to it on destruction.
class PinnedHostBuffer final : public HostBuffer {
 public:
  PinnedHostBuffer(CachingAllocator& pool, void* data, std::size_t size)
      : HostBuffer(data, size, true), m_pool(pool) {}
  ~PinnedHostBuffer() override { m_pool.deallocate(data()); }
  PinnedHostBuffer(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;

 private:
  CachingAllocator& m_pool;
};

cudaEvent_t new_event_after(cudaStream_t stream) {
  cudaEvent_t event = nullptr;
  ACC_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "creating an event");
  const cudaError_t status = cudaEventRecord(event, stream);
  if (status != cudaSuccess) {
    log_failure(cudaEventDestroy(event), "cudaEventDestroy");
    ACC_CUDA_CHECK(status, "recording an event");
  }
  return event;
}

}  // namespace

void CudaInterface::order_first_use(CudaDevice& d, const Tensor& t, Stream stream) {
  const Storage* key = t.storage().get();
  {
    std::lock_guard lock(d.pending_mutex);
    auto it = d.fenced.find(key);
    if (it != d.fenced.end() && !it->second.expired()) return;
    d.fenced[key] = t.storage();
    // Drop entries of storages that are gone, so the map tracks live storages only.
    if (d.fenced.size() > 1024) std::erase_if(d.fenced, [](const auto& entry) { return entry.second.expired(); });
  }
  EventPtr queued = record_event(d.index, Stream::compute);
  stream_wait(d.index, stream, *queued);
}

void CudaInterface::keep_until_done(CudaDevice& d, const Tensor& t, Stream stream) {
  cudaEvent_t event = new_event_after(d.stream(stream));
  std::lock_guard lock(d.pending_mutex);
  d.pending.push_back(PendingUse{t.storage(), event});
}

void CudaInterface::release_finished(CudaDevice& d, bool all_done) {
  std::vector<PendingUse> finished;
  {
    std::lock_guard lock(d.pending_mutex);
    auto keep = d.pending.begin();
    for (auto& use : d.pending) {
      const cudaError_t status = all_done ? cudaSuccess : cudaEventQuery(use.done);
      if (status == cudaErrorNotReady) {
        cudaGetLastError();
        if (&*keep != &use) *keep = std::move(use);
        ++keep;
      } else {
        // An error status is reported by the next synchronising call; the copy is over either way.
        finished.push_back(std::move(use));
      }
    }
    d.pending.erase(keep, d.pending.end());
  }
  // Storages are released outside the lock: freeing takes the allocator's lock.
  for (auto& use : finished) cudaEventDestroy(use.done);
}

void CudaInterface::copy_from_host_async(const Tensor& dst, const void* src, Stream stream) {
  CudaDevice& d = ready(dst.device().index);
  if (dst.nbytes() == 0) return;
  DeviceGuard guard(d.index);
  release_finished(d, false);
  order_first_use(d, dst, stream);
  ACC_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src, dst.nbytes(), cudaMemcpyHostToDevice, d.stream(stream)),
                 "enqueueing a copy to " + dst.device().str());
  keep_until_done(d, dst, stream);
}

void CudaInterface::copy_to_host_async(void* dst, const Tensor& src, Stream stream) {
  CudaDevice& d = ready(src.device().index);
  if (src.nbytes() == 0) return;
  DeviceGuard guard(d.index);
  release_finished(d, false);
  order_first_use(d, src, stream);
  ACC_CUDA_CHECK(cudaMemcpyAsync(dst, src.data_ptr(), src.nbytes(), cudaMemcpyDeviceToHost, d.stream(stream)),
                 "enqueueing a copy from " + src.device().str());
  keep_until_done(d, src, stream);
}

EventPtr CudaInterface::record_event(int index, Stream stream) {
  CudaDevice& d = ready(index);
  DeviceGuard guard(index);
  return std::make_shared<CudaEvent>(new_event_after(d.stream(stream)));
}

void CudaInterface::stream_wait(int index, Stream stream, const Event& event) {
  const auto* cuda_event = dynamic_cast<const CudaEvent*>(&event);
  ACC_CHECK(cuda_event != nullptr, DeviceError, "stream_wait on cuda:{}: the event comes from another backend",
            index);
  CudaDevice& d = ready(index);
  DeviceGuard guard(index);
  ACC_CUDA_CHECK(cudaStreamWaitEvent(d.stream(stream), cuda_event->get(), 0), "making a stream wait for an event");
  release_finished(d, false);
}

void CudaInterface::synchronize_stream(int index, Stream stream) {
  CudaDevice& d = ready(index);
  DeviceGuard guard(index);
  ACC_CUDA_CHECK(cudaStreamSynchronize(d.stream(stream)), "synchronizing a stream");
  release_finished(d, false);
}

std::unique_ptr<HostBuffer> CudaInterface::allocate_host(int index, std::size_t nbytes) {
  ready(index);
  void* data = nullptr;
  try {
    data = m_pinned_pool->allocate(nbytes);
  } catch (const OutOfMemoryError& e) {
    throw OutOfMemoryError(fmt::format("pinned staging memory for cuda:{}: {}", index, e.what()));
  }
  return std::make_unique<PinnedHostBuffer>(*m_pinned_pool, data, nbytes);
}

}  // namespace accelera::cuda
