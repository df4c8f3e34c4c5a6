// The device registry: which device kinds this build has, which devices answer, and one caching allocator
// per device (created on first use, alive until exit so that tensors outliving main() can still free).
#include "accelera/core/registry.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>

#include "accelera/core/config.hpp"
#include "accelera/core/error.hpp"
#include "core/device_registration.hpp"
#include "core/log.hpp"

namespace accelera {

namespace {

constexpr DeviceKind kAllKinds[] = {DeviceKind::cpu, DeviceKind::cuda, DeviceKind::opencl};
constexpr std::size_t kKinds = std::size(kAllKinds);

std::size_t slot(DeviceKind kind) { return static_cast<std::size_t>(kind); }

// How people write the kind's name: "CUDA", "OpenCL".
std::string_view display_name(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::cuda: return "CUDA";
    case DeviceKind::opencl: return "OpenCL";
    case DeviceKind::cpu: break;
  }
  return "CPU";
}

// Factories are registered during static initialisation, before any device is looked up.
std::array<detail::DeviceInterfaceFactory, kKinds>& factories() {
  static std::array<detail::DeviceInterfaceFactory, kKinds> instance{};
  return instance;
}

struct Registry {
  std::array<std::unique_ptr<DeviceInterface>, kKinds> interfaces;
  std::array<std::string, kKinds> absent_reasons;
  std::mutex mutex;
  std::vector<std::unique_ptr<CachingAllocator>> allocators;
  std::vector<Device> allocator_devices;

  Registry() {
    for (DeviceKind kind : kAllKinds) {
      const auto factory = factories()[slot(kind)];
      std::string& reason = absent_reasons[slot(kind)];
      if (factory == nullptr) {
        reason = fmt::format("built without {} support", display_name(kind));
        continue;
      }
      auto interface = factory(reason);
      if (!interface) {
        ACC_ASSERT(!reason.empty(), "the {} factory returned nothing and gave no reason", device_kind_name(kind));
        continue;
      }
      if (interface->device_count() == 0) {
        reason = fmt::format("no {} device found", display_name(kind));
        continue;
      }
      reason.clear();
      interfaces[slot(kind)] = std::move(interface);
    }
  }
};

std::atomic<Registry*> g_started{nullptr};  // set once the registry exists (finish_queued_work starts none)

Registry& registry() {
  // Deliberately leaked: Python may free tensors after static destructors have run.
  static Registry* instance = [] {
    auto* r = new Registry();
    g_started.store(r, std::memory_order_release);
    return r;
  }();
  return *instance;
}

}  // namespace

namespace detail {

bool register_device_kind(DeviceKind kind, DeviceInterfaceFactory factory) {
  auto& slot_factory = factories()[slot(kind)];
  ACC_ASSERT(slot_factory == nullptr, "the {} device kind was registered twice", device_kind_name(kind));
  slot_factory = factory;
  return true;
}

}  // namespace detail

DeviceInterface& device_interface(const Device& device) {
  auto& r = registry();
  auto& interface = r.interfaces[slot(device.kind)];
  ACC_CHECK(interface != nullptr, DeviceError, "device {} is not available: {}", device.str(),
            r.absent_reasons[slot(device.kind)]);
  ACC_CHECK(device.index >= 0 && device.index < interface->device_count(), DeviceError,
            "no such device {}: {} {} device(s) present", device.str(), interface->device_count(),
            device_kind_name(device.kind));
  return *interface;
}

std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> out;
  for (auto& interface : registry().interfaces) {
    if (!interface) continue;
    for (int i = 0; i < interface->device_count(); ++i) out.push_back(interface->device_info(i));
  }
  return out;
}

// Note [Work queued at exit]
// Device work is asynchronous, so a program may end with kernels still queued. The drivers then run them in
// their own threads while exit handlers tear the process down: PoCL finishes compiling a kernel in a worker
// thread on its first launch, with LLVM, some of whose static objects are created while a program builds
// and destroyed by exit handlers registered then. Exit handlers run in the reverse order of registration,
// so these ran before a handler of ours registered earlier, and the worker crashed the process at exit
// (segmentation fault, "double free or corruption"; every time with a cold PoCL cache). So the OpenCL
// backend registers its waiting handler anew after each program build (build_program), and Python waits for
// every device in an atexit function (accelera/__init__.py), which runs before any exit handler of the C
// runtime.
void finish_queued_work() noexcept {
  Registry* r = g_started.load(std::memory_order_acquire);
  if (r == nullptr) return;
  for (const auto& interface : r->interfaces) {
    if (!interface) continue;
    for (int i = 0; i < interface->device_count(); ++i) {
      try {
        interface->synchronize(i);
      } catch (const Error& error) {
        ACC_LOG_WARN("waiting for the work queued on a device at exit failed: {}", error.what());
      }
    }
  }
}

std::vector<std::string> compiled_backends() {
  std::vector<std::string> names;
  for (DeviceKind kind : kAllKinds) {
    if (factories()[slot(kind)] != nullptr) names.emplace_back(device_kind_name(kind));
  }
  return names;
}

std::string backend_absent_reason(DeviceKind kind) { return registry().absent_reasons[slot(kind)]; }

Device default_device() {
  if (const std::optional<Device>& chosen = config().device) {
    // The user's choice must answer: falling back to another device would hide a mistake.
    try {
      device_interface(*chosen);
    } catch (const DeviceError& error) {
      throw DeviceError(fmt::format("ACCELERA_DEVICE={}: {}", chosen->str(), error.what()));
    }
    return *chosen;
  }
  auto& r = registry();
  for (auto kind : {DeviceKind::cuda, DeviceKind::opencl}) {
    const auto& interface = r.interfaces[slot(kind)];
    if (!interface) continue;
    for (int i = 0; i < interface->device_count(); ++i) {
      if (interface->device_info(i).is_accelerator) return Device{kind, i};
    }
  }
  return Device::cpu();
}

CachingAllocator& allocator_for(const Device& device) {
  DeviceInterface& interface = device_interface(device);
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  for (std::size_t i = 0; i < r.allocator_devices.size(); ++i) {
    if (r.allocator_devices[i] == device) return *r.allocators[i];
  }
  const auto total = interface.total_memory(device.index);
  const auto budget = std::max<std::int64_t>(1, static_cast<std::int64_t>(config().memory_threshold *
                                                                          static_cast<double>(total)));
  r.allocators.push_back(
      std::make_unique<CachingAllocator>(device, interface.raw_allocator(device.index), budget));
  r.allocator_devices.push_back(device);
  return *r.allocators.back();
}

MemoryStats memory_stats(const Device& device) { return allocator_for(device).stats(); }
void empty_cache(const Device& device) { allocator_for(device).empty_cache(); }
void set_memory_budget(const Device& device, std::int64_t bytes) { allocator_for(device).set_budget(bytes); }

std::shared_ptr<CompiledKernel> DeviceInterface::compile_kernel(int, const std::string& name, const std::string&,
                                                                const std::string&) {
  throw NotSupportedError(fmt::format("cannot compile kernel '{}': {} devices have no run-time kernel compiler",
                                      name, device_kind_name(kind())));
}

std::vector<std::string> DeviceInterface::compiled_kernels(int) const { return {}; }

std::uintptr_t DeviceInterface::native_stream(int, Stream) { return 0; }

void DeviceInterface::order_before_foreign_stream(int index, Stream stream, std::uintptr_t) {
  synchronize_stream(index, stream);
}

}  // namespace accelera
