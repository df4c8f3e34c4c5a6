#include "accelera/engine.hpp"

#include <chrono>

#include "accelera/core/error.hpp"
#include "accelera/core/registry.hpp"
#include "accelera/ops.hpp"
#include "core/log.hpp"
#include "engine/blocks.hpp"
#include "engine/multi_device_matmul.hpp"
#include "engine/tile_planner.hpp"
#include "engine/streamed_matmul.hpp"

namespace accelera {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::int64_t rounded(std::int64_t bytes) {
  return static_cast<std::int64_t>(CachingAllocator::round_size(static_cast<std::size_t>(bytes)));
}

void check_matmul_operands(const Tensor& a, const Tensor& b, const std::optional<Tensor>& out) {
  ACC_CHECK(a.defined() && b.defined(), ValueError, "MatrixEngine.matmul: an operand is undefined");
  ACC_CHECK(a.ndim() == 2 && b.ndim() == 2, ShapeError,
            "MatrixEngine.matmul multiplies 2-D matrices, got {}-D and {}-D operands", a.ndim(), b.ndim());
  ACC_CHECK(a.shape()[1] == b.shape()[0], ShapeError,
            "MatrixEngine.matmul: shapes {} and {} do not fit (A's columns must equal B's rows)", a.shape().str(),
            b.shape().str());
  ACC_CHECK(a.dtype() == b.dtype(), DTypeError,
            "MatrixEngine.matmul: operands are {} and {}; convert one with astype so that both match",
            dtype_name(a.dtype()), dtype_name(b.dtype()));
  ACC_CHECK(a.dtype() == DType::f32 || a.dtype() == DType::f64, DTypeError,
            "MatrixEngine.matmul computes float32 and float64, got {}", dtype_name(a.dtype()));
  if (!out) return;
  ACC_CHECK(out->defined(), ValueError, "MatrixEngine.matmul: out is undefined");
  ACC_CHECK(out->ndim() == 2 && out->shape()[0] == a.shape()[0] && out->shape()[1] == b.shape()[1], ShapeError,
            "MatrixEngine.matmul: out has shape {}, the result is ({}, {})", out->shape().str(), a.shape()[0],
            b.shape()[1]);
  ACC_CHECK(out->dtype() == a.dtype(), DTypeError, "MatrixEngine.matmul: out is {}, the result is {}",
            dtype_name(out->dtype()), dtype_name(a.dtype()));
  ACC_CHECK(!out->storage()->is_read_only(), ValueError, "MatrixEngine.matmul: out is read-only");
  ACC_CHECK(!out->shares_storage_with(a) && !out->shares_storage_with(b), ValueError,
            "MatrixEngine.matmul: out shares memory with an input; results would overwrite operands still needed");
}

// The streamed plan for one device (its budget) or several (Note [Several devices]), described.
EnginePlan streamed_plan(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype,
                         const std::vector<std::int64_t>& budgets, ChunkingStrategy strategy,
                         std::int64_t fixed_chunk) {
  const Tiling tiling = strategy;
  engine::PlanRequest request = engine::plan_request(m, n, k, dtype, tiling, fixed_chunk);
  engine::Plan plan;
  if (budgets.size() > 1) {
    plan = engine::plan_for_devices(request, tiling, budgets);
  } else {
    request.budget_bytes = budgets.front();
    ACC_CHECK(request.budget_bytes > 0, OutOfMemoryError,
              "live tensors already hold the device's whole memory budget: no room is left to stream tiles");
    plan = engine::plan_matmul(request);
  }
  EnginePlan p;
  p.strategy = std::string(strategy_name(plan.strategy));
  p.tile_m = plan.tile_m;
  p.tile_n = plan.tile_n;
  p.tile_k = plan.tile_k;
  p.k_steps = plan.k_steps();
  p.tiles = plan.tiles;
  p.device_bytes = plan.device_bytes;
  p.bytes_in = plan.bytes_in;
  p.bytes_out = plan.bytes_out;
  return p;
}

// A failed or interrupted stream leaves a host `out` partly written: say so, and how much.
void note_partial_out(Error& error, const std::optional<Tensor>& out, const RunStats& stats) {
  if (!out || !out->device().is_cpu()) return;
  std::int64_t written = 0;
  for (const OutputChunk& t : stats.finished_tiles) written += t.rows * t.cols;
  error.add_note(fmt::format("out holds the {} tile(s) finished before this ({} of its {} elements, listed in "
                             "last_run's finished_tiles); the rest of out is unspecified",
                             stats.finished_tiles.size(), written, out->numel()));
}

}  // namespace

