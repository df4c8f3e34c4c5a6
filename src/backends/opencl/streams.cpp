// Asynchronous copies, events between queues and pinned staging memory (Note [Streams and events]).
#include "backends/opencl/opencl_interface.hpp"
#include "core/log.hpp"

namespace accelera::opencl {

namespace {

class ClEvent final : public Event {
 public:
  explicit ClEvent(cl_event event) : m_event(event) {}
  ~ClEvent() override { clReleaseEvent(m_event); }
  ClEvent(const ClEvent&) = delete;
  ClEvent& operator=(const ClEvent&) = delete;

  void synchronize() override { ACC_CL_CHECK(clWaitForEvents(1, &m_event), "waiting for an event"); }
  bool query() override {
    cl_int state = CL_QUEUED;
    ACC_CL_CHECK(clGetEventInfo(m_event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(state), &state, nullptr),
                 "querying an event");
    // A negative state is an error code of the command: waiting on it reports it.
    if (state < 0) synchronize();
    return state == CL_COMPLETE;
  }
  cl_event get() const noexcept { return m_event; }

 private:
  cl_event m_event;
};

// A buffer the driver allocates in host memory it can pin (CL_MEM_ALLOC_HOST_PTR), mapped once for the
// buffer's lifetime: transfers from its pointer skip the driver's own staging copy.
class ClHostBuffer final : public HostBuffer {
 public:
  ClHostBuffer(cl_command_queue queue, cl_mem buffer, void* data, std::size_t size)
      : HostBuffer(data, size, true), m_queue(queue), m_buffer(buffer) {}
  ~ClHostBuffer() override {
    cl_int status = clEnqueueUnmapMemObject(m_queue, m_buffer, data(), 0, nullptr, nullptr);
    if (status == CL_SUCCESS) status = clFinish(m_queue);
    if (status != CL_SUCCESS) ACC_LOG_ERROR("unmapping a staging buffer failed: {}", status_name(status));
    clReleaseMemObject(m_buffer);
  }
  ClHostBuffer(const ClHostBuffer&) = delete;
  ClHostBuffer& operator=(const ClHostBuffer&) = delete;

 private:
  cl_command_queue m_queue;
  cl_mem m_buffer;
};

}  // namespace

void OpenClInterface::copy_from_host_async(const Tensor& dst, const void* src, Stream stream) {
  ClDevice& d = device(dst.device().index);
  if (dst.nbytes() == 0) return;
  ACC_CL_CHECK(clEnqueueWriteBuffer(d.queue(stream), buffer_of(dst), CL_FALSE, dst.offset() * dst.itemsize(),
                                    dst.nbytes(), src, 0, nullptr, nullptr),
               "enqueueing a copy to " + dst.device().str());
}

void OpenClInterface::copy_to_host_async(void* dst, const Tensor& src, Stream stream) {
  ClDevice& d = device(src.device().index);
  if (src.nbytes() == 0) return;
  ACC_CL_CHECK(clEnqueueReadBuffer(d.queue(stream), buffer_of(src), CL_FALSE, src.offset() * src.itemsize(),
                                   src.nbytes(), dst, 0, nullptr, nullptr),
               "enqueueing a copy from " + src.device().str());
}

EventPtr OpenClInterface::record_event(int index, Stream stream) {
  cl_event event = nullptr;
  ACC_CL_CHECK(clEnqueueMarkerWithWaitList(device(index).queue(stream), 0, nullptr, &event), "recording an event");
  return std::make_shared<ClEvent>(event);
}

void OpenClInterface::stream_wait(int index, Stream stream, const Event& event) {
  const auto* cl_event_ptr = dynamic_cast<const ClEvent*>(&event);
  ACC_ASSERT(cl_event_ptr != nullptr, "an event of another backend was passed to OpenCL");
  cl_event handle = cl_event_ptr->get();
  ACC_CL_CHECK(clEnqueueBarrierWithWaitList(device(index).queue(stream), 1, &handle, nullptr),
               "making a queue wait for an event");
}

void OpenClInterface::synchronize_stream(int index, Stream stream) {
  ACC_CL_CHECK(clFinish(device(index).queue(stream)), "synchronizing a command queue");
}

std::unique_ptr<HostBuffer> OpenClInterface::allocate_host(int index, std::size_t nbytes) {
  ClDevice& d = device(index);
  const std::size_t size = std::max<std::size_t>(nbytes, 64);
  cl_int status = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(d.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, nullptr, &status);
  if (status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_HOST_MEMORY ||
      status == CL_OUT_OF_RESOURCES || status == CL_INVALID_BUFFER_SIZE) {
    throw OutOfMemoryError(fmt::format("cannot allocate {} bytes of pinned staging memory for opencl:{} ({})",
                                       nbytes, index, status_name(status)));
  }
  ACC_CL_CHECK(status, "allocating pinned staging memory");
  // Mapped on the upload queue (idle work never depends on it); blocking, so the pointer is valid at once.
  void* data = clEnqueueMapBuffer(d.queue(Stream::upload), buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, size, 0,
                                  nullptr, nullptr, &status);
  if (status != CL_SUCCESS) {
    clReleaseMemObject(buffer);
    ACC_CL_CHECK(status, "mapping pinned staging memory");
  }
  return std::make_unique<ClHostBuffer>(d.queue(Stream::upload), buffer, data, nbytes);
}

}  // namespace accelera::opencl
