#pragma once
// The seed guide's GpuProfiler: named regions (start/end; nesting and repeats allowed) timed once the
// devices' queued work has finished, so a region's time includes what it launched on OpenCL and CUDA; the
// memory each device's allocator holds at each region's end; a summary table; and a Chrome trace (the
// Trace Event format, which Perfetto and chrome://tracing open). Python's accelera.profiler can also time
// every namespace op on its own; in C++ the regions are what is timed.
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "accelera/core/device.hpp"
#include "accelera/core/export.hpp"

namespace accelera::nn {

class ACC_API GpuProfiler {
 public:
  using Clock = std::chrono::steady_clock;

  struct Region {
    std::string name;
    Clock::time_point start;
    Clock::duration duration;
    std::optional<std::int64_t> memory_used;  // as the caller reported it
    std::optional<int> device_id;
  };
  struct MemorySample {
    Clock::time_point when;
    Device device;
    std::int64_t current_bytes;
  };
  struct Row {
    std::string name;
    std::int64_t count = 0;
    double total_s = 0, mean_s = 0, share = 0;  // share: of every region's total
  };

  // Synchronises and samples every device present, or those given.
  GpuProfiler();
  explicit GpuProfiler(std::vector<Device> devices);

  // ValueError for an empty name.
  void start(const std::string& name);
  // Closes the innermost open region `name` and returns its seconds; ValueError without a matching start.
  double end(const std::string& name, std::optional<std::int64_t> memory_used = std::nullopt,
             std::optional<int> device_id = std::nullopt);

  // One row per region name, the longest total first.
  std::vector<Row> summary() const;
  // The rows, then each device's peak memory over the samples.
  void print_summary(std::ostream& out) const;
  void print_summary() const;  // to standard output
  // Regions as complete events, memory as counters; written to a temporary and renamed into place.
  void export_chrome_trace(const std::string& path) const;

  std::vector<Region> regions() const;
  std::vector<MemorySample> memory_timeline() const;

 private:
  void synchronize() const;

  std::vector<Device> m_devices;
  Clock::time_point m_origin;
  mutable std::mutex m_mutex;
  std::map<std::string, std::vector<Clock::time_point>> m_open;
  std::vector<Region> m_regions;
  std::vector<MemorySample> m_memory;
};

}  // namespace accelera::nn