std::vector<Device> parse_engine_devices(std::string_view spec, bool include_cpu) {
  const std::vector<DeviceInfo> present = devices();
  std::vector<Device> chosen;
  if (spec == "all") {
    for (const DeviceInfo& info : present) {
      if (!info.device.is_cpu()) chosen.push_back(info.device);
    }
    if (include_cpu || chosen.empty()) chosen.push_back(Device::cpu());
    return chosen;
  }
  std::string names;
  for (const DeviceInfo& info : present) {
    if (!names.empty()) names += ", ";
    names += info.device.str();
  }
  for (std::size_t start = 0; start <= spec.size();) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    std::string_view name = spec.substr(start, comma - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    start = comma + 1;
    if (name.empty()) continue;
    const Device device = Device::parse(name);
    ACC_CHECK(std::any_of(present.begin(), present.end(), [&](const DeviceInfo& i) { return i.device == device; }),
              DeviceError, "device {} is not present; present: {}", device.str(), names);
    ACC_CHECK(std::find(chosen.begin(), chosen.end(), device) == chosen.end(), ValueError,
              "device {} is named twice in '{}'", device.str(), spec);
    chosen.push_back(device);
  }
  ACC_CHECK(!chosen.empty(), ValueError, "no device named in '{}': give 'all' or names such as 'cuda:0,opencl:0'",
            spec);
  if (include_cpu && std::find(chosen.begin(), chosen.end(), Device::cpu()) == chosen.end())
    chosen.push_back(Device::cpu());
  return chosen;
}

MatrixEngine::MatrixEngine(EngineOptions options) : m_options(std::move(options)) {
  for (const Device& d : m_options.devices) {
    device_interface(d);
    ACC_CHECK(std::count(m_options.devices.begin(), m_options.devices.end(), d) == 1, ValueError,
              "MatrixEngine: device {} is listed twice", d.str());
  }
  if (!m_options.devices.empty()) {
    ACC_CHECK(!m_options.device || *m_options.device == m_options.devices.front(), ValueError,
              "MatrixEngine: give either device or devices, not both");
    m_options.device = m_options.devices.front();
  }
  m_device = m_options.device.value_or(default_device());
  device_interface(m_device);  // says "built without X support" or "no X device found"
  m_devices = m_options.devices.empty() ? std::vector<Device>{m_device} : m_options.devices;
  if (m_options.chunk_size) set_chunk_size(*m_options.chunk_size);
  set_memory_budget(m_options.memory_budget);
}

void MatrixEngine::set_chunk_size(std::int64_t chunk_size) {
  ACC_CHECK(chunk_size >= 1, ValueError, "chunk size must be >= 1, got {}", chunk_size);
  m_options.chunk_size = chunk_size;
}

void MatrixEngine::enable_auto_memory_detection(bool enabled) { m_options.auto_detect_memory = enabled; }

void MatrixEngine::set_chunking_strategy(ChunkingStrategy strategy) { m_options.chunking_strategy = strategy; }

void MatrixEngine::set_memory_budget(std::optional<std::int64_t> bytes) {
  ACC_CHECK(!bytes || *bytes > 0, ValueError, "memory budget must be positive, got {}", bytes.value_or(0));
  m_options.memory_budget = bytes;
}

void MatrixEngine::set_progress_callback(ProgressCallback callback) { m_callback = std::move(callback); }
void MatrixEngine::set_enable_progress(bool enabled) { m_options.enable_progress = enabled; }
void MatrixEngine::set_fallback_strategy(FallbackStrategy fallback) { m_options.fallback = fallback; }

std::int64_t MatrixEngine::budget_bytes() const { return budget_bytes(m_device); }

std::int64_t MatrixEngine::budget_bytes(const Device& device) const {
  const MemoryStats stats = allocator_for(device).stats();
  // Cached blocks are flushed on demand, so only live tensors count against the allocator's budget.
  std::int64_t available = stats.budget_bytes - stats.current_bytes;
  if (m_options.memory_budget) available = std::min(available, *m_options.memory_budget);
  return std::max<std::int64_t>(available, 0);
}

