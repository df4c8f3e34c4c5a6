// Note [Chunk stream]
// Chunks are uploaded into a ring of device buffers (slots) on the upload stream and handed to the caller,
// whose work is enqueued on the compute stream; events order the two (Note [Streams and events]):
//   - next() for chunk i makes the compute stream wait for chunk i's upload (the host does not block), then
//     enqueues chunk i + 1's upload, which therefore runs while the caller's work on chunk i does;
//   - with prefetch there are three slots: chunk i + 1's, chunk i's, and chunk i - 1's, which the caller may
//     still hold (a Python loop variable keeps it until next() returns). Chunk i + 1 reuses chunk i - 2's
//     slot once the compute work enqueued so far (which includes everything that read chunk i - 2) is done:
//     the upload stream waits for an event recorded on the compute stream. If the caller kept chunk i - 2
//     alive, the slot gets a fresh buffer instead, so a chunk in the caller's hands is never overwritten;
//   - a contiguous chunk is uploaded straight from the source's memory (on OpenCL, where a non-blocking
//     write from any host pointer is asynchronous); a strided one, or any chunk on CUDA (whose copies from
//     pageable memory block the host), is first packed into the slot's pinned staging buffer, after that
//     buffer's previous upload has completed;
//   - write() enqueues the download of a result on the download stream after the compute work that made
//     it, straight into `out` when its block is contiguous (OpenCL), else into pinned staging unpacked once
//     the download has completed. Results are held until then.
// On the CPU device, and for a source already on the device, chunks are views: nothing moves.
#include "accelera/chunk_stream.hpp"

#include <algorithm>
#include <chrono>
#include <deque>

#include "accelera/core/device_interface.hpp"
#include "accelera/core/error.hpp"
#include "accelera/core/registry.hpp"
#include "core/log.hpp"

namespace accelera {

namespace {

constexpr std::size_t kMaxPendingWrites = 4;

std::string region_str(const ChunkRegion& c) {
  return c.cols < 0 ? fmt::format("rows [{}, {})", c.row0, c.row0 + c.rows)
                    : fmt::format("rows [{}, {}) x cols [{}, {})", c.row0, c.row0 + c.rows, c.col0, c.col0 + c.cols);
}

void check_region(const Tensor& t, const ChunkRegion& c, const char* what) {
  ACC_CHECK(c.rows >= 0 && c.row0 >= 0 && c.row0 + c.rows <= t.dim(0), ShapeError,
            "chunk {} lies outside {} of shape {}", region_str(c), what, t.shape().str());
  if (c.cols < 0) return;
  ACC_CHECK(t.ndim() >= 2, ShapeError, "chunk {} has columns, but {} is 1-D", region_str(c), what);
  ACC_CHECK(c.col0 >= 0 && c.col0 + c.cols <= t.dim(1), ShapeError, "chunk {} lies outside {} of shape {}",
            region_str(c), what, t.shape().str());
}

Tensor contiguous_view(const Tensor& buffer, const Shape& shape) {
  return *buffer.slice(0, 0, shape.numel()).view(shape.dims());
}

Tensor host_view(void* data, const Shape& shape, DType dtype) {
  return Tensor::from_blob(data, shape, shape.contiguous_strides(), dtype, Device::cpu(), [] {});
}

struct Slot {
  Tensor buffer;                        // 1-D on the device, capacity elements
  std::unique_ptr<HostBuffer> staging;  // pinned, allocated when first needed
  EventPtr uploaded;                    // the last upload into buffer (from staging when staged)
};

struct PendingWrite {
  Tensor result;                        // kept alive until downloaded
  std::unique_ptr<HostBuffer> staging;  // null when downloaded straight into out
  Tensor destination;                   // out's block
  EventPtr downloaded;
};

}  // namespace

Tensor chunk_view(const Tensor& t, const ChunkRegion& c) {
  Tensor v = t.slice(0, c.row0, c.row0 + c.rows);
  return c.cols < 0 ? v : v.slice(1, c.col0, c.col0 + c.cols);
}

struct ChunkStream::Impl {
  Tensor source;
  std::vector<ChunkRegion> chunks;
  Device device;
  bool prefetch;
  std::optional<Tensor> out;
  DeviceInterface& api;
  bool views_only;      // CPU device or a source already there: chunks are views
  bool stage_always;    // CUDA: copies from pageable memory are not asynchronous
  std::int64_t capacity = 0;  // elements of the largest chunk
  std::vector<Slot> slots;
  std::int64_t next_chunk = 0, current = -1, issued = 0;
  std::deque<PendingWrite> pending;
  std::vector<std::unique_ptr<HostBuffer>> spare_staging;  // download staging buffers free for reuse
  ChunkStreamStats stats;
  std::chrono::steady_clock::time_point start;
  std::int64_t device_bytes = 0;

