// Devices, memory statistics and configuration.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "accelera/accelera.hpp"
#include "accelera/cpu_features.hpp"
#include "bindings.hpp"

namespace accelera::python {

namespace {

nb::dict stats_dict(const MemoryStats& s) {
  nb::dict d;
  d["current_bytes"] = s.current_bytes;
  d["peak_bytes"] = s.peak_bytes;
  d["reserved_bytes"] = s.reserved_bytes;
  d["cached_bytes"] = s.cached_bytes;
  d["budget_bytes"] = s.budget_bytes;
  d["num_allocs"] = s.num_allocs;
  d["num_frees"] = s.num_frees;
  d["cache_hits"] = s.cache_hits;
  d["cache_flushes"] = s.cache_flushes;
  d["num_ooms"] = s.num_ooms;
  return d;
}

}  // namespace

void bind_devices(nb::module_& m) {
  m.def("devices", []() {
    nb::list out;
    for (const DeviceInfo& info : devices()) {
      nb::dict d;
      d["device"] = info.device.str();
      d["kind"] = std::string(device_kind_name(info.device.kind));
      d["index"] = info.device.index;
      d["name"] = info.name;
      d["vendor"] = info.vendor;
      d["total_memory"] = info.total_memory;
      d["free_memory"] = info.free_memory;
      d["compute_units"] = info.compute_units;
      d["is_accelerator"] = info.is_accelerator;
      out.append(d);
    }
    return out;
  });
  m.def("default_device", []() { return default_device().str(); });
  m.def("compiled_backends", &compiled_backends);
  // Note [Work queued at exit] (src/core/registry.cpp); the wait releases the interpreter.
  m.def("_finish_queued_work", &finish_queued_work, nb::call_guard<nb::gil_scoped_release>());
  m.def("_parse_device", [](const std::string& text) { return Device::parse(text).str(); });
  m.def("memory_stats", [](const std::string& device) { return stats_dict(memory_stats(Device::parse(device))); });
  m.def("empty_cache", [](const std::string& device) { empty_cache(Device::parse(device)); });
  m.def("reset_peak_memory", [](const std::string& device) { allocator_for(Device::parse(device)).reset_peak(); });
  m.def("set_memory_budget",
        [](const std::string& device, std::int64_t bytes) { set_memory_budget(Device::parse(device), bytes); });
  m.def("_fail_nth_allocation", [](const std::string& device, std::int64_t n) {
    allocator_for(Device::parse(device)).fail_nth_allocation(n);
  });
  m.def("absent_backends", []() {
    nb::dict out;
    for (DeviceKind kind : {DeviceKind::cuda, DeviceKind::opencl}) {
      if (auto reason = backend_absent_reason(kind); !reason.empty()) out[nb::str(device_kind_name(kind).data())] = reason;
    }
    return out;
  });
  // Benchmark helper: best seconds of a host->device and a device->host copy of `nbytes` through pinned
  // staging memory (DeviceInterface::allocate_host) or pageable memory.
  m.def("_staging_copy_seconds", [](const std::string& device, std::int64_t nbytes, bool pinned, int repeat) {
    const Device d = Device::parse(device);
    DeviceInterface& backend = device_interface(d);
    const Tensor t = Tensor::empty(Shape{nbytes}, DType::boolean, d);
    std::unique_ptr<HostBuffer> staging;
    std::vector<std::byte> pageable;
    void* host = nullptr;
    if (pinned) {
      staging = backend.allocate_host(d.index, static_cast<std::size_t>(nbytes));
      host = staging->data();
    } else {
      pageable.resize(static_cast<std::size_t>(nbytes));
      host = pageable.data();
    }
    std::memset(host, 1, static_cast<std::size_t>(nbytes));
    double best_up = 1e300, best_down = 1e300;
    for (int r = 0; r < repeat; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      backend.copy_from_host_async(t, host, Stream::upload);
      backend.synchronize_stream(d.index, Stream::upload);
      auto t1 = std::chrono::steady_clock::now();
      backend.copy_to_host_async(host, t, Stream::download);
      backend.synchronize_stream(d.index, Stream::download);
      auto t2 = std::chrono::steady_clock::now();
      best_up = std::min(best_up, std::chrono::duration<double>(t1 - t0).count());
      best_down = std::min(best_down, std::chrono::duration<double>(t2 - t1).count());
    }
    return std::make_pair(best_up, best_down);
  });
  m.def(
      "cpu_simd_info",
      []() {
        const CpuSimdInfo info = cpu_simd_info();
        nb::dict d;
        d["compiled"] = info.compiled;
        d["supported"] = info.supported;
        d["active"] = info.active;
        return d;
      },
      "The vector instruction sets the CPU kernels were compiled for ('compiled'), those this CPU runs\n"
      "('supported'), both best first, and the one in use ('active'; ACCELERA_CPU_TARGET can name a lesser one).");
  m.def(
      "cpu_parallel_grain",
      []() {
        const CpuParallelGrain g = cpu_parallel_grain();
        nb::dict d;
        d["elements"] = g.elements;
        d["wake_microseconds"] = g.wake_microseconds;
        d["elements_per_microsecond"] = g.elements_per_microsecond;
        d["threads"] = g.threads;
        return d;
      },
      "Element-wise CPU loops shorter than 'elements' run on one thread: the grain is measured once per\n"
      "process from the OpenMP workers' wake-up cost ('wake_microseconds') and one thread's rate.");
  m.def("cpu_blas_info", []() {
    const CpuBlasInfo info = cpu_blas_info();
    nb::dict d;
    d["library"] = info.library;
    d["symbols"] = info.symbols;
    d["config"] = info.config;
    d["core"] = info.core;
    d["suggested_core"] = info.suggested_core;
    d["integer_bits"] = info.integer_bits;
    d["threads"] = info.threads;
    d["one_thread_below_flops"] = info.one_thread_below_flops;
    d["spin_log2_cycles"] = info.spin_log2_cycles;
    d["builtin"] = info.builtin;
    return d;
  });
  m.def("use_cpu_blas", &use_cpu_blas, nb::arg("library"), nb::call_guard<nb::gil_scoped_release>());
  m.def("cpu_blas_has_onednn", &cpu_blas_has_onednn);
  m.def("allow_tf32", &allow_tf32);
  m.def("set_allow_tf32", &set_allow_tf32, nb::arg("allow"));
  m.def("set_log_level", &set_log_level);
  m.def("_reload_config", &reload_config);
  m.def("_device_total_memory", [](const std::string& device) {
    const Device d = Device::parse(device);
    return device_interface(d).device_info(d.index).total_memory;
  });
}

}  // namespace accelera::python
