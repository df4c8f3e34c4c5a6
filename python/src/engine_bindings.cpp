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

nb::dict plan_dict(const EnginePlan& p) {
  nb::dict d;
  d["in_core"] = p.in_core;
  d["strategy"] = p.strategy;
  d["tile_shape"] = nb::make_tuple(p.tile_m, p.tile_n, p.tile_k);
  d["k_steps"] = p.k_steps;
  nb::list tiles;
  for (const OutputChunk& t : p.tiles) tiles.append(nb::make_tuple(t.row0, t.rows, t.col0, t.cols));
  d["tiles"] = tiles;  // (row0, rows, col0, cols), in the order one device runs them
  d["device_bytes"] = p.device_bytes;
  d["bytes_host_to_device"] = p.bytes_in;
  d["bytes_device_to_host"] = p.bytes_out;
  return d;
}

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
  nb::list per_device;
  for (const DeviceRunStats& p : s.per_device) {
    nb::dict e;
    e["device"] = p.device;
    e["tiles"] = p.tiles;
    e["bytes_host_to_device"] = p.bytes_host_to_device;
    e["bytes_device_to_host"] = p.bytes_device_to_host;
    e["peak_device_bytes"] = p.peak_device_bytes;
    e["fallbacks"] = p.fallbacks;
    e["busy_seconds"] = p.busy_seconds;
    per_device.append(e);
  }
  d["per_device"] = per_device;  // what each device did, in the engine's order
  nb::list finished;
  for (const OutputChunk& t : s.finished_tiles) finished.append(nb::make_tuple(t.row0, t.rows, t.col0, t.cols));
  d["finished_tiles"] = finished;  // (row0, rows, col0, cols) of every block of C written
  d["completed"] = s.completed;
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

// The engine as Python holds it: with its progress callback as a Python object, so that the garbage
// collector sees the reference (a callback that refers back to its engine is a cycle it can then free).
struct PyEngine : MatrixEngine {
  using MatrixEngine::MatrixEngine;
  nb::object callback;
};

int engine_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));  // heap types must visit their type
  if (!nb::inst_ready(self)) return 0;
  Py_VISIT(nb::inst_ptr<PyEngine>(self)->callback.ptr());
  return 0;
}

int engine_clear(PyObject* self) {
  PyEngine* engine = nb::inst_ptr<PyEngine>(self);
  engine->set_progress_callback(nullptr);
  engine->callback.reset();
  return 0;
}

PyType_Slot engine_slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(engine_traverse)},
                              {Py_tp_clear, reinterpret_cast<void*>(engine_clear)},
                              {0, nullptr}};

}  // namespace