  Impl(Tensor s, std::vector<ChunkRegion> c, Device d, bool p, std::optional<Tensor> o)
      : source(std::move(s)), chunks(std::move(c)), device(d), prefetch(p), out(std::move(o)),
        api(device_interface(d)) {
    ACC_CHECK(source.defined(), ValueError, "ChunkStream: the source is undefined");
    ACC_CHECK(source.ndim() >= 1, ShapeError, "ChunkStream: a 0-d tensor has no chunks");
    ACC_CHECK(source.device().is_cpu() || source.device() == device, DeviceError,
              "ChunkStream: the source lives on {}; it must be on the host or on {}", source.device().str(),
              device.str());
    for (const ChunkRegion& c : chunks) {
      check_region(source, c, "the source");
      capacity = std::max(capacity, chunk_view(source, c).numel());
    }
    if (out) {
      ACC_CHECK(out->defined() && out->device().is_cpu(), DeviceError, "ChunkStream: out must be a host tensor");
      ACC_CHECK(!out->storage()->is_read_only(), ValueError, "ChunkStream: out is read-only");
      ACC_CHECK(out->ndim() >= 1, ShapeError, "ChunkStream: out is 0-d");
      for (const ChunkRegion& c : chunks) check_region(*out, c, "out");
    }
    views_only = device.is_cpu() || source.device() == device;
    stage_always = device.kind == DeviceKind::cuda;
  }

  // Chunk j's upload, into slot j % slots, after the compute work enqueued so far (Note [Chunk stream]).
  void issue(std::int64_t j) {
    if (slots.empty()) slots.resize(prefetch ? 3 : 2);
    Slot& slot = slots[static_cast<std::size_t>(j % static_cast<std::int64_t>(slots.size()))];
    if (!slot.buffer.defined() || slot.buffer.storage().use_count() > 1) {
      if (slot.buffer.defined()) device_bytes -= static_cast<std::int64_t>(slot.buffer.nbytes());
      slot.buffer = Tensor::empty(Shape({capacity}), source.dtype(), device);
      device_bytes += static_cast<std::int64_t>(slot.buffer.nbytes());
      stats.peak_device_bytes = std::max(stats.peak_device_bytes, device_bytes);
    }
    const Tensor region = chunk_view(source, chunks[static_cast<std::size_t>(j)]);
    const Tensor target = contiguous_view(slot.buffer, region.shape());
    api.stream_wait(device.index, Stream::upload, *api.record_event(device.index, Stream::compute));
    if (region.is_contiguous() && !stage_always) {
      api.copy_from_host_async(target, region.data_ptr(), Stream::upload);
    } else {
      const std::size_t bytes = static_cast<std::size_t>(capacity) * source.itemsize();
      if (!slot.staging) slot.staging = api.allocate_host(device.index, bytes);
      if (slot.uploaded) slot.uploaded->synchronize();  // its staging buffer is free again
      copy_into(region, host_view(slot.staging->data(), region.shape(), source.dtype()));
      api.copy_from_host_async(target, slot.staging->data(), Stream::upload);
      ++stats.staged_chunks;
    }
    slot.uploaded = api.record_event(device.index, Stream::upload);
    stats.bytes_host_to_device += static_cast<std::int64_t>(region.nbytes());
    issued = j + 1;
  }

  std::optional<Tensor> next() {
    if (next_chunk == 0) start = std::chrono::steady_clock::now();
    if (next_chunk >= static_cast<std::int64_t>(chunks.size())) {
      finish();
      return std::nullopt;
    }
    const std::int64_t i = next_chunk;
    const ChunkRegion& c = chunks[static_cast<std::size_t>(i)];
    Tensor chunk;
    if (views_only) {
      chunk = chunk_view(source, c);
    } else {
      if (issued <= i) issue(i);
      if (prefetch && i + 1 < static_cast<std::int64_t>(chunks.size())) issue(i + 1);
      const Slot& slot = slots[static_cast<std::size_t>(i % static_cast<std::int64_t>(slots.size()))];
      api.stream_wait(device.index, Stream::compute, *slot.uploaded);
      chunk = contiguous_view(slot.buffer, chunk_view(source, c).shape());
    }
    next_chunk = i + 1;
    current = i;
    stats.chunks = next_chunk;
    retire(false);
    return chunk;
  }

