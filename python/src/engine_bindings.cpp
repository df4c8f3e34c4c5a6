// MatrixEngine (the Python class in accelera/engine.py wraps this one).
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "accelera/accelera.hpp"
#include "bindings.hpp"
#include "release_gil.hpp"

namespace accelera::python {

namespace {

nb::dict stats_dict(const RunStats& s) {
  nb::dict d;
  d["op"] = s.op;
  d["device"] = s.device;
  d["strategy"] = s.strategy;
  d["streamed"] = s.streamed;
  d["tiles"] = s.tiles;
  d["k_steps"] = s.k_steps;
  d["tile_shape"] = nb::make_tuple(s.tile_m, s.tile_n, s.tile_k);
  d["bytes_host_to_device"] = s.bytes_host_to_device;
  d["bytes_device_to_host"] = s.bytes_device_to_host;
  d["peak_device_bytes"] = s.peak_device_bytes;
  d["budget_bytes"] = s.budget_bytes;
  d["fallbacks"] = s.fallbacks;
  d["fallback_log"] = s.fallback_log;
  d["seconds"] = s.seconds;
  d["gflops"] = s.seconds > 0 ? s.flops / s.seconds / 1e9 : 0.0;
  return d;
}

// Strategy names are parsed here, once, into the engine's type (ArgumentError naming the choices).
std::optional<ChunkingStrategy> parse_optional_strategy(const std::optional<std::string>& name) {
  if (!name) return std::nullopt;
  return parse_chunking_strategy(*name);
}

nb::dict memory_dict(const EngineMemoryInfo& m) {
  nb::dict d;
  d["device"] = m.device;
  d["gpu_utilization"] = m.gpu_utilization;
  d["gpu_total_gb"] = m.gpu_total_gb;
  d["gpu_available_gb"] = m.gpu_available_gb;
  d["gpu_budget_gb"] = m.gpu_budget_gb;
  d["engine_budget_gb"] = m.engine_budget_gb;
  d["cpu_total_gb"] = m.cpu_total_gb;
  d["cpu_available_gb"] = m.cpu_available_gb;
  return d;
}

}  // namespace

void bind_engine(nb::module_& m) {
  nb::class_<MatrixEngine>(m, "_MatrixEngine")
      .def(
          "__init__",
          [](MatrixEngine* self, std::optional<std::string> device, bool auto_detect_memory,
             const std::string& strategy, std::optional<std::int64_t> chunk_size, bool enable_progress,
             std::optional<std::int64_t> budget) {
            EngineOptions o;
            if (device) o.device = Device::parse(*device);
            o.auto_detect_memory = auto_detect_memory;
            o.chunking_strategy = parse_chunking_strategy(strategy);
            o.chunk_size = chunk_size;
            o.enable_progress = enable_progress;
            o.memory_budget = budget;
            new (self) MatrixEngine(std::move(o));
          },
          nb::arg("device").none(), nb::arg("auto_detect_memory"), nb::arg("chunking_strategy"),
          nb::arg("chunk_size").none(), nb::arg("enable_progress"), nb::arg("memory_budget").none())
      .def(
          "matmul",
          [](MatrixEngine& e, const Tensor& a, const Tensor& b, const std::optional<std::string>& strategy,
             std::optional<Tensor> out) {
            const std::optional<ChunkingStrategy> parsed = parse_optional_strategy(strategy);
            ReleaseGil release;
            return e.matmul(a, b, parsed, std::move(out));
          },
          nb::arg("a"), nb::arg("b"), nb::arg("strategy").none(), nb::arg("out").none())
      .def(
          "matmul_chunks",
          [](MatrixEngine& e, const Tensor& a, const Tensor& b,
             const std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>>& chunks,
             std::optional<Tensor> out) {
            std::vector<OutputChunk> c;
            for (const auto& [r0, rows, c0, cols] : chunks) c.push_back({r0, rows, c0, cols});
            ReleaseGil release;
            return e.matmul_chunks(a, b, std::move(c), std::move(out));
          },
          nb::arg("a"), nb::arg("b"), nb::arg("chunks"), nb::arg("out").none())
      .def("add", &MatrixEngine::add, nb::call_guard<ReleaseGil>())
      .def("multiply", &MatrixEngine::multiply, nb::call_guard<ReleaseGil>())
      .def("memory_info", [](const MatrixEngine& e) { return memory_dict(e.memory_info()); })
      .def("cleanup", &MatrixEngine::cleanup)
      .def("set_chunk_size", &MatrixEngine::set_chunk_size)
      .def("enable_auto_memory_detection", &MatrixEngine::enable_auto_memory_detection)
      .def("set_chunking_strategy",
           [](MatrixEngine& e, const std::string& name) { e.set_chunking_strategy(parse_chunking_strategy(name)); })
      .def("set_memory_budget", &MatrixEngine::set_memory_budget, nb::arg("bytes").none())
      .def("set_enable_progress", &MatrixEngine::set_enable_progress)
      .def("set_progress_callback",
           [](MatrixEngine& e, nb::object callback) {
             if (callback.is_none()) {
               e.set_progress_callback(nullptr);
               return;
             }
             // The engine runs without the GIL; the callback takes it for each call.
             e.set_progress_callback([callback](const EngineProgress& p) {
               nb::gil_scoped_acquire acquire;
               nb::dict d;
               d["tiles_done"] = p.tiles_done;
               d["tiles_total"] = p.tiles_total;
               d["bytes_moved"] = p.bytes_moved;
               d["seconds"] = p.seconds;
               nb::object result = callback(d);
               return result.is_none() || nb::cast<bool>(result);
             });
           },
           nb::arg("callback").none())
      .def_prop_ro("last_run", [](const MatrixEngine& e) { return stats_dict(e.last_run()); })
      .def_prop_ro("device", [](const MatrixEngine& e) { return e.device().str(); })
      .def_prop_ro("budget_bytes", &MatrixEngine::budget_bytes)
      .def_prop_ro("chunk_size", [](const MatrixEngine& e) { return e.options().chunk_size; })
      .def_prop_ro("auto_detect_memory", [](const MatrixEngine& e) { return e.options().auto_detect_memory; })
      .def_prop_ro("chunking_strategy",
                   [](const MatrixEngine& e) { return std::string(strategy_name(e.options().chunking_strategy)); })
      .def_prop_ro("enable_progress", [](const MatrixEngine& e) { return e.options().enable_progress; });
}

}  // namespace accelera::python
