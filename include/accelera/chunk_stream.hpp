#pragma once
// The out-of-core "map": the chunks of a host tensor (a memory-mapped file included) handed out one by one
// as device tensors, the next chunk's upload overlapping the caller's work on the current one, and results
// written back chunk by chunk. MatrixEngine's streamed matmul is a special case of this pattern. Note
// [Chunk stream] in src/engine/chunk_stream.cpp says how buffers and events are used.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "accelera/core/device.hpp"
#include "accelera/core/export.hpp"
#include "accelera/core/tensor.hpp"
#include "accelera/engine.hpp"

namespace accelera {

// A chunk is the block rows [row0, row0 + rows) x columns [col0, col0 + cols) of a tensor's first two axes
// (every later axis whole). cols < 0 means every column (and is the only choice for a 1-D tensor).
using ChunkRegion = OutputChunk;

// The block of `t` that `chunk` names (a view).
ACC_API Tensor chunk_view(const Tensor& t, const ChunkRegion& chunk);

struct ChunkStreamStats {
  std::int64_t chunks = 0;  // handed out so far
  std::int64_t bytes_host_to_device = 0, bytes_device_to_host = 0;
  std::int64_t staged_chunks = 0;      // uploads packed through pinned staging (strided chunks, or CUDA)
  std::int64_t peak_device_bytes = 0;  // the stream's own chunk buffers
  double seconds = 0;                  // from the first next() until the last chunk's writes landed
};

class ACC_API ChunkStream {
 public:
  // `source`: a host tensor (any strides) or a tensor already on `device` (whose chunks are then views).
  // `chunks`: regions inside it (ShapeError otherwise). `prefetch`: upload chunk i + 1 while the caller
  // works on chunk i. `out`: a writable host tensor that write() fills region by region (its regions
  // are the chunks' blocks of `out`, so it may differ from `source` in later axes, or in columns for
  // chunks of whole rows).
  ChunkStream(Tensor source, std::vector<ChunkRegion> chunks, Device device, bool prefetch,
              std::optional<Tensor> out = std::nullopt);
  ~ChunkStream();
  ChunkStream(const ChunkStream&) = delete;
  ChunkStream& operator=(const ChunkStream&) = delete;

  // The next chunk as a contiguous tensor on the device (work enqueued on it after this call sees the
  // data), or nullopt after the last one (then finish() has run). A chunk stays valid while the caller
  // holds it: a buffer still referenced is never overwritten.
  std::optional<Tensor> next();
  // Writes `result` (on the device or the host, with the shape of out's block and out's dtype) into out's
  // block of the chunk last returned. Asynchronous: it lands by finish().
  void write(const Tensor& result);
  // Waits until every upload has arrived and every write has landed in `out`. Called by next() after the
  // last chunk.
  void finish();

  std::int64_t index() const noexcept;  // the chunk last returned; -1 before the first
  std::int64_t size() const noexcept;   // the number of chunks
  const ChunkStreamStats& stats() const noexcept;
  Device device() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace accelera
