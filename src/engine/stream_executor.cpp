#include "engine/stream_executor.hpp"

#include <array>
#include <limits>
#include <memory>

#include "accelera/core/error.hpp"
#include "accelera/core/interrupt.hpp"
#include "accelera/core/registry.hpp"
#include "accelera/ops.hpp"
#include "engine/blocks.hpp"

namespace accelera::engine {

namespace {

// Which rows and columns of an operand a panel holds.
struct PanelKey {
  std::int64_t row0 = -1, rows = 0, col0 = -1, cols = 0;
  bool operator==(const PanelKey&) const = default;
};

struct PanelSlot {
  Tensor buffer;                        // device, 1-D, capacity elements
  std::unique_ptr<HostBuffer> staging;  // pinned; absent on the CPU device
  PanelKey key;                         // what the buffer holds (row0 < 0: nothing yet)
  EventPtr uploaded;                    // the last upload into the buffer
  EventPtr last_read;                   // the last GEMM that read the buffer
  std::int64_t last_step = -1;
};

struct OutputSlot {
  Tensor buffer;
  std::unique_ptr<HostBuffer> staging;
  EventPtr downloaded;
  std::int64_t pending_tile = -1;  // downloaded (or downloading) but not yet unpacked
  std::int64_t order = 0;          // when the pending tile was taken: older tiles are unpacked first
};

// A contiguous (rows x cols) matrix view of the first rows * cols elements of a 1-D buffer.
Tensor matrix_view(const Tensor& buffer, std::int64_t rows, std::int64_t cols) {
  const std::array<std::int64_t, 2> dims{rows, cols};
  return *buffer.slice(0, 0, rows * cols).view(dims);
}

Tensor staging_view(const HostBuffer& staging, std::int64_t rows, std::int64_t cols, DType dtype) {
  const Shape shape({rows, cols});
  return Tensor::from_blob(staging.data(), shape, shape.contiguous_strides(), dtype, Device::cpu(), [] {});
}

class Pipeline {
 public:
  Pipeline(const Plan& plan, const StreamJob& job, StreamCounters& counters)
      : m_plan(plan),
        m_job(job),
        m_counters(counters),
        m_device(device_interface(job.device)),
        m_index(job.device.index),
        m_on_cpu(job.device.is_cpu()),
        m_dtype(job.c.dtype()) {
    const std::int64_t tm = plan.tile_m, tn = plan.tile_n, tk = plan.tile_k;
    for (int i = 0; i < job.panels_in_flight; ++i) {
      m_a.push_back(make_panel(tm * tk));
      m_b.push_back(make_panel(tk * tn));
    }
    for (int i = 0; i < job.output_buffers; ++i) {
      OutputSlot slot;
      slot.buffer = allocate(tm * tn);
      if (!m_on_cpu) slot.staging = m_device.allocate_host(m_index, static_cast<std::size_t>(tm * tn) * itemsize());
      m_out.push_back(std::move(slot));
    }
  }

  void run(const TileSource& next_tile, const std::function<void(std::size_t)>& on_tile_done) {
    const std::int64_t k = m_job.a.shape()[1];
    std::int64_t step = 0;
    std::size_t taken = 0;
    while (const std::optional<std::size_t> next = next_tile()) {
      const std::size_t t = *next;
      const OutputChunk& tile = m_plan.tiles[t];
      OutputSlot& out = m_out[taken++ % m_out.size()];
      if (out.pending_tile >= 0) finish(out, on_tile_done);
      const Tensor c = matrix_view(out.buffer, tile.rows, tile.cols);
      EventPtr computed;
      for (std::int64_t k0 = 0; k0 < k; k0 += m_plan.tile_k, ++step) {
        check_stop();  // between steps: Ctrl-C stops a long product promptly
        const std::int64_t kk = std::min(m_plan.tile_k, k - k0);
        PanelSlot& pa = load(m_a, PanelKey{tile.row0, tile.rows, k0, kk}, m_job.a, step);
        PanelSlot& pb = load(m_b, PanelKey{k0, kk, tile.col0, tile.cols}, m_job.b, step);
        if (!m_on_cpu) {
          m_device.stream_wait(m_index, Stream::compute, *pa.uploaded);
          m_device.stream_wait(m_index, Stream::compute, *pb.uploaded);
        }
        const Tensor av = matrix_view(pa.buffer, tile.rows, kk), bv = matrix_view(pb.buffer, kk, tile.cols);
        matmul_into(av, bv, c, /*accumulate=*/k0 > 0);
        computed = m_device.record_event(m_index, Stream::compute);
        pa.last_read = computed;
        pb.last_read = computed;
      }
      if (m_on_cpu) {
        copy_into(c, block(m_job.c, tile));
        if (on_tile_done) on_tile_done(t);
        continue;
      }
      m_device.stream_wait(m_index, Stream::download, *computed);
      m_device.copy_to_host_async(out.staging->data(), c, Stream::download);
      out.downloaded = m_device.record_event(m_index, Stream::download);
      out.pending_tile = static_cast<std::int64_t>(t);
      out.order = static_cast<std::int64_t>(taken);
      m_counters.bytes_device_to_host += tile.rows * tile.cols * static_cast<std::int64_t>(itemsize());
    }
    // Unpack what is still in flight, oldest first.
    for (;;) {
      OutputSlot* oldest = nullptr;
      for (auto& slot : m_out) {
        if (slot.pending_tile >= 0 && (oldest == nullptr || slot.order < oldest->order)) oldest = &slot;
      }
      if (oldest == nullptr) break;
      finish(*oldest, on_tile_done);
    }
  }