void bind_engine(nb::module_& m) {
  m.def(
      "_plan_streamed_matmul",
      [](std::int64_t rows, std::int64_t cols, std::int64_t inner, const std::string& dtype,
         const std::vector<std::int64_t>& budgets, const std::string& strategy) {
        return plan_dict(
            plan_streamed_matmul(rows, cols, inner, dtype_from_name(dtype), budgets, parse_chunking_strategy(strategy)));
      },
      nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("dtype"), nb::arg("budgets"), nb::arg("strategy"));
  m.def(
      "_engine_devices",
      [](const std::string& spec, bool include_cpu) {
        std::vector<std::string> names;
        for (const Device& d : parse_engine_devices(spec, include_cpu)) names.push_back(d.str());
        return names;
      },
      nb::arg("spec"), nb::arg("include_cpu"));
  nb::class_<PyEngine>(m, "_MatrixEngine", nb::type_slots(engine_slots))
      .def(
          "__init__",
          [](PyEngine* self, std::optional<std::string> device, bool auto_detect_memory,
             const std::string& strategy, std::optional<std::int64_t> chunk_size, bool enable_progress,
             std::optional<std::int64_t> budget, const std::string& fallback,
             const std::optional<std::vector<std::string>>& devices) {
            EngineOptions o;
            if (device) o.device = Device::parse(*device);
            if (devices) {
              for (const std::string& d : *devices) o.devices.push_back(Device::parse(d));
            }
            o.auto_detect_memory = auto_detect_memory;
            o.chunking_strategy = parse_chunking_strategy(strategy);
            o.chunk_size = chunk_size;
            o.enable_progress = enable_progress;
            o.memory_budget = budget;
            o.fallback = parse_fallback_strategy(fallback);
            new (self) PyEngine(std::move(o));
          },
          nb::arg("device").none(), nb::arg("auto_detect_memory"), nb::arg("chunking_strategy"),
          nb::arg("chunk_size").none(), nb::arg("enable_progress"), nb::arg("memory_budget").none(),
          nb::arg("fallback_strategy"), nb::arg("devices").none() = nb::none())
      .def(
          "matmul",
          [](PyEngine& e, const Tensor& a, const Tensor& b, const std::optional<std::string>& strategy,
             std::optional<Tensor> out) {
            const std::optional<ChunkingStrategy> parsed = parse_optional_strategy(strategy);
            ReleaseGil release;
            return e.matmul(a, b, parsed, std::move(out));
          },
          nb::arg("a"), nb::arg("b"), nb::arg("strategy").none(), nb::arg("out").none())
      .def(
          "matmul_chunks",
          [](PyEngine& e, const Tensor& a, const Tensor& b,
             const std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>>& chunks,
             std::optional<Tensor> out) {
            std::vector<OutputChunk> c;
            for (const auto& [r0, rows, c0, cols] : chunks) c.push_back({r0, rows, c0, cols});
            ReleaseGil release;
            return e.matmul_chunks(a, b, std::move(c), std::move(out));
          },
          nb::arg("a"), nb::arg("b"), nb::arg("chunks"), nb::arg("out").none())
      .def("add", [](PyEngine& e, const Tensor& a, const Tensor& b) { return e.add(a, b); },
           nb::call_guard<ReleaseGil>())
      .def("multiply", [](PyEngine& e, const Tensor& a, const Tensor& b) { return e.multiply(a, b); },
           nb::call_guard<ReleaseGil>())
      .def(
          "plan",
          [](const PyEngine& e, std::int64_t m, std::int64_t n, std::int64_t k, const std::string& dtype,
             const std::optional<std::string>& strategy) {
            return plan_dict(e.plan(m, n, k, dtype_from_name(dtype), parse_optional_strategy(strategy)));
          },
          nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("dtype"), nb::arg("strategy").none())
      .def("memory_info", [](const PyEngine& e) { return memory_dict(e.memory_info()); })
      .def("cleanup", [](PyEngine& e) { e.cleanup(); })
      .def("set_chunk_size", [](PyEngine& e, std::int64_t size) { e.set_chunk_size(size); })
      .def("enable_auto_memory_detection", [](PyEngine& e, bool enabled) { e.enable_auto_memory_detection(enabled); })
      .def("set_chunking_strategy",
           [](PyEngine& e, const std::string& name) { e.set_chunking_strategy(parse_chunking_strategy(name)); })
      .def(
          "set_memory_budget", [](PyEngine& e, std::optional<std::int64_t> bytes) { e.set_memory_budget(bytes); },
          nb::arg("bytes").none())
      .def("set_enable_progress", [](PyEngine& e, bool enabled) { e.set_enable_progress(enabled); })
      .def("set_fallback_strategy",
           [](PyEngine& e, const std::string& name) { e.set_fallback_strategy(parse_fallback_strategy(name)); })
      .def("set_progress_callback",
           [](PyEngine& e, nb::object callback) {
             if (callback.is_none()) {
               e.set_progress_callback(nullptr);
               e.callback.reset();
               return;
             }
             ACC_CHECK(PyCallable_Check(callback.ptr()), DTypeError,
                       "the progress callback must be callable (it is called with a dict after every tile), got "
                       "{}",
                       nb::type_name(callback.type()).c_str());
             e.callback = callback;
             // The engine runs without the GIL; the callback takes it for each call. None or any true value
             // goes on, a false one cancels.
             e.set_progress_callback([&e](const EngineProgress& p) {
               nb::gil_scoped_acquire acquire;
               nb::dict d;
               d["tiles_done"] = p.tiles_done;
               d["tiles_total"] = p.tiles_total;
               d["bytes_moved"] = p.bytes_moved;
               d["seconds"] = p.seconds;
               nb::object result = e.callback(d);
               if (result.is_none()) return true;
               const int truth = PyObject_IsTrue(result.ptr());
               if (truth < 0) throw nb::python_error();
               return truth == 1;
             });
           },
           nb::arg("callback").none())
      .def_prop_ro("last_run", [](const PyEngine& e) { return stats_dict(e.last_run()); })
      .def_prop_ro("device", [](const PyEngine& e) { return e.device().str(); })
      .def_prop_ro("devices",
                   [](const PyEngine& e) {
                     std::vector<std::string> names;
                     for (const Device& d : e.devices()) names.push_back(d.str());
                     return names;
                   })
      .def_prop_ro("budget_bytes", [](const PyEngine& e) { return e.budget_bytes(); })
      .def_prop_ro("chunk_size", [](const PyEngine& e) { return e.options().chunk_size; })
      .def_prop_ro("auto_detect_memory", [](const PyEngine& e) { return e.options().auto_detect_memory; })
      .def_prop_ro("chunking_strategy",
                   [](const PyEngine& e) { return std::string(strategy_name(e.options().chunking_strategy)); })
      .def_prop_ro("enable_progress", [](const PyEngine& e) { return e.options().enable_progress; })
      .def_prop_ro("fallback_strategy",
                   [](const PyEngine& e) { return std::string(fallback_strategy_name(e.options().fallback)); })
      .def_prop_ro("memory_budget", [](const PyEngine& e) { return e.options().memory_budget; })
      .def_prop_ro("total_memory", [](const PyEngine& e) {
        return device_interface(e.device()).total_memory(e.device().index);
      });
}

}  // namespace accelera::python