EngineMemoryInfo MatrixEngine::memory_info() const {
  const DeviceInfo info = device_interface(m_device).device_info(m_device.index);
  const MemoryStats stats = allocator_for(m_device).stats();
  EngineMemoryInfo m;
  m.device = m_device.str();
  m.gpu_total_gb = static_cast<double>(info.total_memory) / kGiB;
  m.gpu_available_gb = static_cast<double>(std::max<std::int64_t>(0, stats.budget_bytes - stats.current_bytes)) / kGiB;
  m.gpu_budget_gb = static_cast<double>(stats.budget_bytes) / kGiB;
  m.engine_budget_gb = static_cast<double>(budget_bytes()) / kGiB;
  m.gpu_utilization = info.total_memory > 0
                          ? 100.0 * static_cast<double>(stats.reserved_bytes) / static_cast<double>(info.total_memory)
                          : 0.0;
  const DeviceInfo host = device_interface(Device::cpu()).device_info(0);
  m.cpu_total_gb = static_cast<double>(host.total_memory) / kGiB;
  m.cpu_available_gb = static_cast<double>(host.free_memory) / kGiB;
  return m;
}

void MatrixEngine::cleanup() {
  for (const Device& d : m_devices) {
    device_interface(d).synchronize(d.index);
    empty_cache(d);
  }
}

Tensor MatrixEngine::matmul(const Tensor& a, const Tensor& b, std::optional<ChunkingStrategy> chunk_strategy,
                            std::optional<Tensor> out) {
  return run_matmul(a, b, chunk_strategy.value_or(m_options.chunking_strategy), out);
}

Tensor MatrixEngine::matmul_chunks(const Tensor& a, const Tensor& b, std::vector<OutputChunk> chunks,
                                   std::optional<Tensor> out) {
  return run_matmul(a, b, std::move(chunks), out);
}

Tensor MatrixEngine::run_matmul(const Tensor& a, const Tensor& b, const Tiling& tiling,
                                const std::optional<Tensor>& out) {
  check_matmul_operands(a, b, out);
  const std::int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  const DType dtype = a.dtype();
  const auto e = static_cast<std::int64_t>(dtype_size(dtype));
  RunStats stats;
  stats.op = "matmul";
  stats.device = m_device.str();
  stats.flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const std::int64_t budget = budget_bytes();
  stats.budget_bytes = budget;
  const auto start = std::chrono::steady_clock::now();
  auto finish = [&](Tensor result) {
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stats.completed = true;
    if (stats.finished_tiles.empty()) stats.finished_tiles.push_back({0, m, 0, n});  // in core: all at once
    if (stats.per_device.empty()) {
      stats.per_device.push_back(DeviceRunStats{stats.device, stats.tiles, stats.bytes_host_to_device,
                                                stats.bytes_device_to_host, stats.peak_device_bytes, stats.fallbacks,
                                                stats.seconds});
    }
    m_last_run = std::move(stats);
    return result;
  };

  // On a device, operands already there cost nothing more. On the CPU every operand counts: host memory
  // may be a memory-mapped file far larger than RAM, which GEMM must not page through at random.
  auto operand_bytes = [&](const Tensor& t, std::int64_t bytes) {
    return (t.device() == m_device && !m_device.is_cpu()) ? 0 : rounded(bytes);
  };
  const std::int64_t in_core_bytes = operand_bytes(a, m * k * e) + operand_bytes(b, k * n * e) + rounded(m * n * e);
  // A fixed chunk size (auto-detection off) asks for chunked execution even when everything would fit.
  const bool fixed_chunks = !m_options.auto_detect_memory && m_options.chunk_size.has_value();
  const bool caller_chunks = std::holds_alternative<std::vector<OutputChunk>>(tiling);
  if (m_devices.size() > 1 && m > 0 && n > 0 && k > 0) return finish(run_on_devices(a, b, tiling, out, stats, start));
  std::int64_t stream_budget = budget;
  if (m == 0 || n == 0 || k == 0 || (!caller_chunks && !fixed_chunks && in_core_bytes <= budget)) {
    try {
      return finish(run_in_core(a, b, out, in_core_bytes, stats));
    } catch (const OutOfMemoryError& error) {
      // The device could not hold what the budget promised (another user, fragmentation): stream instead,
      // or compute on the CPU, as the fallback strategy says.
      if (m == 0 || n == 0 || k == 0 || m_options.fallback == FallbackStrategy::error) {
        m_last_run = std::move(stats);
        throw;
      }
      const bool on_cpu = m_options.fallback == FallbackStrategy::cpu;
      stream_budget = in_core_bytes / 2;
      ++stats.fallbacks;
      stats.fallback_log.push_back(
          on_cpu ? fmt::format("out of device memory in core ({}); computed on the CPU", error.what())
                 : fmt::format("out of device memory in core ({}); streaming within {} bytes", error.what(),
                               stream_budget));
      ACC_LOG_INFO("MatrixEngine: {}", stats.fallback_log.back());
      stats.bytes_host_to_device = stats.bytes_device_to_host = 0;
      if (on_cpu) {
        stats.strategy = "cpu";
        stats.peak_device_bytes = 0;
        const bool host_out = out && out->device().is_cpu();
        const Tensor host = host_out ? *out : Tensor::empty(Shape({m, n}), dtype, Device::cpu());
        matmul_into(a.to(Device::cpu()), b.to(Device::cpu()), host);
        if (!out || host_out) return finish(host);
        engine::copy_across_devices(host, *out);
        return finish(*out);
      }
    }
  }
  const engine::StreamSettings settings{m_device, fixed_chunks ? *m_options.chunk_size : 0, m_options.enable_progress,
                                        &m_callback, m_options.fallback};
  try {
    return finish(engine::streamed_matmul(a, b, tiling, out, stream_budget, settings, stats));
  } catch (Error& error) {
    // A failed or interrupted stream leaves a host `out` partly written: say so, and how much.
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    note_partial_out(error, out, stats);
    m_last_run = std::move(stats);
    throw;
  }
}