  void write(const Tensor& result) {
    ACC_CHECK(current >= 0, ValueError, "ChunkStream.write: no chunk has been handed out yet");
    ACC_CHECK(out.has_value(), ValueError, "ChunkStream.write: the stream was made without an out to write to");
    ACC_CHECK(result.defined(), ValueError, "ChunkStream.write: the result is undefined");
    const Tensor destination = chunk_view(*out, chunks[static_cast<std::size_t>(current)]);
    ACC_CHECK(result.shape() == destination.shape(), ShapeError,
              "ChunkStream.write: the result has shape {}, out's block of chunk {} has shape {}",
              result.shape().str(), current, destination.shape().str());
    ACC_CHECK(result.dtype() == destination.dtype(), DTypeError, "ChunkStream.write: the result is {}, out is {}",
              dtype_name(result.dtype()), dtype_name(destination.dtype()));
    if (result.device().is_cpu()) {
      copy_into(result, destination);
      return;
    }
    ACC_CHECK(result.device() == device, DeviceError, "ChunkStream.write: the result lives on {}, the stream on {}",
              result.device().str(), device.str());
    if (pending.size() >= kMaxPendingWrites) retire_front();
    PendingWrite w;
    w.result = result.contiguous();
    w.destination = destination;
    api.stream_wait(device.index, Stream::download, *api.record_event(device.index, Stream::compute));
    if (destination.is_contiguous() && !stage_always) {
      api.copy_to_host_async(destination.data_ptr(), w.result, Stream::download);
    } else {
      const std::size_t bytes = w.result.nbytes();
      auto spare = std::find_if(spare_staging.begin(), spare_staging.end(), [&](const auto& b) { return b->size() >= bytes; });
      if (spare != spare_staging.end()) {
        w.staging = std::move(*spare);
        spare_staging.erase(spare);
      } else {
        w.staging = api.allocate_host(device.index, static_cast<std::size_t>(capacity) * w.result.itemsize());
      }
      api.copy_to_host_async(w.staging->data(), w.result, Stream::download);
    }
    w.downloaded = api.record_event(device.index, Stream::download);
    stats.bytes_device_to_host += static_cast<std::int64_t>(w.result.nbytes());
    pending.push_back(std::move(w));
  }

  // Completes the oldest write: waits for its download and unpacks it from staging.
  void retire_front() {
    PendingWrite& w = pending.front();
    w.downloaded->synchronize();
    if (w.staging) {
      copy_into(host_view(w.staging->data(), w.destination.shape(), w.destination.dtype()), w.destination);
      spare_staging.push_back(std::move(w.staging));
    }
    pending.pop_front();
  }

  // Completes the writes whose downloads are done (all of them when `wait`).
  void retire(bool wait) {
    while (!pending.empty() && (wait || pending.front().downloaded->query())) retire_front();
  }

  void finish() {
    retire(true);
    // Every chunk has arrived: what the loop moved is moved, whether or not the caller's work waited for it.
    if (!views_only && issued > 0) api.synchronize_stream(device.index, Stream::upload);
    if (next_chunk > 0) stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // Writes still pending land in `out`, and nothing in flight outlives the buffers or the source it reads.
  void drain() noexcept {
    try {
      retire(true);
      if (views_only) return;
      api.synchronize_stream(device.index, Stream::upload);
      api.synchronize_stream(device.index, Stream::download);
    } catch (const std::exception& error) {  // a destructor cannot throw: say it, loudly
      ACC_LOG_ERROR("ChunkStream: finishing its copies failed while closing: {}", error.what());
    }
  }
};

ChunkStream::ChunkStream(Tensor source, std::vector<ChunkRegion> chunks, Device device, bool prefetch,
                         std::optional<Tensor> out)
    : m_impl(std::make_unique<Impl>(std::move(source), std::move(chunks), device, prefetch, std::move(out))) {}

ChunkStream::~ChunkStream() { m_impl->drain(); }

std::optional<Tensor> ChunkStream::next() { return m_impl->next(); }
void ChunkStream::write(const Tensor& result) { m_impl->write(result); }
void ChunkStream::finish() { m_impl->finish(); }
std::int64_t ChunkStream::index() const noexcept { return m_impl->current; }
std::int64_t ChunkStream::size() const noexcept { return static_cast<std::int64_t>(m_impl->chunks.size()); }
const ChunkStreamStats& ChunkStream::stats() const noexcept { return m_impl->stats; }
Device ChunkStream::device() const noexcept { return m_impl->device; }

}  // namespace accelera
