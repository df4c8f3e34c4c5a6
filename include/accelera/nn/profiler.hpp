#pragma once
// The seed guide's GpuProfiler: named regions (start/end; nesting and repeats allowed) timed once the
// devices' queued work has finished, so a region's time includes what it launched on OpenCL and CUDA; the
// memory each device's allocator holds at each region's end; a summary table; and a Chrome trace (the
// Trace Event format, which Perfetto and chrome://tracing open). With record_ops it also times every kernel
// the ops run, each on its own (Note [Kernel observers] in src/core/kernel_table.hpp: the device's queue is
// waited for before and after each, so the times are the devices' and the queue is serialised), as
// Python's accelera.profiler times every namespace op; each op also samples its device's memory.
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "accelera/core/device.hpp"
#include "accelera/core/export.hpp"

namespace accelera {
class KernelObservation;
}

namespace accelera::nn {

class ACC_API GpuProfiler {
 public:
  using Clock = std::chrono::steady_clock;

  // A timed interval: a region ("region": start/end) or a kernel ("op": recorded ops, named by the op).
  struct Region {
    std::string name;
    Clock::time_point start;
    Clock::duration duration;
    std::optional<std::int64_t> memory_used;  // as the caller reported it
    std::optional<int> device_id;
    std::string category = "region";
    std::optional<Device> device;  // an op's device
  };
  struct MemorySample {
    Clock::time_point when;
    Device device;
    std::int64_t current_bytes;
  };
  struct Row {
    std::string category;  // "region" or "op"
    std::string name;
    std::int64_t count = 0;
    double total_s = 0, mean_s = 0, share = 0;  // share: of the total of every row of its category
  };

  // Synchronises and samples every device present, or those given; with record_ops, times every kernel
  // from now on (record_ops() and stop() switch that later).
  GpuProfiler();
  explicit GpuProfiler(std::vector<Device> devices, bool record_ops = false);
  ~GpuProfiler();
  GpuProfiler(const GpuProfiler&) = delete;
  GpuProfiler& operator=(const GpuProfiler&) = delete;

  void record_ops();  // starts timing every kernel (again); regions are timed either way
  void stop();        // stops timing kernels

  // ValueError for an empty name.
  void start(const std::string& name);
  // Closes the innermost open region `name` and returns its seconds; ValueError without a matching start.
  double end(const std::string& name, std::optional<std::int64_t> memory_used = std::nullopt,
             std::optional<int> device_id = std::nullopt);

  // One row per (category, name): the regions first, each category's longest total first. Op times are
  // inclusive: a kernel that runs another op's kernel (a matmul zeroing its output) contains its time.
  std::vector<Row> summary() const;
  // The rows, then each device's peak memory over the samples.
  void print_summary(std::ostream& out) const;
  void print_summary() const;  // to standard output
  // Regions and ops as complete events (ops on a track of their own), memory as counters; written to a
  // temporary and renamed into place.
  void export_chrome_trace(const std::string& path) const;

  std::vector<Region> regions() const;  // regions and ops, in the order they ended
  std::vector<MemorySample> memory_timeline() const;

 private:
  void synchronize() const;

  std::vector<Device> m_devices;
  Clock::time_point m_origin;
  mutable std::mutex m_mutex;
  std::map<std::string, std::vector<Clock::time_point>> m_open;
  std::vector<Region> m_regions;
  std::vector<MemorySample> m_memory;
  std::mutex m_observation_mutex;  // record_ops() and stop()
  // Last, so that it is gone (and no kernel reports here) before the rest is destroyed.
  std::unique_ptr<KernelObservation> m_observation;
};

}  // namespace accelera::nn