Tensor MatrixEngine::run_on_devices(const Tensor& a, const Tensor& b, const Tiling& tiling,
                                    const std::optional<Tensor>& out, RunStats& stats,
                                    std::chrono::steady_clock::time_point start) {
  engine::MultiDeviceSettings settings;
  settings.devices = m_devices;
  for (const Device& d : m_devices) settings.budgets.push_back(budget_bytes(d));
  const bool fixed_chunks = !m_options.auto_detect_memory && m_options.chunk_size.has_value();
  settings.fixed_chunk = fixed_chunks ? *m_options.chunk_size : 0;
  settings.enable_progress = m_options.enable_progress;
  settings.callback = &m_callback;
  settings.fallback = m_options.fallback;
  stats.device.clear();
  for (const Device& d : m_devices) {
    if (!stats.device.empty()) stats.device += ',';
    stats.device += d.str();
  }
  stats.budget_bytes = *std::min_element(settings.budgets.begin(), settings.budgets.end());
  try {
    return engine::multi_device_matmul(a, b, tiling, out, settings, stats);
  } catch (Error& error) {
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    note_partial_out(error, out, stats);
    m_last_run = std::move(stats);
    throw;
  }
}

Tensor MatrixEngine::run_in_core(const Tensor& a, const Tensor& b, const std::optional<Tensor>& out,
                                 std::int64_t in_core_bytes, RunStats& stats) {
  const std::int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  const auto e = static_cast<std::int64_t>(dtype_size(a.dtype()));
  const bool inputs_on_device = a.device() == m_device && b.device() == m_device;
  // In core: operands and result fit the budget at once.
  stats.strategy = "in-core";
  stats.tiles = 1;
  stats.k_steps = 1;
  stats.tile_m = m;
  stats.tile_n = n;
  stats.tile_k = k;
  stats.peak_device_bytes = in_core_bytes;
  if (!m_device.is_cpu()) {
    stats.bytes_host_to_device = (a.device() == m_device ? 0 : m * k * e) + (b.device() == m_device ? 0 : k * n * e);
  }
  // The product goes straight into `out` when it lives on the engine's device.
  const bool into_out = out && out->device() == m_device;
  const Tensor result = into_out ? *out : Tensor::empty(Shape({m, n}), a.dtype(), m_device);
  matmul_into(a.to(m_device), b.to(m_device), result);
  if (into_out) {
    device_interface(m_device).synchronize(m_device.index);  // `out` is complete on return, as on the host
    return *out;
  }
  if (out) {
    engine::copy_across_devices(result, *out);
    stats.bytes_device_to_host = m * n * e;
    return *out;
  }
  if (inputs_on_device) return result;
  if (!m_device.is_cpu()) stats.bytes_device_to_host = m * n * e;
  return result.to(Device::cpu());
}

