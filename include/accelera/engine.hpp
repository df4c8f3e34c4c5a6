#pragma once
// The out-of-core matrix engine: matmul of host-resident matrices (memory-mapped ones included) larger than
// device memory, streamed through a device in tiles with copies overlapping compute (Note [Out-of-core
// matmul plan] in src/engine/tile_planner.hpp, Note [Streamed execution] in src/engine/stream_executor.hpp,
// Note [Out-of-memory recovery] in src/engine/streamed_matmul.hpp).
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "accelera/core/device.hpp"
#include "accelera/core/tensor.hpp"
#include "accelera/core/export.hpp"

namespace accelera {

// How the planner shapes the output tiles: whole rows of C, square tiles, or whichever shape moves the
// fewest bytes.
enum class ChunkingStrategy { row, tile, adaptive };
// Every strategy, in the order messages and help texts name them.
inline constexpr std::array<ChunkingStrategy, 3> kChunkingStrategies = {ChunkingStrategy::row, ChunkingStrategy::tile,
                                                                        ChunkingStrategy::adaptive};
// "row", "tile" or "adaptive".
ACC_API std::string_view strategy_name(ChunkingStrategy strategy);
// The strategy of that name; ValueError naming the choices for any other.
ACC_API ChunkingStrategy parse_chunking_strategy(std::string_view name);

// What the engine does when the device runs out of memory during a call (Note [Out-of-memory recovery] in
// src/engine/streamed_matmul.hpp): `default_chunk` shrinks the tiles and resumes on the device (and finishes
// on the CPU a region that not even the smallest tile fits); `cpu` computes what is left on the CPU at once,
// and also takes a budget too small for any tile; `error` raises OutOfMemoryError. Every fallback is logged
// and recorded in RunStats.
enum class FallbackStrategy { cpu, default_chunk, error };
inline constexpr std::array<FallbackStrategy, 3> kFallbackStrategies = {
    FallbackStrategy::cpu, FallbackStrategy::default_chunk, FallbackStrategy::error};
// "cpu", "default_chunk" or "error".
ACC_API std::string_view fallback_strategy_name(FallbackStrategy strategy);
// The fallback of that name; ValueError naming the choices for any other.
ACC_API FallbackStrategy parse_fallback_strategy(std::string_view name);

// One output tile: rows [row0, row0 + rows) x columns [col0, col0 + cols) of C.
struct OutputChunk {
  std::int64_t row0 = 0, rows = 0, col0 = 0, cols = 0;
  bool operator==(const OutputChunk&) const = default;
};

// What decides the output tiles of a matmul: the planner with a strategy, or tiles the caller chose (which
// must cover C exactly once).
using Tiling = std::variant<ChunkingStrategy, std::vector<OutputChunk>>;

// The devices "all" names: every CUDA and OpenCL device present, and the CPU too when `include_cpu` (or
// when there is no other device). Any other spec is a comma-separated list of device names ("cuda:0,
// opencl:1"); DeviceError for a device that is not present, ValueError for an empty list or a repeat.
ACC_API std::vector<Device> parse_engine_devices(std::string_view spec, bool include_cpu = false);

struct EngineOptions {
  std::optional<Device> device;  // default: default_device()
  // Several devices share each streamed matmul (Note [Several devices] in src/engine/multi_device_matmul.hpp);
  // when given, `device` is the first of them.
  std::vector<Device> devices;
  bool auto_detect_memory = true;  // size tiles from the device's free memory and budget
  ChunkingStrategy chunking_strategy = ChunkingStrategy::adaptive;
  std::optional<std::int64_t> chunk_size;  // fixed tile edge; used when auto_detect_memory is false
  bool enable_progress = true;  // a progress bar on stderr (when it is a terminal) for long calls
  std::optional<std::int64_t> memory_budget;  // device bytes the engine may use; default: the device's
                                              // allocator budget less what is in use
  FallbackStrategy fallback = FallbackStrategy::default_chunk;  // out of device memory mid-call
};

// What one device did in the engine's last call.
struct DeviceRunStats {
  std::string device;
  std::int64_t tiles = 0;  // output tiles it computed (of the call's plan; its smaller pieces are not counted)
  std::int64_t bytes_host_to_device = 0, bytes_device_to_host = 0;
  std::int64_t peak_device_bytes = 0;
  std::int64_t fallbacks = 0;  // its tile shrinks after out-of-memory, and when it gave up
  double busy_seconds = 0;     // time it spent computing tiles
};

// Statistics of the engine's last call.
struct RunStats {
  std::string op;        // "matmul", "add", "multiply"
  std::string device;    // where it computed
  std::string strategy;  // "in-core", "row", "tile", "chunks" or "cpu"
  bool streamed = false;
  std::int64_t tiles = 0, k_steps = 0, tile_m = 0, tile_n = 0, tile_k = 0;
  std::int64_t bytes_host_to_device = 0, bytes_device_to_host = 0;
  std::int64_t peak_device_bytes = 0;  // the engine's own buffers at their highest
  std::int64_t budget_bytes = 0;
  std::int64_t fallbacks = 0;              // tile shrinks after out-of-memory, and CPU fallbacks
  std::vector<std::string> fallback_log;  // one line per fallback
  std::vector<DeviceRunStats> per_device;  // one entry per device that took part, in the engine's order
  // The blocks of C written so far, in order: all of C after success; after a failed or interrupted call,
  // what a caller's `out` holds (the rest of `out` is unspecified then).
  std::vector<OutputChunk> finished_tiles;
  bool completed = false;  // false: the call failed or was interrupted (the error said what `out` holds)
  double seconds = 0;
  double flops = 0;
};

// What the engine would do for a product of host operands, without doing it (MatrixEngine::plan).
struct EnginePlan {
  bool in_core = false;  // one product on the device, no tiles
  std::string strategy;  // "in-core", "row", "tile"
  std::int64_t tile_m = 0, tile_n = 0, tile_k = 0, k_steps = 0;
  std::vector<OutputChunk> tiles;  // in the order a single device runs them
  std::int64_t device_bytes = 0;   // buffers per device
  std::int64_t bytes_in = 0, bytes_out = 0;  // host->device and device->host traffic on one device
};

// The streamed plan for devices with these budgets (bytes each), whatever devices this machine has: the
// planner alone, for tools that predict other machines (accelera.simulate). OutOfMemoryError when no tile
// fits the smallest budget.
ACC_API EnginePlan plan_streamed_matmul(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype,
                                        const std::vector<std::int64_t>& budgets,
                                        ChunkingStrategy strategy = ChunkingStrategy::adaptive);

struct EngineProgress {
  std::int64_t tiles_done = 0, tiles_total = 0;
  std::int64_t bytes_moved = 0;
  double seconds = 0;
};
// Called after every finished tile; returning false cancels the call (CancelledError).
using ProgressCallback = std::function<bool(const EngineProgress&)>;

struct EngineMemoryInfo {
  std::string device;
  double gpu_utilization = 0;  // percent of the device's memory reserved by Accelera
  double gpu_total_gb = 0, gpu_available_gb = 0, gpu_budget_gb = 0, engine_budget_gb = 0;
  double cpu_total_gb = 0, cpu_available_gb = 0;
};

class ACC_API MatrixEngine {
 public:
  explicit MatrixEngine(EngineOptions options = {});

