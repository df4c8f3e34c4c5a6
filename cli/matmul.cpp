// accelera matmul a.npy b.npy -o c.npy: C = A @ B streamed from and to disk through a device. C appears at
// its path only when complete (Note [Safe outputs] in output_file.hpp); a signal stops the run at the next
// tile and leaves nothing (Note [Interrupted runs] in interrupt.cpp).
#include <fmt/format.h>

#include <iostream>

#include "accelera/accelera.hpp"
#include "accelera/core/size.hpp"
#include "commands.hpp"
#include "interrupt.hpp"
#include "npy.hpp"

namespace accelera::cli {

void print_run(const RunStats& run) {
  fmt::print("  plan: {} ({} tiles of {}x{}, K in {} step(s) of {}); budget {:.1f} MB\n", run.strategy, run.tiles,
             run.tile_m, run.tile_n, run.k_steps, run.tile_k, static_cast<double>(run.budget_bytes) / 1e6);
  fmt::print("  moved: {:.1f} MB host->device, {:.1f} MB device->host; peak device memory {:.1f} MB\n",
             static_cast<double>(run.bytes_host_to_device) / 1e6, static_cast<double>(run.bytes_device_to_host) / 1e6,
             static_cast<double>(run.peak_device_bytes) / 1e6);
  for (const auto& line : run.fallback_log) fmt::print("  fallback: {}\n", line);
  if (run.per_device.size() < 2) return;
  for (const DeviceRunStats& d : run.per_device) {
    fmt::print("  {}: {} tile(s), busy {:.3f} s, {:.1f} MB host->device, peak {:.1f} MB\n", d.device, d.tiles,
               d.busy_seconds, static_cast<double>(d.bytes_host_to_device) / 1e6,
               static_cast<double>(d.peak_device_bytes) / 1e6);
  }
}

namespace {

std::unique_ptr<MappedNpy> open_input(const std::string& path) {
  auto input = MappedNpy::open(path);
  if (input->trailing_bytes() > 0) {
    // numpy.load ignores them too; they may be a sign of a damaged file, so say so.
    std::cerr << fmt::format("accelera: warning: {} has {} bytes after its data; they are ignored\n", path,
                             input->trailing_bytes());
  }
  return input;
}

void multiply(const MatmulOptions& options) {
  const auto a = open_input(options.a);
  const auto b = open_input(options.b);
  const Tensor& ta = a->tensor();
  const Tensor& tb = b->tensor();
  ACC_CHECK(ta.shape()[1] == tb.shape()[0], ShapeError, "{} is {} and {} is {}: A's columns must equal B's rows",
            options.a, ta.shape().str(), options.b, tb.shape().str());
  ACC_CHECK(ta.dtype() == tb.dtype(), DTypeError, "{} is {} and {} is {}: convert one so that both match", options.a,
            dtype_name(ta.dtype()), options.b, dtype_name(tb.dtype()));
  EngineOptions o;
  if (!options.device.empty()) o.device = Device::parse(options.device);
  ACC_CHECK(!options.include_cpu || !options.devices.empty(), ValueError,
            "--include-cpu goes with --devices (the CPU as one more device)");
  if (!options.devices.empty()) o.devices = parse_engine_devices(options.devices, options.include_cpu);
  if (!options.budget.empty()) o.memory_budget = parse_size(options.budget);
  o.chunking_strategy = parse_chunking_strategy(options.strategy);
  o.enable_progress = !options.quiet;
  MatrixEngine engine(o);
  // Stops a streamed run at the next tile once a signal has come.
  engine.set_progress_callback([](const EngineProgress&) { return pending_interrupt() == 0; });
  const auto c = MappedNpy::create(options.out, ta.shape()[0], tb.shape()[1], ta.dtype(), {a.get(), b.get()});
  engine.matmul(ta, tb, std::nullopt, c->tensor());
  throw_if_interrupted();  // an in-core run has no tiles to stop at
  c->commit();
  const RunStats& run = engine.last_run();
  fmt::print("{} = {} @ {}: {} on {} in {:.3f} s ({:.1f} GFLOP/s)\n", options.out, options.a, options.b,
             c->tensor().shape().str(), run.device, run.seconds, run.flops / std::max(run.seconds, 1e-9) / 1e9);
  print_run(run);
}

}  // namespace

int run_matmul(const MatmulOptions& options) {
  const InterruptGuard guard;
#ifdef ACCELERA_CLI_MPI
  if (launched_by_mpi()) return run_matmul_mpi(options);
#endif
  try {
    multiply(options);
  } catch (const CancelledError&) {
    const int signal = pending_interrupt();
    if (signal == 0) throw;
    std::cerr << fmt::format("accelera: interrupted by {}: {} was not written\n", signal_name(signal), options.out);
    return 128 + signal;
  }
  return 0;
}

}  // namespace accelera::cli
