// The seed's GpuProfiler (include/accelera/nn/profiler.hpp).
#include "accelera/nn/profiler.hpp"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "accelera/core/allocator.hpp"
#include "accelera/core/error.hpp"
#include "accelera/core/registry.hpp"
#include "core/kernel_table.hpp"
#include "atomic_file.hpp"

namespace accelera::nn {

namespace {

std::vector<Device> every_device() {
  std::vector<Device> out;
  for (const auto& d : accelera::devices()) out.push_back(d.device);
  return out;
}

double seconds(GpuProfiler::Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

GpuProfiler::GpuProfiler() : GpuProfiler(every_device()) {}

GpuProfiler::GpuProfiler(std::vector<Device> devices, bool record_ops)
    : m_devices(std::move(devices)), m_origin(Clock::now()) {
  if (record_ops) this->record_ops();
}

GpuProfiler::~GpuProfiler() = default;

// m_observation has a lock of its own: taking m_mutex here would deadlock against a report in flight,
// which holds the registry's lock and waits for m_mutex.
void GpuProfiler::record_ops() {
  std::lock_guard switching(m_observation_mutex);
  if (m_observation) return;
  m_observation = std::make_unique<KernelObservation>([this](const KernelEvent& e) {
    const MemorySample sample{e.stop, e.device, accelera::memory_stats(e.device).current_bytes};
    std::lock_guard lock(m_mutex);
    m_regions.push_back({std::string(e.op), e.start, e.stop - e.start, std::nullopt, e.device.index, "op", e.device});
    m_memory.push_back(sample);
  });
}

void GpuProfiler::stop() {
  std::lock_guard switching(m_observation_mutex);
  m_observation.reset();
}

void GpuProfiler::synchronize() const {
  for (const Device& d : m_devices)
    if (!d.is_cpu()) device_interface(d).synchronize(d.index);
}

void GpuProfiler::start(const std::string& name) {
  if (name.empty()) throw ValueError("a profiler region needs a name");
  synchronize();  // work queued before the region is not the region's
  const auto now = Clock::now();
  std::lock_guard lock(m_mutex);
  m_open[name].push_back(now);
}

double GpuProfiler::end(const std::string& name, std::optional<std::int64_t> memory_used, std::optional<int> device_id) {
  synchronize();
  const auto stop = Clock::now();
  std::vector<MemorySample> samples;
  for (const Device& d : m_devices) samples.push_back({stop, d, accelera::memory_stats(d).current_bytes});
  std::lock_guard lock(m_mutex);
  auto open = m_open.find(name);
  if (open == m_open.end() || open->second.empty())
    throw ValueError(fmt::format("end(\"{}\") without a matching start(\"{}\")", name, name));
  const auto start = open->second.back();
  open->second.pop_back();
  m_regions.push_back({name, start, stop - start, memory_used, device_id});
  m_memory.insert(m_memory.end(), samples.begin(), samples.end());
  return seconds(stop - start);
}

std::vector<GpuProfiler::Row> GpuProfiler::summary() const {
  std::lock_guard lock(m_mutex);
  std::map<std::pair<std::string, std::string>, Row> by_name;
  std::map<std::string, double> category_total;
  for (const auto& r : m_regions) {
    Row& row = by_name[{r.category, r.name}];
    row.category = r.category;
    row.name = r.name;
    row.count += 1;
    row.total_s += seconds(r.duration);
    category_total[r.category] += seconds(r.duration);
  }
  std::vector<Row> rows;
  for (auto& [key, row] : by_name) {
    const double all = category_total[row.category];
    row.mean_s = row.total_s / static_cast<double>(row.count);
    row.share = all > 0 ? row.total_s / all : 0.0;
    rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if ((a.category == "region") != (b.category == "region")) return a.category == "region";
    return a.total_s > b.total_s;
  });
  return rows;
}

void GpuProfiler::print_summary(std::ostream& out) const {
  out << fmt::format("{:<7} {:<32} {:>7} {:>10} {:>10} {:>7}\n", "kind", "name", "count", "total ms", "mean us",
                     "share");
  for (const Row& r : summary())
    out << fmt::format("{:<7} {:<32} {:>7} {:>10.3f} {:>10.1f} {:>6.1f}%\n", r.category, r.name.substr(0, 32), r.count,
                       r.total_s * 1e3, r.mean_s * 1e6, r.share * 100);
  std::map<std::string, std::int64_t> peaks;
  for (const auto& s : memory_timeline()) {
    auto& peak = peaks[s.device.str()];
    peak = std::max(peak, s.current_bytes);
  }
  for (const auto& [device, peak] : peaks)
    out << fmt::format("memory {:<25} peak {:.1f} MiB\n", device, static_cast<double>(peak) / (1 << 20));
}

void GpuProfiler::print_summary() const { print_summary(std::cout); }

void GpuProfiler::export_chrome_trace(const std::string& path) const {
  const auto micros = [this](Clock::time_point t) { return std::chrono::duration<double, std::micro>(t - m_origin).count(); };
  nlohmann::json events = nlohmann::json::array();
  for (const auto& r : regions()) {
    nlohmann::json args = nlohmann::json::object();
    if (r.memory_used) args["memory_used"] = *r.memory_used;
    if (r.device) args["device"] = r.device->str();
    else if (r.device_id) args["device_id"] = *r.device_id;
    events.push_back({{"name", r.name}, {"cat", r.category}, {"ph", "X"}, {"pid", 0}, {"tid", r.device ? 1 : 0},
                      {"ts", micros(r.start)}, {"dur", std::chrono::duration<double, std::micro>(r.duration).count()},
                      {"args", args}});
  }
  for (const auto& s : memory_timeline())
    events.push_back({{"name", "memory " + s.device.str()}, {"ph", "C"}, {"pid", 0}, {"ts", micros(s.when)},
                      {"args", {{"bytes", s.current_bytes}}}});
  const std::string text = nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump();
  detail::write_file_atomically(path, [&](const detail::FileWriter& out) { out.write(text.data(), text.size()); });
}

std::vector<GpuProfiler::Region> GpuProfiler::regions() const {
  std::lock_guard lock(m_mutex);
  return m_regions;
}

std::vector<GpuProfiler::MemorySample> GpuProfiler::memory_timeline() const {
  std::lock_guard lock(m_mutex);
  return m_memory;
}

}  // namespace accelera::nn
