#include "core/kernel_table.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>

#include "accelera/core/error.hpp"
#include "accelera/core/registry.hpp"
#include "accelera/op_table.hpp"

namespace accelera {

std::vector<DType> DTypeSet::list() const {
  std::vector<DType> out;
  for (DType d : all_dtypes) {
    if (contains(d)) out.push_back(d);
  }
  return out;
}

namespace {

struct Entry {
  const void* schema = nullptr;
  DTypeSet dtypes;
  detail::ErasedKernel kernel = nullptr;
};

struct Table {
  std::shared_mutex mutex;
  // Op names are the schemas' string literals, alive for the program's lifetime.
  std::map<std::pair<std::string_view, DeviceKind>, Entry> entries;
};

Table& table() {
  // Deliberately leaked: kernels may be looked up while static objects of other files are destroyed.
  static Table* instance = new Table();
  return *instance;
}

std::string dtype_list(DTypeSet set) {
  std::string out;
  const auto dtypes = set.list();
  for (std::size_t i = 0; i < dtypes.size(); ++i) {
    out += i == 0 ? "" : (i + 1 == dtypes.size() ? " and " : ", ");
    out += dtype_name(dtypes[i]);
  }
  return out;
}

}  // namespace

namespace detail {

bool add_kernel(std::string_view op, const void* schema, DeviceKind kind, DTypeSet dtypes, ErasedKernel kernel) {
  Table& t = table();
  std::unique_lock lock(t.mutex);
  const auto [it, inserted] = t.entries.try_emplace({op, kind}, Entry{schema, dtypes, kernel});
  ACC_ASSERT(inserted, "a second {} kernel was registered for {}", op, device_kind_name(kind));
  for (const auto& [key, entry] : t.entries) {
    ACC_ASSERT(key.first != op || entry.schema == schema, "op {} was registered with two different signatures", op);
  }
  return true;
}

std::optional<DTypeSet> registered_dtypes(std::string_view op, DeviceKind kind) {
  Table& t = table();
  std::shared_lock lock(t.mutex);
  const auto it = t.entries.find({op, kind});
  if (it == t.entries.end()) return std::nullopt;
  return it->second.dtypes;
}

ErasedKernel find_kernel(std::string_view op, const void* schema, const Device& device, DType dtype) {
  const DeviceInterface& interface = device_interface(device);  // DeviceError when absent
  Entry entry;
  {
    Table& t = table();
    std::shared_lock lock(t.mutex);
    const auto it = t.entries.find({op, device.kind});
    ACC_CHECK(it != t.entries.end(), NotSupportedError, "{} is not implemented on {} devices (asked for {} on {})",
              op, device_kind_name(device.kind), dtype_name(dtype), device.str());
    entry = it->second;
  }
  ACC_ASSERT(entry.schema == schema, "op {} was looked up with another signature than it was registered with", op);
  ACC_CHECK(entry.dtypes.contains(dtype), NotSupportedError,
            "{} does not compute {} on {}: it computes {} there (convert with astype)", op, dtype_name(dtype),
            device.str(), dtype_list(entry.dtypes));
  ACC_CHECK(interface.device_computes(device.index, dtype), NotSupportedError,
            "{} does not compute {} on {}: the device has no {} arithmetic (convert with astype)", op,
            dtype_name(dtype), device.str(), dtype_name(dtype));
  return entry.kernel;
}

}  // namespace detail

// ---- observers (Note [Kernel observers]) -------------------------------------------------------------

namespace {

// Reports take the lock shared, so kernels on several threads report at once; registering takes it
// exclusively, and so waits for reports in flight (an observer never runs after its KernelObservation is gone).
struct Observers {
  std::shared_mutex mutex;
  std::vector<std::pair<std::uint64_t, KernelObserver>> list;
  std::uint64_t next_id = 0;
  std::atomic<bool> any{false};
};

Observers& observers() {
  static Observers o;
  return o;
}

}  // namespace

KernelObservation::KernelObservation(KernelObserver observer) {
  Observers& o = observers();
  std::unique_lock lock(o.mutex);
  m_id = o.next_id++;
  o.list.emplace_back(m_id, std::move(observer));
  o.any.store(true, std::memory_order_relaxed);
}

KernelObservation::~KernelObservation() {
  Observers& o = observers();
  std::unique_lock lock(o.mutex);
  std::erase_if(o.list, [this](const auto& entry) { return entry.first == m_id; });
  o.any.store(!o.list.empty(), std::memory_order_relaxed);
}

namespace detail {

bool kernels_observed() noexcept { return observers().any.load(std::memory_order_relaxed); }

std::chrono::steady_clock::time_point settle(const Device& device) {
  if (!device.is_cpu()) device_interface(device).synchronize(device.index);
  return std::chrono::steady_clock::now();
}

void report_kernel(const KernelEvent& event) {
  Observers& o = observers();
  std::shared_lock lock(o.mutex);
  for (const auto& [id, observer] : o.list) observer(event);
}

}  // namespace detail

std::vector<OpKernelInfo> op_table() {
  Table& t = table();
  std::shared_lock lock(t.mutex);
  std::vector<OpKernelInfo> out;
  for (const auto& [key, entry] : t.entries) {
    out.push_back({std::string(key.first), key.second, entry.dtypes.list()});
  }
  return out;
}

bool supports(const Device& device, std::string_view op, DType dtype) {
  if (!backend_absent_reason(device.kind).empty()) return false;
  const auto set = detail::registered_dtypes(op, device.kind);
  if (!set || !set->contains(dtype)) return false;
  const DeviceInterface& interface = device_interface(device);
  return device.index >= 0 && device.index < interface.device_count() && interface.device_computes(device.index, dtype);
}

bool DeviceInterface::supports(std::string_view op, DType dtype, int index) const {
  const auto set = detail::registered_dtypes(op, kind());
  return set && set->contains(dtype) && device_computes(index, dtype);
}

bool DeviceInterface::device_computes(int, DType) const noexcept { return true; }

}  // namespace accelera