  // Every stream idle: buffers may be released.
  void drain() { m_device.synchronize(m_index); }

 private:
  std::size_t itemsize() const { return dtype_size(m_dtype); }

  Tensor allocate(std::int64_t elements) {
    Tensor t = Tensor::empty(Shape({elements}), m_dtype, m_job.device);
    m_device_bytes += static_cast<std::int64_t>(t.nbytes());
    m_counters.peak_device_bytes = std::max(m_counters.peak_device_bytes, m_device_bytes);
    return t;
  }

  PanelSlot make_panel(std::int64_t elements) {
    PanelSlot slot;
    slot.buffer = allocate(elements);
    if (!m_on_cpu) slot.staging = m_device.allocate_host(m_index, static_cast<std::size_t>(elements) * itemsize());
    return slot;
  }

  // The slot holding `key`, uploading it into the least recently used slot when no slot holds it.
  PanelSlot& load(std::vector<PanelSlot>& slots, const PanelKey& key, const Tensor& source, std::int64_t step) {
    for (auto& slot : slots) {
      if (slot.key == key) {
        slot.last_step = step;
        return slot;
      }
    }
    PanelSlot* victim = &slots.front();
    for (auto& slot : slots) {
      if (slot.last_step < victim->last_step) victim = &slot;
    }
    PanelSlot& slot = *victim;
    const Tensor view = block(source, key.row0, key.rows, key.col0, key.cols);
    if (m_on_cpu) {
      copy_into(view, matrix_view(slot.buffer, key.rows, key.cols));
    } else {
      if (slot.uploaded) slot.uploaded->synchronize();  // the staging buffer is free again
      copy_into(view, staging_view(*slot.staging, key.rows, key.cols, m_dtype));
      if (slot.last_read) m_device.stream_wait(m_index, Stream::upload, *slot.last_read);
      m_device.copy_from_host_async(matrix_view(slot.buffer, key.rows, key.cols), slot.staging->data(), Stream::upload);
      slot.uploaded = m_device.record_event(m_index, Stream::upload);
      m_counters.bytes_host_to_device += key.rows * key.cols * static_cast<std::int64_t>(itemsize());
    }
    slot.key = key;
    slot.last_step = step;
    return slot;
  }

  void finish(OutputSlot& out, const std::function<void(std::size_t)>& on_tile_done) {
    const auto t = static_cast<std::size_t>(out.pending_tile);
    const OutputChunk& tile = m_plan.tiles[t];
    out.downloaded->synchronize();
    out.pending_tile = -1;
    copy_into(staging_view(*out.staging, tile.rows, tile.cols, m_dtype), block(m_job.c, tile));
    if (on_tile_done) on_tile_done(t);
  }

  void check_stop() const {
    if (m_job.check_stop) {
      m_job.check_stop();
    } else {
      throw_if_interrupted("matmul");
    }
  }

  const Plan& m_plan;
  const StreamJob& m_job;
  StreamCounters& m_counters;
  DeviceInterface& m_device;
  int m_index;
  bool m_on_cpu;
  DType m_dtype;
  std::int64_t m_device_bytes = 0;
  std::vector<PanelSlot> m_a, m_b;
  std::vector<OutputSlot> m_out;
};

}  // namespace

void run_streamed(const Plan& plan, const StreamJob& job, const TileSource& next_tile, StreamCounters& counters,
                  const std::function<void(std::size_t)>& on_tile_done) {
  Pipeline pipeline(plan, job, counters);
  try {
    pipeline.run(next_tile, on_tile_done);
  } catch (...) {
    // Nothing in flight may outlive the buffers; the original error is what the caller sees.
    pipeline.drain();
    throw;
  }
  pipeline.drain();
}

void run_streamed(const Plan& plan, const StreamJob& job, std::vector<char>& done, StreamCounters& counters,
                  const std::function<void(std::size_t)>& on_tile_done) {
  ACC_ASSERT(done.size() == plan.tiles.size(), "one done flag per tile");
  std::size_t next = 0;
  const TileSource in_order = [&]() -> std::optional<std::size_t> {
    while (next < done.size() && done[next]) ++next;
    if (next == done.size()) return std::nullopt;
    return next++;
  };
  run_streamed(plan, job, in_order, counters, [&](std::size_t t) {
    done[t] = 1;
    if (on_tile_done) on_tile_done(t);
  });
}

}  // namespace accelera::engine