  // C = A @ B for 2-D float32 or float64 matrices of one dtype, anywhere (host, device, memory-mapped).
  // The result lands in `out` when given (host or device, any strides, not overlapping the inputs), else
  // in a new tensor: on the device when both inputs are there and it fits, on the host otherwise.
  // Operands on the host that do not fit the budget are streamed, tiled by `chunk_strategy` (default: the
  // engine's). Inputs are never modified.
  Tensor matmul(const Tensor& a, const Tensor& b, std::optional<ChunkingStrategy> chunk_strategy = std::nullopt,
                std::optional<Tensor> out = std::nullopt);
  // The same over output chunks chosen by the caller; they must cover C exactly once (ValueError otherwise).
  Tensor matmul_chunks(const Tensor& a, const Tensor& b, std::vector<OutputChunk> chunks,
                       std::optional<Tensor> out = std::nullopt);
  // Element-wise ops are bound by the bus when operands are on the host (at most bandwidth / (2 x element
  // size) elements per second on the way in), so they run on the CPU unless both operands already live on
  // the engine's device.
  Tensor add(const Tensor& a, const Tensor& b);
  Tensor multiply(const Tensor& a, const Tensor& b);

  // The plan of C = A @ B for m x k and k x n host operands of `dtype` at the devices' budgets now: in core,
  // or the streamed tiles (shared by every device when there are several). OutOfMemoryError when no tile fits.
  EnginePlan plan(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype,
                  std::optional<ChunkingStrategy> chunk_strategy = std::nullopt) const;

  EngineMemoryInfo memory_info() const;
  // Returns the device's cached blocks (and the engine's) to the device.
  void cleanup();
  void set_chunk_size(std::int64_t chunk_size);
  void enable_auto_memory_detection(bool enabled);
  void set_chunking_strategy(ChunkingStrategy strategy);
  void set_memory_budget(std::optional<std::int64_t> bytes);
  void set_progress_callback(ProgressCallback callback);
  void set_enable_progress(bool enabled);
  void set_fallback_strategy(FallbackStrategy fallback);

  const RunStats& last_run() const noexcept { return m_last_run; }
  Device device() const noexcept { return m_device; }
  // Every device streamed matmuls use: just device() unless several were given.
  const std::vector<Device>& devices() const noexcept { return m_devices; }
  const EngineOptions& options() const noexcept { return m_options; }
  // The device bytes a call may use now.
  std::int64_t budget_bytes() const;
  std::int64_t budget_bytes(const Device& device) const;

 private:
  Tensor run_matmul(const Tensor& a, const Tensor& b, const Tiling& tiling, const std::optional<Tensor>& out);
  Tensor run_on_devices(const Tensor& a, const Tensor& b, const Tiling& tiling, const std::optional<Tensor>& out,
                        RunStats& stats, std::chrono::steady_clock::time_point start);
  Tensor run_in_core(const Tensor& a, const Tensor& b, const std::optional<Tensor>& out, std::int64_t in_core_bytes,
                     RunStats& stats);
  Tensor elementwise(const Tensor& a, const Tensor& b, bool multiply);

  EngineOptions m_options;
  Device m_device;
  std::vector<Device> m_devices;
  ProgressCallback m_callback;
  RunStats m_last_run;
};

}  // namespace accelera
