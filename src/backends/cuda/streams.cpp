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

// A block of the pinned pool. `block` returns it to the pool when its last reference goes: this buffer's,
// or that of the last asynchronous copy still using it (Note [CUDA memory and streams]).
class PinnedHostBuffer final : public HostBuffer {
 public:
  PinnedHostBuffer(StagingBlocks& staging, std::shared_ptr<void> block, std::size_t size)
      : HostBuffer(block.get(), size, true), m_staging(staging), m_block(std::move(block)) {
    m_staging.add(data(), size, m_block);
  }
  ~PinnedHostBuffer() override { m_staging.remove(data()); }
  PinnedHostBuffer(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;

 private:
  StagingBlocks& m_staging;
  std::shared_ptr<void> m_block;
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

// One query per pending event; error statuses are cleared so that the next launch check does not report
// them (Note [CUDA last error]).
EventState state_of(cudaEvent_t event) noexcept {
  const cudaError_t status = cudaEventQuery(event);
  if (status == cudaSuccess) return EventState::done;
  clear_error(status);
  if (status == cudaErrorNotReady) return EventState::pending;
  ACC_LOG_WARN("an asynchronous copy's event reports {} ({}): its memory is released, the copy will not run",
               cudaGetErrorName(status), cudaGetErrorString(status));
  return EventState::failed;
}

}  // namespace

void CudaInterface::order_first_use(CudaDevice& d, const Tensor& t, Stream stream) {
  const Storage* key = t.storage().get();
  {
    std::lock_guard lock(d.fenced_mutex);
    auto it = d.fenced.find(key);
    if (it != d.fenced.end() && !it->second.expired()) return;
    d.fenced[key] = t.storage();
    // Drop entries of storages that are gone, so the map tracks live storages only.
    if (d.fenced.size() > 1024) std::erase_if(d.fenced, [](const auto& entry) { return entry.second.expired(); });
  }
  EventPtr queued = record_event(d.index, Stream::compute);
  stream_wait(d.index, stream, *queued);
}

void CudaInterface::keep_until_done(CudaDevice& d, const Tensor& t, const void* host, Stream stream) {
  std::vector<std::shared_ptr<const void>> kept{t.storage()};
  if (auto staging = m_staging.find(host)) kept.push_back(std::move(staging));
  cudaEvent_t done = nullptr;
  try {
    done = new_event_after(d.stream(stream));
  } catch (const Error&) {
    // Without an event nothing says when the copy is over: wait for it before its memory can be reused.
    log_failure(cudaStreamSynchronize(d.stream(stream)), "waiting for a copy whose event could not be recorded");
    throw;
  }
  d.pending.add(done, std::move(kept));
}

void CudaInterface::release_finished(CudaDevice& d) {
  auto finished = d.pending.take_finished(state_of);
  for (auto& use : finished) log_failure(cudaEventDestroy(use.done), "cudaEventDestroy");
  // `finished` goes here, outside the list's lock: dropping the last reference to a block frees it.
}

void CudaInterface::copy_from_host_async(const Tensor& dst, const void* src, Stream stream) {
  CudaDevice& d = ready(dst.device().index);
  if (dst.nbytes() == 0) return;
  DeviceGuard guard(d.index);
  release_finished(d);
  order_first_use(d, dst, stream);
  ACC_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src, dst.nbytes(), cudaMemcpyHostToDevice, d.stream(stream)),
                 "enqueueing a copy to " + dst.device().str());
  keep_until_done(d, dst, src, stream);
}

void CudaInterface::copy_to_host_async(void* dst, const Tensor& src, Stream stream) {
  CudaDevice& d = ready(src.device().index);
  if (src.nbytes() == 0) return;
  DeviceGuard guard(d.index);
  release_finished(d);
  order_first_use(d, src, stream);
  ACC_CUDA_CHECK(cudaMemcpyAsync(dst, src.data_ptr(), src.nbytes(), cudaMemcpyDeviceToHost, d.stream(stream)),
                 "enqueueing a copy from " + src.device().str());
  keep_until_done(d, src, dst, stream);
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
  release_finished(d);
}

// Note [DLPack streams]: the DLPack protocol names a CUDA stream by its handle, with 1 for the legacy
// default stream and 2 for the per-thread default stream (0 is not allowed). A consumer passes its stream to
// the producer's __dlpack__, and the producer makes that stream wait for the work that writes the tensor.
std::uintptr_t CudaInterface::native_stream(int index, Stream stream) {
  cudaStream_t handle = ready(index).stream(stream);
  return handle == nullptr ? 1 : reinterpret_cast<std::uintptr_t>(handle);
}

void CudaInterface::order_before_foreign_stream(int index, Stream stream, std::uintptr_t foreign) {
  ACC_CHECK(foreign != 0, ValueError, "DLPack: stream 0 is ambiguous on CUDA; pass 1 for the legacy default stream");
  cudaStream_t consumer = foreign == 1   ? cudaStreamLegacy
                          : foreign == 2 ? cudaStreamPerThread
                                         : reinterpret_cast<cudaStream_t>(foreign);
  const EventPtr done = record_event(index, stream);
  const auto& event = static_cast<const CudaEvent&>(*done);
  DeviceGuard guard(index);
  ACC_CUDA_CHECK(cudaStreamWaitEvent(consumer, event.get(), 0), "making a DLPack consumer's stream wait");
}

void CudaInterface::synchronize_stream(int index, Stream stream) {
  CudaDevice& d = ready(index);
  DeviceGuard guard(index);
  ACC_CUDA_CHECK(cudaStreamSynchronize(d.stream(stream)), "synchronizing a stream");
  release_finished(d);
}

std::unique_ptr<HostBuffer> CudaInterface::allocate_host(int index, std::size_t nbytes) {
  CudaDevice& d = ready(index);
  release_finished(d);  // staging blocks whose copies have completed go back to the pool first
  void* data = nullptr;
  try {
    data = m_pinned_pool->allocate(nbytes);
  } catch (const OutOfMemoryError& e) {
    throw OutOfMemoryError(fmt::format("pinned staging memory for cuda:{}: {}", index, e.what()));
  }
  // If making the handle throws, shared_ptr calls the deleter: the block goes back to the pool.
  CachingAllocator* pool = m_pinned_pool.get();
  std::shared_ptr<void> block(data, [pool](void* p) { pool->deallocate(p); });
  return std::make_unique<PinnedHostBuffer>(m_staging, std::move(block), nbytes);
}

}  // namespace accelera::cuda
