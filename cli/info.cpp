#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>

#include "accelera/accelera.hpp"
#include "accelera/cpu_features.hpp"
#include "commands.hpp"

namespace accelera::cli {

namespace {
double gib(std::int64_t bytes) { return static_cast<double>(bytes) / (1LL << 30); }
}  // namespace

int run_info(const InfoOptions& options) {
  const auto backends = compiled_backends();
  const auto devs = devices();
  const Config& cfg = config();
  const CpuSimdInfo simd = cpu_simd_info();
  const CpuBlasInfo blas = cpu_blas_info();
  const CpuParallelGrain grain = cpu_parallel_grain();
  if (options.json) {
    nlohmann::json j;
    j["version"] = ACCELERA_VERSION;
    j["compiled_backends"] = backends;
    j["default_device"] = default_device().str();
    j["memory_threshold"] = cfg.memory_threshold;
    j["allow_tf32"] = allow_tf32();
    j["cpu_simd"] = {{"compiled", simd.compiled}, {"supported", simd.supported}, {"active", simd.active}};
    j["cpu_parallel_grain"] = {{"elements", grain.elements},
                               {"wake_microseconds", grain.wake_microseconds},
                               {"elements_per_microsecond", grain.elements_per_microsecond},
                               {"threads", grain.threads}};
    j["cpu_blas"] = {{"library", blas.library},
                     {"symbols", blas.symbols},
                     {"config", blas.config},
                     {"core", blas.core},
                     {"suggested_core", blas.suggested_core},
                     {"integer_bits", blas.integer_bits},
                     {"threads", blas.threads},
                     {"one_thread_below_flops", blas.one_thread_below_flops},
                     {"builtin", blas.builtin}};
    j["absent_backends"] = nlohmann::json::object();
    for (DeviceKind kind : {DeviceKind::cuda, DeviceKind::opencl}) {
      if (auto reason = backend_absent_reason(kind); !reason.empty()) {
        j["absent_backends"][std::string(device_kind_name(kind))] = reason;
      }
    }
    for (const auto& d : devs) {
      const auto stats = memory_stats(d.device);
      j["devices"].push_back({{"device", d.device.str()},
                              {"name", d.name},
                              {"vendor", d.vendor},
                              {"total_memory", d.total_memory},
                              {"free_memory", d.free_memory},
                              {"compute_units", d.compute_units},
                              {"budget_bytes", stats.budget_bytes}});
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  fmt::print("accelera {}\n", ACCELERA_VERSION);
  fmt::print("backends compiled in: {}\n", fmt::join(backends, ", "));
  for (const char* kind : {"cuda", "opencl"}) {
    try {
      device_interface(Device::parse(kind));
    } catch (const DeviceError& e) {
      fmt::print("  {}: {}\n", kind, e.what());
    }
  }
  fmt::print("default device: {}\n", default_device().str());
  fmt::print("CPU kernels: {} (compiled for {}; this CPU runs {}; ACCELERA_CPU_TARGET)\n", simd.active,
             fmt::join(simd.compiled, ", "), fmt::join(simd.supported, ", "));
  fmt::print("CPU parallel grain: {} elements ({} threads; waking them costs {:.1f} us, one thread does {:.0f} "
             "elements/us)\n",
             grain.elements, grain.threads, grain.wake_microseconds, grain.elements_per_microsecond);
  // With oneDNN, the kernel family is that of the linked OpenBLAS, which runs the float64 products.
  const std::string kernels = blas.core.empty() ? ""
                              : blas.symbols == "dnnl_sgemm" ? "float64 on OpenBLAS's " + blas.core + " kernels, "
                                                             : blas.core + " kernels, ";
  fmt::print("CPU BLAS: {} ({}{}{}-bit sizes, {} threads; ACCELERA_CPU_BLAS in Python)\n", blas.library,
             blas.builtin ? "linked, " : "", kernels, blas.integer_bits, blas.threads);
  if (blas.spin_log2_cycles > 0) {
    fmt::print("  OpenBLAS's workers spin 2^{} cycles after a product (OPENBLAS_THREAD_TIMEOUT)\n",
               blas.spin_log2_cycles);
  }
  if (blas.one_thread_below_flops > 0) {
    fmt::print("  float32 products below {:.1f} MFLOP run on one thread (waking the others costs more)\n",
               blas.one_thread_below_flops / 1e6);
  }
  if (!blas.suggested_core.empty()) {
    fmt::print("  warning: OpenBLAS runs its {} kernels on this CPU; OPENBLAS_CORETYPE={} selects faster ones\n",
               blas.core, blas.suggested_core);
  }
  fmt::print("TF32 for float32 matmul on CUDA: {} (ACCELERA_ALLOW_TF32)\n", allow_tf32() ? "allowed" : "off");
  fmt::print("devices:\n");
  for (const auto& d : devs) {
    const auto stats = memory_stats(d.device);
    fmt::print("  {:<10} {} ({} compute units)\n", d.device.str(), d.name, d.compute_units);
    fmt::print(
        "             memory: {:.2f} GiB total, {:.2f} GiB free, budget {:.2f} GiB "
        "(ACCELERA_MEMORY_THRESHOLD={})\n",
        gib(d.total_memory), gib(d.free_memory), gib(stats.budget_bytes), cfg.memory_threshold);
  }
  return 0;
}

}  // namespace accelera::cli
