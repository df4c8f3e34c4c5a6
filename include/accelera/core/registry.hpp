#pragma once
// The device registry: which device kinds this build has, which devices answer, and their allocators.
// Compiled backends register themselves when the library loads; devices are discovered on first use.
#include <cstdint>
#include <string>
#include <vector>

#include "accelera/core/allocator.hpp"
#include "accelera/core/device.hpp"
#include "accelera/core/device_interface.hpp"
#include "accelera/core/export.hpp"

namespace accelera {

// The interface serving a device. Throws DeviceError saying "built without X support", "no X device
// found" or that the index is out of range.
ACC_API DeviceInterface& device_interface(const Device& device);
// Every device that answers now, CPU first.
ACC_API std::vector<DeviceInfo> devices();
// Why a device kind is absent ("built without CUDA support", "no CUDA device found: <the runtime's
// reason>"); empty when it is present.
ACC_API std::string backend_absent_reason(DeviceKind kind);
// Names of the device kinds compiled into this build ("cpu", ...).
ACC_API std::vector<std::string> compiled_backends();
// The device Accelera picks when none is given: ACCELERA_DEVICE when set (DeviceError naming the variable
// when that device does not answer), else the first GPU or accelerator, else the CPU.
ACC_API Device default_device();

// Waits for the work queued on every device of the backends in use, for exit paths: a process that ends
// with kernels still queued would otherwise tear the drivers down under them (Note [Work queued at exit]).
// Starts no backend; failures are logged, as no caller is left to report them to.
ACC_API void finish_queued_work() noexcept;

// Memory helpers over allocator_for(device).
ACC_API MemoryStats memory_stats(const Device& device);
ACC_API void empty_cache(const Device& device);
// Sets a device's budget in bytes; throws ValueError when not positive.
ACC_API void set_memory_budget(const Device& device, std::int64_t bytes);

}  // namespace accelera