EnginePlan MatrixEngine::plan(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype,
                              std::optional<ChunkingStrategy> chunk_strategy) const {
  ACC_CHECK(m >= 0 && n >= 0 && k >= 0, ValueError, "MatrixEngine.plan: extents must be >= 0, got {} x {} x {}", m, n,
            k);
  ACC_CHECK(dtype == DType::f32 || dtype == DType::f64, DTypeError,
            "MatrixEngine.plan: the engine computes float32 and float64, got {}", dtype_name(dtype));
  const auto e = static_cast<std::int64_t>(dtype_size(dtype));
  const bool fixed_chunks = !m_options.auto_detect_memory && m_options.chunk_size.has_value();
  const std::int64_t in_core_bytes = rounded(m * k * e) + rounded(k * n * e) + rounded(m * n * e);
  EnginePlan p;
  if (m_devices.size() == 1 && !fixed_chunks && in_core_bytes <= budget_bytes()) {
    p.in_core = true;
    p.strategy = "in-core";
    p.tile_m = m;
    p.tile_n = n;
    p.tile_k = k;
    p.k_steps = 1;
    p.tiles = {{0, m, 0, n}};
    p.device_bytes = in_core_bytes;
    if (!m_device.is_cpu()) {
      p.bytes_in = (m * k + k * n) * e;
      p.bytes_out = m * n * e;
    }
    return p;
  }
  std::vector<std::int64_t> budgets;
  for (const Device& d : m_devices) budgets.push_back(budget_bytes(d));
  return streamed_plan(m, n, k, dtype, budgets, chunk_strategy.value_or(m_options.chunking_strategy),
                       fixed_chunks ? *m_options.chunk_size : 0);
}

EnginePlan plan_streamed_matmul(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype,
                                const std::vector<std::int64_t>& budgets, ChunkingStrategy strategy) {
  ACC_CHECK(m >= 0 && n >= 0 && k >= 0, ValueError, "plan_streamed_matmul: extents must be >= 0, got {} x {} x {}",
            m, n, k);
  ACC_CHECK(dtype == DType::f32 || dtype == DType::f64, DTypeError,
            "plan_streamed_matmul: the engine computes float32 and float64, got {}", dtype_name(dtype));
  ACC_CHECK(!budgets.empty(), ValueError, "plan_streamed_matmul: no device budget given");
  return streamed_plan(m, n, k, dtype, budgets, strategy, 0);
}

Tensor MatrixEngine::add(const Tensor& a, const Tensor& b) { return elementwise(a, b, false); }
Tensor MatrixEngine::multiply(const Tensor& a, const Tensor& b) { return elementwise(a, b, true); }

Tensor MatrixEngine::elementwise(const Tensor& a, const Tensor& b, bool multiply) {
  ACC_CHECK(a.defined() && b.defined(), ValueError, "MatrixEngine: an operand is undefined");
  RunStats stats;
  stats.op = multiply ? "multiply" : "add";
  const auto start = std::chrono::steady_clock::now();
  // Both on the engine's device: compute there. Otherwise the bus would bound the op below what the CPU
  // does from host memory, so host operands are computed on the CPU (see the header).
  const bool on_device = a.device() == m_device && b.device() == m_device;
  const Tensor x = on_device ? a : a.to(Device::cpu());
  const Tensor y = on_device ? b : b.to(Device::cpu());
  Tensor result = multiply ? accelera::multiply(x, y) : accelera::add(x, y);
  stats.device = result.device().str();
  stats.strategy = on_device ? "in-core" : "cpu";
  stats.tiles = 1;
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stats.flops = static_cast<double>(result.numel());
  m_last_run = std::move(stats);
  return result;
}

}  // namespace accelera
